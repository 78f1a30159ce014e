/*
 * db.h - the gate's provenance store: SQLite, typed queries. The only module
 * that speaks SQL (the statements live in db/db_*.c, the schema in
 * db/migrations/NNNN_*.sql, compiled into the binary).
 *
 * Trust: callers are the gate's own code; values come from authenticated
 * requests and from the scan child's (validated) findings, so every value is
 * bound as a parameter, never pasted into SQL. The database runs in WAL mode
 * with foreign keys on and a busy timeout; every multi-row change is one
 * transaction, so a crash leaves either no trace or a complete record. The
 * events table is append-only: triggers refuse UPDATE and DELETE on it.
 *
 * Threads: one struct db per thread (SQLite connections are not shared).
 * Times are milliseconds since the Unix epoch (int64). Strings are UTF-8.
 */
#ifndef AIRLOCK_DB_H
#define AIRLOCK_DB_H

#include <stddef.h>
#include <stdint.h>

#include "vocab.h"

struct db;

/* The schema version this build writes (the highest migration). */
int db_schema_latest(void);

/*
 * Opens (create: creating if absent, mode 0600) the database at path,
 * applies the missing migrations in order in one transaction each, and
 * refuses a database whose schema is newer than this build (AL_EINVAL).
 * AL_ENOTFOUND when it does not exist and create is 0.
 */
int db_open(struct db **out, const char *path, int create);
void db_close(struct db *db); /* NULL-safe */
/*
 * fn is called (from any thread) when a commit's sync failed and the
 * commit that voids it failed too: the caller was told "failed", but the
 * failed commit may come back at the next start. The process should stop
 * (a restart's recovery decides). See dbi_tx_end in db_stmt.c.
 */
void db_on_storage_fatal(void (*fn)(const char *why));
/*
 * fn (NULL: none) is called after a write transaction committed that
 * appended a change, or that revoked a token or disabled a person: change
 * is the newest change event's id (0: none), revoked 1 for the second. A
 * change is an event on a submission that is neither a read of it (view,
 * view.item, pull, pull.item) nor a refusal (an action ending ".refused"):
 * what a list of submissions shows moved. Called from the committing
 * thread, after the write lock was let go; never for a transaction that
 * rolled back or whose COMMIT failed. One function per process (the
 * gate's long-poll, gate/serve/changes.c); set it before other threads
 * write, clear it after they stopped.
 */
void db_on_commit(void (*fn)(int64_t change, int revoked));
int db_schema_version(struct db *db, int *out);
/* PRAGMA integrity_check: 0 when "ok", AL_EIO with the first problem. */
int db_integrity_check(struct db *db);

/* ---- principals (token holders) ---------------------------------------- */

enum db_role {
	DB_ROLE_AGENT,
	DB_ROLE_REVIEWER,
	DB_ROLE_CI,
	DB_ROLE_AUDITOR,
	DB_ROLE_ADMIN,
	DB_ROLE_MAX,
};

const char *db_role_name(enum db_role r);
int db_role_parse(const char *name); /* -1 when unknown */

struct db_principal {
	int64_t id;
	char *name;
	enum db_role role;
	char *on_behalf_of;       /* the person who launched an agent, or NULL */
	int64_t person_id;        /* the person the token acts for (an agent:
	                           * the one it was launched for); 0: none */
	char *person;             /* that person's name, or NULL */
	int64_t created_at;
	int64_t expires_at;       /* 0: never */
	int64_t revoked_at;       /* 0: not revoked */
};

/*
 * Creates a principal holding a token whose SHA-256 (hex) is token_hash,
 * bound to the registered person named person (compared by fold.h's key;
 * NULL: the person named like the token), and records the event
 * "token.create" by actor (0: the system, e.g. init). An agent's person is
 * the one it was launched for: its on_behalf_of is set to that person's
 * name. AL_EEXIST when the name is taken (revoked names stay taken);
 * AL_ENOTFOUND when no such person is registered; AL_EDENIED when the
 * person is disabled; AL_EINVAL for a name fold.h refuses.
 */
int db_principal_create(struct db *db, const char *name, enum db_role role,
    const char *token_hash, const char *person, int64_t expires_at,
    int64_t now, int64_t actor, int64_t *id_out);
