/*
 * audit.h - the gate's checkpoints of its audit log (docs/audit.md): signed
 * notes (C2SP signed-note) whose text is a tlog-checkpoint of the Merkle
 * tree db/db_audit.c keeps, signed with the gate's Ed25519 key.
 *
 * The log's origin (the checkpoint's first line, and the key name of its
 * signature lines) is "airlock/" and the first 16 hex digits of the id of
 * the oldest key in the gate's keyring: it stays when the key rotates.
 *
 * Trust: a checkpoint read from a file or a server is hostile until its
 * signature verifies with a key of the keyring given; only then is its
 * body parsed for use.
 */
#ifndef AIRLOCK_AUDIT_H
#define AIRLOCK_AUDIT_H

#include <stdint.h>

#include "attest.h"
#include "db.h"
#include "note.h"

#define AUDIT_ORIGIN_PREFIX "airlock/"

/* Every key the gate signed with (gate/serve/keys.c), oldest first;
 * first_id: the oldest's id (may be NULL). */
int gate_keyring_load(const char *datadir, struct attest_keyring *kr,
    char first_id[65]);
/* The origin of the gate's log (malloc'd). */
int gate_audit_origin(const char *datadir, char **out);

/* A key file's largest size: 64 keys in PEM fit many times over. */
#define GATE_KEY_FILE_MAX (1u << 20)
/* Adds the key of a verifier key string (note.h: NAME+HEX8+BASE64, len
 * bytes, hostile) to kr; its name must be origin when that is not NULL. */
int gate_keyring_add_vkey(struct attest_keyring *kr, const char *vkey,
    size_t len, const char *origin);
/* Adds the keys of a file given to --key: PEM (attest_keyring_load), or
 * verifier key strings one a line, as GET /v1/audit/keys serves them
 * (blank lines and '#' comments skipped; each named origin, if given). */
int gate_keyring_load_file(struct attest_keyring *kr, const char *path,
    const char *origin);

/*
 * Signs a checkpoint of the log as it is now and stores it, with reason
 * ("release", "events", "time", "asked"). Unless force, nothing is made
 * when the newest checkpoint already has this size (*made 0). The key is
 * read from the data directory at each call (a rotation takes effect at
 * once).
 */
int gate_checkpoint_make(struct db *db, const char *datadir,
    const char *reason, int64_t now, int force, int *made);

/*
 * Verifies a signed checkpoint against a keyring (each key under the name
 * the checkpoint's origin gives, which must be origin when that is not
 * NULL), then parses its body into out (checkpoint_clear it). *key_index:
 * the keyring's key that signed. AL_EINVAL with the reason.
 */
int gate_checkpoint_open(const char *note, size_t len,
    const struct attest_keyring *kr, const char *origin,
    struct checkpoint *out, size_t *key_index);

/*
 * The entries about one submission (every event naming it), each proved
 * against the newest signed checkpoint: its leaf hash recomputed and its
 * inclusion under the signed root verified, the stored tree's root at
 * that size checked against the signed one first. An entry after the
 * checkpoint is PROOF_LATER; one that fails is PROOF_FAILED with why.
 * AL_EINVAL when there is no checkpoint, or it or the tree under it does
 * not verify (nothing then is proved); each entry's fields unescaped.
 */
enum { PROOF_OK, PROOF_LATER, PROOF_FAILED };
struct proved_entry {
	uint64_t idx;
	int status;               /* PROOF_* */
	char why[160];
	char *entry;              /* as stored; entry_len bytes */
	size_t entry_len;
};
struct proved_entries {
	int64_t ckpt_id;
	uint64_t ckpt_size;
	uint8_t root[32];         /* its signed root */
	char key_id[65];          /* the keyring's key that signed it */
	struct proved_entry *v;
	size_t n;
};
int gate_entries_about(struct db *db, const char *datadir, int64_t id,
    struct proved_entries *out);
void gate_entries_clear(struct proved_entries *p);
/* The value of an entry's line key (%XX undone) into out; -1 when there is
 * no such line or it does not fit in cap bytes. */
int gate_entry_field(const char *entry, size_t len, const char *key,
    char *out, size_t cap);
/*
 * 0 when entry (len bytes, hostile) is a well-formed version 1 entry
 * (docs/audit.md) of leaf idx: its 13 lines in order, each value spelled
 * as the gate spells it (decimals without sign or leading zero, text
 * escaped, sha256 empty or 64 lowercase hex digits), its index line idx;
 * *event (if not NULL) its event id. AL_EINVAL naming the line otherwise.
 */
int gate_entry_check(const char *entry, size_t len, uint64_t idx,
    uint64_t *event);

/*
 * What the log proves about a submission's release (docs/audit.md, "The
 * signer trusts the log"): from the entries about it that the newest
 * signed checkpoint covers, each entry's hash and inclusion checked
 * against that checkpoint's root, and that root against the stored tree:
 * the latest finished scan (its verdict and worst severity), the
 * approvals that count (distinct persons, not the one the agent was
 * launched for, of these bytes, of that scan or of one its entry says
 * they still stand for), and whether an override of an unscannable scan
 * is there; needed is the policy's figure for that scan.
 */
struct log_evidence {
	int64_t ckpt_id;          /* the checkpoint the entries are under */
	uint64_t ckpt_size;
	int64_t scan;             /* the latest finished scan, 0: none */
	char verdict[16], worst[16], ruleset[128];
	struct db_approval *approvals; /* reviewer, person, at, sha256, */
	size_t napprovals;        /* ruleset_digest (comment NULL) */
	int needed;
	int override;
	int uncovered;            /* decisive entries after the checkpoint */
	const char *voided;       /* what came after the counted scan and
	                           * voids it (a rescan, an alarm...), or NULL */
};

/* 0 with ev filled (ev->napprovals >= ev->needed, and the override when
 * unscannable, is the policy met); AL_EINVAL when the log itself does
 * not verify (the message says where). log_evidence_clear(ev) after. */
int gate_log_evidence(struct db *db, const char *datadir, int64_t id,
    const char *sha256, const struct db_policy *pol, struct log_evidence *ev);
int gate_log_evidence_met(const struct log_evidence *ev);
void log_evidence_clear(struct log_evidence *ev);

/*
 * Proof files (airlock audit proof, docs/audit.md): JSON with the format
 * version, a signed checkpoint and entries with their inclusion paths.
 * gate_proof_check parses one (hostile: a file anyone may hand an
 * auditor), verifies its checkpoint with the keyring (under the name its
 * origin gives) and each entry's inclusion under the signed root.
 * AL_EINVAL when it is not a proof or its checkpoint does not verify;
 * otherwise 0 with each entry's result (ok, or why not).
 */
/* Bytes as a JSON string of their base64, as proof files and GET
 * /v1/audit/entries carry entries and hashes; NULL when out of memory. */
json_t *gate_b64_json(const void *p, size_t n);

#define PROOF_FORMAT 1
#define PROOF_MAX_BYTES (256u << 20)
#define PROOF_MAX_ENTRIES 1000000u

struct proof_entry {
	uint64_t index;
	char *entry;              /* the entry, NUL-terminated (ok only) */
	size_t len;
	int ok;
	char why[256];
};
struct proof_check {
	struct checkpoint c;      /* the signed checkpoint */
	size_t key_index;         /* the keyring's key that signed it */
	struct proof_entry *v;
	size_t n;
};
int gate_proof_check(const char *text, size_t len,
    const struct attest_keyring *kr, struct proof_check *out);
void gate_proof_check_clear(struct proof_check *p);

#endif
