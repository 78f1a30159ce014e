/*
 * vocab.h - the words every part of airlock shares: what an artifact is
 * (kind), where a submission stands (state), what its scan concluded
 * (verdict) and how bad a finding is (severity). Each is an enum with its
 * one table of names, here; code compares the enums, never the spellings.
 * The names are the API's and the database's (docs/api.md, the schema), so
 * they never change.
 *
 * Trust: parse functions take names from anywhere (requests, rule files,
 * the command line, database rows) and answer -1 for anything unknown.
 */
#ifndef AIRLOCK_VOCAB_H
#define AIRLOCK_VOCAB_H

/* What an artifact is, and so how it is read. */
enum al_kind {
	AL_KIND_MEMBER = 0, /* a file in a tree: archive or plain file */
	AL_KIND_AUTO,       /* a whole artifact: any kind, from content */
	AL_KIND_FILE,
	AL_KIND_ARCHIVE,
	AL_KIND_PATCH,
	AL_KIND_MBOX,
	AL_KIND_BUNDLE,
	AL_KIND_DIRECTORY,  /* only for the caller: never sent to a child */
	AL_KIND_MAX,
};

/* "file", "archive", ... ("?" out of range); parse takes AUTO to
 * DIRECTORY, never MEMBER (-1 for an unknown name). */
const char *al_kind_name(enum al_kind k);
int al_kind_parse(const char *name);
/* 1 for the kinds a submitter may ask for: AUTO to BUNDLE. */
int al_kind_submittable(int k);

/* Where a submission stands; the life cycle is docs/api.md's. */
enum al_state {
	AL_STATE_RECEIVED = 0,
	AL_STATE_SCANNING,
	AL_STATE_HELD,
	AL_STATE_APPROVED,
	AL_STATE_REJECTED,
	AL_STATE_RELEASED,
	AL_STATE_EXPIRED,
	AL_STATE_MAX,
};

const char *al_state_name(enum al_state s);
int al_state_parse(const char *name);

/* What a finished scan concluded. */
enum al_verdict {
	AL_VERDICT_NONE = -1,  /* not scanned (yet) */
	AL_VERDICT_CLEAN = 0,
	AL_VERDICT_FLAGGED,    /* a finding at medium or above */
	AL_VERDICT_UNSCANNABLE,/* something could not be read faithfully */
	AL_VERDICT_MAX,
};

/* NULL for AL_VERDICT_NONE (and out of range). */
const char *al_verdict_name(enum al_verdict v);
int al_verdict_parse(const char *name);

/* What a reviewer must do about a finding (DESIGN.md, "Severity"). */
enum al_severity {
	AL_SEV_NONE = -1,      /* no finding: the worst of nothing */
	AL_SEV_INFO = 0,
	AL_SEV_LOW,
	AL_SEV_MEDIUM,
	AL_SEV_HIGH,
	AL_SEV_CRITICAL,
	AL_SEV_MAX,
};

/* "info" .. "critical"; NULL for AL_SEV_NONE (and out of range). */
const char *al_severity_name(enum al_severity s);
int al_severity_parse(const char *name);

/*
 * Whether the bytes of an item (a member of an archive, a file of a
 * bundle) were kept for review, and if not why. NONE: the question does
 * not arise (a plain file, a patch, a mailbox: the artifact is shown
 * whole), or the item is older than the question.
 */
enum al_content {
	AL_CONTENT_NONE = 0,
	AL_CONTENT_KEPT,          /* in the store, under the item's sha256 */
	AL_CONTENT_BINARY,        /* not text: described, never shown */
	AL_CONTENT_PARTIAL,       /* not read to its end: no sha256 */
	AL_CONTENT_MEMBER_CAP,    /* larger than AL_MEMBER_CONTENT_MAX */
	AL_CONTENT_ARTIFACT_CAP,  /* past AL_ARTIFACT_CONTENT_MAX in all */
	AL_CONTENT_MAX,
};

/* "kept", "binary", ...; NULL for NONE (and out of range). */
const char *al_content_name(enum al_content c);
int al_content_parse(const char *name);

#endif