/* The principal holding this token hash, whatever its state (the caller
 * checks expiry and revocation); AL_ENOTFOUND. */
int db_principal_by_token(struct db *db, const char *token_hash,
    struct db_principal *out);
int db_principal_by_name(struct db *db, const char *name,
    struct db_principal *out);
/* All principals, by id. */
int db_principal_list(struct db *db, struct db_principal **out,
    size_t *n_out);
/* Revokes by name (event "token.revoke"); AL_ENOTFOUND, or AL_EINVAL when
 * already revoked. */
int db_principal_revoke(struct db *db, const char *name, int64_t now,
    int64_t actor);
void db_principal_clear(struct db_principal *p);
void db_principal_list_free(struct db_principal *v, size_t n);

/*
 * The token a connection acts for, checked when a write commits. While
 * principal is set (0: none), every write transaction on db begins, under
 * the write lock and before it reads or changes anything, by reading that
 * principal again: a token revoked, expired at clock()'s now, or whose
 * person is disabled makes the transaction fail with AL_EAUTH ("token
 * revoked at ..." / "token expired at ..."), so that a decision whose
 * request started while the token was good is not recorded once it is
 * not. A revocation commits under the same lock, so a decision commits
 * either wholly before it or not at all. Returns the previous principal;
 * setting (or clearing) forgets an earlier refusal.
 */
int64_t db_guard_set(struct db *db, int64_t principal,
    int64_t (*clock)(void));
/* 1 when the guard refused a write since it was set; then *revoked_at
 * (when the token was revoked, or its person disabled; 0: it was not) and
 * *expires_at (the token's expiry; 0: never) say why, as auth.h's
 * gate_token_refusal reads them. 0, and both 0, otherwise. */
int db_guard_refused(struct db *db, int64_t *revoked_at,
    int64_t *expires_at);

/* ---- persons (db_person.c) ---------------------------------------------- */

struct db_person {
	int64_t id;
	char *name;               /* as registered (trimmed) */
	char *fold;               /* the comparison key (fold.h) */
	char *email;              /* or NULL */
	int64_t created_at;
	int64_t disabled_at;      /* 0: enabled */
	int64_t tokens;           /* live tokens bound to the person (list) */
};

/* Registers a person (event "person.add"). AL_EINVAL for a name fold.h
 * refuses; AL_EEXIST (naming the registered spelling) when a person of the
 * same key exists, disabled or not. */
int db_person_create(struct db *db, const char *name, const char *email,
    int64_t now, int64_t actor, int64_t *id_out);
/* By name, compared by key; AL_ENOTFOUND, AL_EINVAL. */
int db_person_get(struct db *db, const char *name, struct db_person *out);
int db_person_list(struct db *db, struct db_person **out, size_t *n_out);
/* Disables a person and revokes their live tokens, agents launched for
 * them included (event "person.disable"); *revoked_out: how many.
 * AL_ENOTFOUND; AL_EINVAL when already disabled. */
int db_person_disable(struct db *db, const char *name, int64_t now,
    int64_t actor, size_t *revoked_out);
void db_person_clear(struct db_person *p);
void db_person_list_free(struct db_person *v, size_t n);

/* ---- submissions -------------------------------------------------------- */

struct db_label {                 /* what the agent asserts, kept apart */
	char *key;
	char *value;
};

struct db_submission {
	int64_t id;
	char sha256[65];          /* hex of the stored bytes */
	int64_t size;
	enum al_kind kind;        /* as asked: AL_KIND_AUTO .. AL_KIND_BUNDLE;
	                           * a label, not how it is read */
	enum al_kind kind_read;   /* the gate's reading (the latest scan's):
	                           * FILE .. BUNDLE; AL_KIND_AUTO: not yet */
	char *name;               /* the name the agent gave */
	int64_t submitter;        /* principal id */
	char *submitter_name;     /* filled by get/list */
	char *launched_by;        /* the agent's on_behalf_of when it submitted */
	int64_t peer_uid;         /* over the unix socket (SO_PEERCRED); -1 */
	int64_t peer_pid;         /* likewise; -1 */
	char *via;                /* "socket" or "tcp" */
	int64_t received_at;
	enum al_state state;
	enum al_verdict verdict;  /* AL_VERDICT_NONE until scanned */
	enum al_severity worst;   /* highest finding severity; AL_SEV_NONE */
	struct db_label *labels;
	size_t nlabels;
};

