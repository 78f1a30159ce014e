/*
 * scan_engine.h - the rule engine: one Hyperscan pass per file, PCRE2
 * confirmation in a window around each hit, findings with line, column and
 * redacted excerpts.
 *
 * Trust: the bytes scanned are hostile. The engine reads them through a
 * bounded window (memory does not grow with file size), bounds PCRE2 work per
 * confirmation, caps findings per file, and turns every failure into an
 * `unscannable` finding for that file: it never returns "clean" for content
 * it did not fully read.
 *
 * Threads: a scan_engine is read-only once built and may be shared; each
 * thread scans with its own scan_worker.
 */
#ifndef AIRLOCK_SCAN_ENGINE_H
#define AIRLOCK_SCAN_ENGINE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rule.h"

#define AL_ENGINE_VERSION "1"

struct scan_engine;
struct scan_worker;

struct finding {
	const struct rule *rule;  /* borrowed from the rule set or built-ins */
	enum al_severity severity; /* the rule's, or raised by context */
	char *path;               /* display path */
	uint64_t line;            /* 1-based; 0 = the whole file */
	uint64_t column;          /* 1-based, in code points; 0 with line 0 */
	char *excerpt;            /* redacted line excerpt, or a message */
	char fingerprint[33];     /* 128 bits of hex, stable across line moves */
};

struct finding_list {
	struct finding *v;
	size_t n;
	size_t cap;
};

/* What was read: one entry per file or member scanned whole (provenance
 * for the gate service). */
struct scan_item {
	char *path;               /* display path, as in findings */
	uint32_t mode;            /* st_mode bits when the container says; 0 */
	uint64_t size;            /* bytes read */
	char sha256[65];          /* "" when it was not read to its end */
	char *type;               /* MIME type (libmagic), or text/plain */
};

struct scan_item_list {
	struct scan_item *v;
	size_t n;
	size_t cap;
};

void scan_item_list_free(struct scan_item_list *l);

/* Built-in findings the engine and the walker report themselves. */
#define AL_RULE_UNSCANNABLE "airlock.unscannable"
#define AL_RULE_SYMLINK "airlock.symlink"
#define AL_RULE_SYMLINK_ESCAPE "airlock.symlink-escape"
#define AL_RULE_SPECIAL "airlock.special-file"
#define AL_RULE_ENCODED_TEXT "airlock.encoded-text"
#define AL_RULE_ARCHIVE_PATH "airlock.archive-path"
#define AL_RULE_ARCHIVE_HARDLINK "airlock.archive-hardlink"
#define AL_RULE_ARCHIVE_MODE "airlock.archive-mode"
#define AL_RULE_ARCHIVE_DUPLICATE "airlock.archive-duplicate"
#define AL_RULE_EXECUTABLE "airlock.executable"
#define AL_RULE_TYPE_MISMATCH "airlock.type-mismatch"
#define AL_RULE_PATCH_PATH "airlock.patch-path"
#define AL_RULE_SUBMODULE "airlock.submodule"
#define AL_RULE_EXEC_MODE "airlock.executable-mode"
#define AL_RULE_BUNDLE_INCOMPLETE "airlock.bundle-incomplete"

const struct rule *scan_builtin_rule(const char *id);
/* The built-in rules, for SARIF's rule table. */
const struct rule *const *scan_builtin_rules(size_t *n_out);

/*
 * Compiles the rule set into one Hyperscan stream database. With cache_dir
 * set, the serialized database is read from and written to
 * cache_dir/hs-<key>.db, the key covering the rule-set digest, the engine
 * and Hyperscan versions and the CPU features; a damaged cache file is
 * ignored and rewritten.
 */
int scan_engine_new(struct scan_engine **out, const struct rule_set *rs,
    const char *cache_dir);
void scan_engine_free(struct scan_engine *e);
/* 1 if the database came from the cache (for tests and --verbose). */
int scan_engine_from_cache(const struct scan_engine *e);
const struct rule_set *scan_engine_rules(const struct scan_engine *e);

int scan_worker_new(struct scan_worker **out, const struct scan_engine *e);
/* Loads libmagic for this worker (file access: call before any sandbox);
 * files are then typed, and executables and disguised files reported. */
int scan_worker_enable_types(struct scan_worker *w);
void scan_worker_free(struct scan_worker *w);
/* From now on, each file scanned is appended to items (NULL: stop), read to
 * its end and hashed even when binary. */
int scan_worker_collect_items(struct scan_worker *w,
    struct scan_item_list *items);
/* The mode recorded for the next item: an archive entry's, a git tree's. */
void scan_worker_item_mode(struct scan_worker *w, uint32_t mode);

/*
 * Scans one regular file's content read from fd (streamed) or from memory.
 * path is what findings show; relpath is what path globs are matched
 * against (relative to the scan root). Findings are appended to out; the
 * bytes read are added to *bytes. With digest (AL_SHA256_HEX bytes) set,
 * the file's SHA-256 is written there in hex, or "" when it was not read to
 * its end. Returns 0 even when the content proved unscannable (that is a
 * finding); a negative code only when memory for the findings ran out.
 */
int scan_fd(struct scan_worker *w, int fd, const char *path,
    const char *relpath, struct finding_list *out, uint64_t *bytes,
    char *digest);
/* Reads up to n bytes into dst: >0 bytes, 0 at the end, <0 on error. */
typedef ssize_t (*scan_read_fn)(void *ctx, char *dst, size_t n);

/* Scans content read through a callback (an archive member). */
int scan_stream(struct scan_worker *w, scan_read_fn cb, void *ctx,
    const char *path, const char *relpath, struct finding_list *out,
    uint64_t *bytes);
int scan_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, const char *relpath, struct finding_list *out);

/* Appends a built-in finding about a whole file (line 0). */
int finding_add_builtin(struct finding_list *l, const char *rule_id,
    const char *path, const char *message);
/* The same with the message formatted (cut at AL_MAX_PATH + 511 bytes). */
int finding_add_builtinf(struct finding_list *l, const char *rule_id,
    const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int finding_add_builtinv(struct finding_list *l, const char *rule_id,
    const char *path, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

void finding_list_free(struct finding_list *l);
/* Sorts by path, line, column, rule id. */
void finding_list_sort(struct finding_list *l);
/* Moves all findings of src to the end of dst. */
int finding_list_move(struct finding_list *dst, struct finding_list *src);

#endif
