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
 *
 * Files: the engine is built by scan_build.c, in the parent, and a worker
 * scans with scan_worker.c, in the scan child; findings are scan_finding.h.
 * scan_engine_int.h, private to these files, lists the rest.
 */
#ifndef AIRLOCK_SCAN_ENGINE_H
#define AIRLOCK_SCAN_ENGINE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rule.h"
#include "scan_finding.h"

#define AL_ENGINE_VERSION "1"

struct scan_engine;
struct scan_worker;

/* What was read: one entry per file or member scanned whole (provenance
 * for the gate service). */
struct scan_item {
	char *path;               /* display path, as in findings */
	uint32_t mode;            /* st_mode bits when the container says; 0 */
	uint64_t size;            /* bytes read */
	char sha256[65];          /* "" when it was not read to its end */
	char *type;               /* MIME type (libmagic), or text/plain */
	/* The bytes of a text member read whole, for review: set by the
	 * worker when its type is text, at most AL_MEMBER_CONTENT_MAX, and the
	 * scan's kept bytes stay within AL_ARTIFACT_CONTENT_MAX; set by the
	 * parent only when the bytes the child sent hash to sha256. NULL:
	 * not kept (content_len 0 then). An empty member has a 1-byte
	 * allocation and content_len 0. */
	unsigned char *content;
	size_t content_len;
};

struct scan_item_list {
	struct scan_item *v;
	size_t n;
	size_t cap;
};

void scan_item_list_free(struct scan_item_list *l);

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
/* Atoms (docs/rules.md) are reported as findings too, for `rules test`
 * to prove their examples; the conditions are still decided. */
void scan_worker_report_atoms(struct scan_worker *w);
/*
 * What the second stage did with the last file scanned (for `make bench`:
 * the share of files that reach it): SCAN_STAGE_VIEW, rules ran over view
 * lines (normalised, alias or XOR); SCAN_STAGE_ALIAS, the file defines a
 * watched alias; SCAN_STAGE_XOR, it uses XOR and its literals were tried
 * with its keys; SCAN_STAGE_FLOW, its atoms held both halves of a
 * condition, which was then decided by reading the file; SCAN_STAGE_REST,
 * it had a key atom, and the other atoms were looked for in it. 0: none.
 */
#define SCAN_STAGE_VIEW 1u
#define SCAN_STAGE_ALIAS 2u
#define SCAN_STAGE_XOR 4u
#define SCAN_STAGE_FLOW 8u
#define SCAN_STAGE_REST 16u
unsigned scan_worker_stage(const struct scan_worker *w);
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

#endif