/*
 * For the store's sweep: the sha256 (64 hex digits) of every object a row
 * refers to: a blob of a submission, or a member's bytes kept for review.
 * Sorted, for bsearch with strcmp; free with free().
 */
int db_object_refs(struct db *db, char (**out)[65], size_t *n_out);
/*
 * Records a submission in state "received": the blob row (once per sha256),
 * the submission, its labels and the event "submit" by the submitter, in
 * one transaction. in->id, submitter_name, state, verdict, worst ignored.
 */
int db_submission_create(struct db *db, const struct db_submission *in,
    int64_t now, int64_t *id_out);
int db_submission_get(struct db *db, int64_t id, struct db_submission *out);
void db_submission_clear(struct db_submission *s);
/* The ids of the submissions of one artifact (sha256), oldest first. */
int db_submission_ids_of(struct db *db, const char *sha256, int64_t **out,
    size_t *n_out);
/* The ids of the submissions named path, or that a scan read an item of at
 * path: the item's whole path, or a member's below its container (the
 * path after a "!/"); oldest first. */
int db_submission_ids_at_path(struct db *db, const char *path, int64_t **out,
    size_t *n_out);
/* Submissions per state, for metrics: counts[s] for every enum al_state. */
int db_submission_counts(struct db *db, int64_t counts[AL_STATE_MAX]);

/* ---- scans -------------------------------------------------------------- */

struct db_finding {
	char *rule;
	enum al_severity severity;
	char *path;
	int64_t line;
	int64_t column;
	char *excerpt;            /* redacted by the engine */
	char *fingerprint;
};

struct db_scan_job {
	int64_t submission_id;
	int64_t scan_id;
	char sha256[65];
	enum al_kind kind;
	char *name;
};

/*
 * Claims the oldest "received" submission: state "scanning", a scans row
 * (rule-set digest, engine version, started_at) and the event
 * "scan.start", in one transaction. AL_ENOTFOUND when none waits.
 */
int db_scan_claim(struct db *db, const char *ruleset_digest,
    const char *engine_version, int64_t now, struct db_scan_job *out);
void db_scan_job_clear(struct db_scan_job *j);
/*
 * After a restart: submissions left "scanning" go back to "received"
 * (event "scan.resume"), their open scans rows get outcome "interrupted".
 * *n_out: how many.
 */
int db_scan_requeue(struct db *db, int64_t now, size_t *n_out);
/*
 * A scan whose result could not be recorded: its scans row ends
 * "interrupted" (error: why), the submission goes back to "received" to be
 * scanned again, event "scan.retry"; one transaction. AL_EINVAL when the
 * scan is no longer running.
 */
int db_scan_requeue_one(struct db *db, const struct db_scan_job *job,
    const char *why, int64_t now);
/* A file the scan read whole (a member of an archive, a file a patch
 * writes, a blob of a bundle). */
struct db_item {
	char *path;
	int64_t mode;             /* 0: unknown */
	int64_t size;
	char *sha256;             /* "" or NULL: not read to its end */
	char *type;               /* MIME type */
	enum al_content content;  /* KEPT: its bytes are in the store under
	                           * sha256; NONE: the question did not arise */
};

/*
 * Ends a scan: its findings and items, the scans row (finished_at, outcome
 * = verdict, error), the submission "held" with verdict and worst severity
 * (AL_SEV_NONE: no finding), the event "scan.finish"; one transaction.
 * AL_EINVAL when the scan is no longer running (its submission was
 * requeued) or a verdict or severity is not one of the enum's.
 */
int db_scan_finish(struct db *db, const struct db_scan_job *job,
    enum al_verdict verdict, enum al_severity worst, enum al_kind kind_read,
    const struct db_finding *f, size_t nf, const struct db_item *items,
    size_t ni, const char *error, int64_t now);
/* The items of the submission's latest finished scan, in order (the
 * API's item index is the position here). */
int db_items_get(struct db *db, int64_t submission_id,
    struct db_item **out, size_t *n_out);
void db_items_free(struct db_item *v, size_t n);
/* The findings of the submission's latest finished scan (an interrupted one
 * does not count), in the order they were recorded; none when it has none. */
int db_findings_get(struct db *db, int64_t submission_id,
    struct db_finding **out, size_t *n_out);
void db_findings_free(struct db_finding *v, size_t n);

/* The latest scan of a submission that was not interrupted. */
struct db_scan_info {
	int64_t id;
	char *ruleset_digest;
	char *engine_version;
	int64_t started_at;
	int64_t finished_at;      /* 0: still running */
	enum al_verdict outcome;  /* AL_VERDICT_NONE while running */
};

/* AL_ENOTFOUND when it was never scanned. */
int db_scan_latest(struct db *db, int64_t submission_id,
    struct db_scan_info *out);
void db_scan_info_clear(struct db_scan_info *s);

/* ---- review and release ------------------------------------------------- */

/* Distinct approvers required, by verdict and worst severity. */
struct db_policy {
	int clean;                /* verdict clean */
	int flagged;              /* flagged, worst at most medium */
	int high;                 /* flagged, worst high or critical */
	int unscannable;          /* and an admin's override of that scan */
};

/* Where a submission stands against the policy. */
struct db_review {
	enum al_state state;
	int approvals;            /* distinct reviewers that count now */
	int needed;
	int override;             /* unscannable: an admin overrode this scan */
};
void db_review_clear(struct db_review *r);

/*
 * Records an approval by reviewer (a principal) of submission id, for the
 * bytes sha256 as scanned by ruleset, and moves the submission to
 * "approved" once the policy is met; events "approve" (and "approved").
 * Refused with AL_EDENIED and a message saying why: the submission is not
 * held; the digest or the rule set is not the submission's latest scan's;
 * the reviewer is the submitter, or the person who launched the submitting
 * agent (by name); the reviewer never fetched the content. AL_EEXIST when
 * this reviewer already approved this scan (it counts once). An approval of
 * an earlier scan counts only while the latest scan found nothing that one
 * did not.
 */
int db_approve(struct db *db, int64_t id, int64_t reviewer,
    const char *sha256, const char *ruleset, const char *comment,
    const struct db_policy *pol, int64_t now, struct db_review *out);
/* Rejects a held submission (final for these bytes); event "reject". */
int db_reject(struct db *db, int64_t id, int64_t reviewer,
    const char *comment, int64_t now);
/* An admin's override of an unscannable scan, with the reason (event
 * "override"); the approvals are still needed. */
int db_override(struct db *db, int64_t id, int64_t admin, const char *reason,
    const struct db_policy *pol, int64_t now, struct db_review *out);
/* After a scan: a held submission whose standing approvals meet the
 * policy (a rescan that found nothing new) is approved again. */
int db_review_settle(struct db *db, int64_t id, const struct db_policy *pol,
    int64_t now, struct db_review *out);
/*
 * The rule set changed: held and approved submissions whose latest scan
 * used another rule set go back to "received" to be scanned again (event
 * "rescan"); approvals stay, and count again only if the new scan finds
 * nothing they did not see. *n_out: how many.
 */
int db_rescan_stale(struct db *db, const char *ruleset, int64_t now,
    size_t *n_out);
/*
 * An integrity alarm on submission id: its stored bytes (or those of one of
 * its kept items) did not hash to their sha256. One transaction: the event
 * "integrity.mismatch" (actor: the system) with detail, and, when rescan is
 * set and the submission is held or approved and not unscannable already,
 * back to "received" to be scanned again (event "rescan"), where the scan
 * reads the store again: an artifact that does not verify is unscannable.
 * *requeued_out: 1 if it went back (may be NULL).
 */
int db_integrity_alarm(struct db *db, int64_t id, const char *detail,
    int rescan, int64_t now, int *requeued_out);
/* Where the submission stands (state, counted approvals, needed). */
int db_review_get(struct db *db, int64_t id, const struct db_policy *pol,
    struct db_review *out);

/* ---- the queue: a page of submissions ------------------------------------ */

enum db_page_sort {
	DB_PAGE_NEWEST = 0,       /* by id, the newest first */
	DB_PAGE_OLDEST,           /* by id, the oldest first */
	DB_PAGE_SEVERITY,         /* worst severity, the most severe first
	                           * (none last), then the newest first */
};

/* What a page asks for; every filter is off as its comment says. */
struct db_page_query {
	int state;                /* enum al_state; -1: any */
	int64_t submitter;        /* the submitter's principal id; 0: any */
	int min_worst;            /* enum al_severity: a worst of this or
	                           * more; AL_SEV_NONE: any (and none) */
	int kind;                 /* the gate's reading (kind_read), FILE ..
	                           * BUNDLE; -1: any (and not read yet) */
	const char *agent;        /* the submitter token's name; NULL: any */
	const char *person;       /* the fold key (fold.h) of the person an
	                           * agent was launched for, compared with
	                           * the key of launched_by; NULL: any */
	enum db_page_sort sort;
	size_t limit;             /* 1 .. DB_PAGE_MAX rows */
	int after;                /* 1: only the rows past this key: */
	int after_worst;          /* enum al_severity (DB_PAGE_SEVERITY) */
	int64_t after_id;
};
#define DB_PAGE_MAX 1000u

/* A row of a page: the submission (with its labels) and where it stands,
 * counted as db_review_get counts it. */
struct db_page_row {
	struct db_submission sub;
	struct db_review review;
};

/*
 * The rows of the queue that match q, in q's order, at most q->limit;
 * *more_out 1 when there are more past the last (ask again with after set
 * to its key). The rows and their counts come from one read transaction
 * and one statement, whatever the number of rows.
 */
int db_submission_page(struct db *db, const struct db_page_query *q,
    const struct db_policy *pol, struct db_page_row **out, size_t *n_out,
    int *more_out);
void db_submission_page_free(struct db_page_row *v, size_t n);

struct db_approval {
	char *reviewer;           /* the token's name */
	char *person;             /* the person it belongs to */
	int64_t at;
	char *sha256;
	char *ruleset_digest;
	char *comment;
};
/* The approvals that count now, one per person (their first), oldest
 * first. */
int db_approvals_get(struct db *db, int64_t id, struct db_approval **out,
    size_t *n_out);
void db_approvals_free(struct db_approval *v, size_t n);
/* An approval that no longer counts (db_approvals_voided): given to an
 * earlier scan whose findings lack new_findings of the latest scan's, or
 * by a token of no person (person NULL). */
struct db_voided {
	char *reviewer;           /* the token's name */
	char *person;             /* NULL: the token has no person */
	int64_t at;
	char *ruleset_digest;     /* of the scan it was given to */
	int64_t scan_id;
	int64_t new_findings;     /* the latest scan's that scan lacked */
};
/* The approvals of submission id that do not count now, oldest first
 * (persons with one that counts left out). */
int db_approvals_voided(struct db *db, int64_t id, struct db_voided **out,
    size_t *n_out);
void db_voided_free(struct db_voided *v, size_t n);

/* The admin override of the latest scan, if any; AL_ENOTFOUND. */
int db_override_get(struct db *db, int64_t id, char **admin_out,
    char **reason_out, int64_t *at_out);
/* Marks an approved submission released with its signed statement (event
 * "release"); AL_EDENIED when it is not approved. */
int db_release(struct db *db, int64_t id, int64_t actor,
    const char *attestation, int64_t now);
/* The statement of a released submission; AL_ENOTFOUND. */
int db_release_get(struct db *db, int64_t id, char **attestation_out,
    int64_t *at_out);
/* Held submissions received before cutoff become "expired"; *n_out. */
int db_expire_held(struct db *db, int64_t cutoff, int64_t now,
    size_t *n_out);
/*
 * Records what was served of submission id to actor, against the latest
 * finished scan: the whole artifact (item -1) or kept item `item` (path:
 * its path), bytes served, whole (full 1, sha256 of what was served) or a
 * range (full 0, range a text like "0-0"); a views row and the event
 * "view" or "view.item" saying the same, in one transaction.
 */
int db_view_record(struct db *db, int64_t id, int64_t actor, int64_t item,
    const char *path, int64_t bytes, const char *sha256, int full,
    const char *range, int64_t now);
/*
 * 1 if actor's person holds review evidence for the latest scan of
 * submission id: a full fetch of the whole artifact after that scan, or,
 * when every item of that scan was kept, a full fetch of every item.
 */
int db_viewed(struct db *db, int64_t id, int64_t actor, int *out);

/* ---- the audit log (db_audit.c, docs/audit.md) ----------------------- */

/* The largest canonical entry: an event's detail is bounded by the gate
 * well below this. */
#define DB_AUDIT_ENTRY_MAX (1u << 20)

struct db_audit_leaf {
	uint64_t idx;
	int64_t event_id;
	char *entry;              /* the canonical entry, NUL after entry_len */
	size_t entry_len;
	uint8_t hash[32];         /* as stored */
};

/* Entries in the log (the tree's size). */
int db_audit_size(struct db *db, uint64_t *size);
/*
 * The gate's memory of its own entries (it calls db_audit_track at start):
 * from then on this process remembers the leaf hash of every entry its
 * committed transactions appended, so that what it signs is what it wrote.
 * db_audit_check_own(from, to): each entry in [from, to) (from the tree's
 * size at db_audit_track on) that this process wrote still hashes as it
 * did, and each it did not is one whose action is in foreign (NULL-ended:
 * what another process may write beside the gate, as `airlock key rotate`
 * does); else why says the first that is not (rc 0). Without tracking,
 * nothing is checked. db_audit_own_forget: a checkpoint covers the entries
 * below `below`, which need not be remembered any longer.
 */
int db_audit_track(struct db *db);
int db_audit_check_own(struct db *db, uint64_t from, uint64_t to,
    const char *const *foreign, char *why, size_t whylen);
void db_audit_own_forget(uint64_t below);
/* The root of the first *size entries (*size 0: all of them; *size is set
 * to the size used). */
int db_audit_root(struct db *db, uint64_t *size, uint8_t root[32]);
/* Entry idx; free out->entry. */
int db_audit_leaf(struct db *db, uint64_t idx, struct db_audit_leaf *out);
int db_audit_leaf_of_event(struct db *db, int64_t event_id, uint64_t *idx);
/* The leaves whose entries are about submission id (id > 0) or about the
 * artifact sha256 (id 0), by the entries' own lines, in order; free *out.
 * One pass over the log. */
int db_audit_leaves_about(struct db *db, int64_t id, const char *sha256,
    uint64_t **out, size_t *n_out);
/* The first entry holding both byte strings a and b (one pass over the
 * log); AL_ENOTFOUND when none does. */
int db_audit_find(struct db *db, const char *a, const char *b, uint64_t *idx);
/* Entries [from, to) checked: each hashes to its stored leaf hash and is
 * what the tables now give; *why is "" when all are, else the first
 * that is not. */
int db_audit_check_range(struct db *db, uint64_t from, uint64_t to,
    char *why, size_t whylen);
/* Calls fn for each entry from index from on, in order, in one read
 * transaction; fn's non-zero return stops it (and is returned). */
int db_audit_each(struct db *db, uint64_t from,
    int (*fn)(void *ctx, const struct db_audit_leaf *l), void *ctx);
/* RFC 9162 proofs from the stored tree; path holds at most 64 hashes. */
int db_audit_inclusion(struct db *db, uint64_t idx, uint64_t size,
    uint8_t path[][32], size_t *n);
int db_audit_consistency(struct db *db, uint64_t old_size, uint64_t size,
    uint8_t path[][32], size_t *n);

struct db_checkpoint {
	int64_t id;
	uint64_t size;
	uint8_t root[32];
	int root_ok;              /* read back: the stored root had 32 bytes */
	char *key_id;
	int64_t at;
	char *reason;             /* release, events, time, asked */
	char *note;               /* the signed note */
};

/* Stores a checkpoint the gate made and signed (one transaction). */
int db_checkpoint_add(struct db *db, const struct db_checkpoint *c);
/* All checkpoints, oldest first, or (latest 1) only the newest. */
int db_checkpoint_list(struct db *db, int latest, struct db_checkpoint **out,
    size_t *n_out);
void db_checkpoint_list_free(struct db_checkpoint *v, size_t n);

/* A root to compare while verifying: a stored or an exported checkpoint. */
enum { DB_CHECK_BEYOND = -1, DB_CHECK_DIFFERS = 0, DB_CHECK_MATCHES = 1 };
struct db_audit_check {
	const char *name;         /* for the report: "#3", a file name */
	uint64_t size;
	uint8_t root[32];
	int result;               /* DB_CHECK_*, set by db_audit_verify */
};
#define DB_AUDIT_NO_ENTRY UINT64_MAX  /* first_bad: a table's row, no entry */
struct db_audit_report {
	int ok;                   /* 1: nothing diverged */
	uint64_t first_bad;       /* if not: the first index that did */
	char what[512];           /* and what was found there */
	uint64_t size;            /* entries read */
	uint8_t root[32];         /* their root, recomputed */
};
/*
 * Reads the whole log again: each entry rebuilt from the event row and
 * what it names and compared with the stored bytes, each leaf hash and
 * each stored node recomputed, events without a leaf and leaves without
 * an event found, and the root at each check's size compared with it.
 * Returns 0 when it could read the log (r->ok says what it found), or an
 * error. Signatures are the caller's to check.
 */
int db_audit_verify(struct db *db, struct db_audit_check *checks,
    size_t nchecks, struct db_audit_report *r);

/* Records the first divergence in r (later ones are not kept): r->ok 0,
 * r->first_bad idx, r->what the message. */
void db_audit_fail(struct db_audit_report *r, uint64_t idx, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/*
 * The checks compared with a tree recomputed leaf by leaf, by size: what
 * db_audit_verify does with the stored entries and `airlock audit verify
 * --server` with the entries a gate serves. begin clears r (r->ok 1) and
 * sets every check's result to DB_CHECK_BEYOND; wants is the next size
 * whose root a check needs (UINT64_MAX: none); root gives the root of the
 * first size leaves to the checks of that size, a differing one failing r
 * at entry size - 1 (saying from which entry on the change must be: the
 * size of the last check that matched); end, once r->size is the size
 * read, fails r for each check beyond it (a log cut short of a
 * checkpoint) and frees.
 */
struct db_audit_walk {
	struct db_audit_check **order; /* the checks, smallest size first */
	size_t n, next;
	uint64_t matched;         /* the largest size a check matched at */
	struct db_audit_report *r;
};
int db_audit_walk_begin(struct db_audit_walk *w, struct db_audit_check *checks,
    size_t n, struct db_audit_report *r);
uint64_t db_audit_walk_wants(const struct db_audit_walk *w);
void db_audit_walk_root(struct db_audit_walk *w, uint64_t size,
    const uint8_t root[32]);
void db_audit_walk_end(struct db_audit_walk *w);

/* ---- events ------------------------------------------------------------- */

/* Appends one event (actor 0: the system; submission 0: none). */
int db_event_add(struct db *db, int64_t now, int64_t actor,
    const char *action, int64_t submission, const char *detail);
/* The id of the newest event (0: none). */
int64_t db_event_last_id(struct db *db);

struct db_event {
	int64_t id;
	int64_t at;
	int64_t actor;
	char *actor_name;         /* NULL for the system */
	char *action;
	int64_t submission;
	char *detail;
};

/* The events of one submission (0: all), oldest first. */
int db_event_list(struct db *db, int64_t submission, struct db_event **out,
    size_t *n_out);
/* At most limit events with an id above after, oldest first; only those
 * of one action unless action is NULL. */
int db_event_page(struct db *db, int64_t after, const char *action,
    size_t limit, struct db_event **out, size_t *n_out);
void db_event_list_free(struct db_event *v, size_t n);

/* The rejection of a submission: who, why, when; AL_ENOTFOUND. */
int db_rejection_get(struct db *db, int64_t id, char **reviewer_out,
    char **comment_out, int64_t *at_out);

#endif
