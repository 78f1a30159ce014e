/*
 * scan_engine.c - one Hyperscan pass per file, PCRE2 confirmation around
 * each hit, findings with positions, redacted excerpts and fingerprints.
 *
 * Trust: the content is hostile; this runs wherever artifact bytes are read.
 *
 * How a file is read. Bytes arrive in chunks of AL_SCAN_CHUNK into a buffer
 * that also keeps the last KEEP (2 * AL_SCAN_WINDOW) bytes of the previous
 * chunk. Every chunk goes through the one Hyperscan stream database (all
 * content patterns and all keywords together). Hyperscan reports only where a
 * match ends, so each hit is confirmed by the rule's own PCRE2 regex, run on
 * a window of at most AL_SCAN_WINDOW bytes each side of that end; PCRE2's
 * match gives the start, the captures and so the secret. A hit too close to
 * the end of the buffer to have its window is held until the next chunk
 * arrives. Memory is thus O(chunk + window), whatever the file size.
 *
 * Line and column. A cursor (offset, line, column) moves with the hits, so
 * each byte is counted about once; before the buffer slides, the cursor is
 * moved to the new start so that what leaves the buffer is already counted.
 *
 * Dedupe. A rule's confirmed match covers every later hit of the same rule
 * that ends inside it (Hyperscan reports every end of `[a-z]{20,}`); and a
 * rule reports at most once per line.
 *
 * Redaction. A secret rule's secret span is remembered; when the file is
 * done, every excerpt of the file is rewritten with the secret spans on it
 * masked, so a token is not echoed by another rule's finding either.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hs.h>
#include <openssl/evp.h>
#include <pcre2.h>

#include "err.h"
#include "al_limits.h"
#include "scan_check.h"
#include "scan_decode.h"
#include "scan_engine.h"
#include "scan_type.h"
#include "util.h"

#define KEEP (2 * AL_SCAN_WINDOW)

/* ---- built-in rules ---------------------------------------------------- */

static struct rule builtin_rules[] = {
	{
		.id = AL_RULE_UNSCANNABLE,
		.title = "Content could not be scanned",
		.category = "unscannable",
		.severity = AL_SEV_HIGH,
		.description = "airlock could not read all of this content (an "
		    "error, a limit, an encrypted or malformed part), so it cannot "
		    "say the content is safe. It stays in quarantine unless a "
		    "reviewer inspects it by other means and overrides.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SYMLINK,
		.title = "Symbolic link",
		.category = "archive-hazard",
		.severity = AL_SEV_LOW,
		.description = "A symbolic link inside the artifact. It was not "
		    "followed. Check that its target is the file you expect.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SYMLINK_ESCAPE,
		.title = "Symbolic link pointing outside the tree",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A symbolic link whose target is absolute or climbs "
		    "out of the artifact with '..'. Unpacked, it can make later "
		    "writes or reads reach files outside the project (ssh keys, "
		    "shell rc files).",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ENCODED_TEXT,
		.title = "Long encoded text",
		.category = "obfuscation",
		.severity = AL_SEV_LOW,
		.description = "A long base64 or hex string that decodes to "
		    "readable text. Text is encoded like this to keep it from "
		    "readers and scanners; airlock decoded and scanned it, and "
		    "reports what it found inside separately. Check what the "
		    "text is and why it is encoded.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ARCHIVE_PATH,
		.title = "Archive entry name that escapes or deceives",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "An archive entry whose name is absolute, climbs "
		    "out with '..', holds control characters, or is a case "
		    "variant of .git. Unpacked, it writes outside the target "
		    "directory (zip-slip) or into git's own configuration.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ARCHIVE_HARDLINK,
		.title = "Hard link in an archive",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A hard link entry: unpacked, it can make a later "
		    "entry overwrite a file the link points at, outside the "
		    "files the reviewer saw. Source archives have no need for "
		    "them.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ARCHIVE_MODE,
		.title = "Setuid, setgid or world-writable archive entry",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "An entry whose mode carries setuid or setgid, or "
		    "lets anyone write it. Unpacked as root, a setuid binary is "
		    "a privilege escalation waiting to be run.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ARCHIVE_DUPLICATE,
		.title = "The same name twice in an archive",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "Two entries with the same name, or names that "
		    "differ only in case. Which copy ends up on disk depends on "
		    "the tool and the file system, so the reviewer may have read "
		    "the other one.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_EXECUTABLE,
		.title = "Executable or compiled code",
		.category = "binary",
		.severity = AL_SEV_LOW,
		.description = "Machine code or bytecode (ELF, PE, Mach-O, "
		    "WebAssembly, Python bytecode, Java classes) cannot be "
		    "reviewed by reading it. Vendored packages carry many, so "
		    "this is context (low); a binary under a text or image name "
		    "is reported at high. Ask for the source and a reproducible "
		    "build, or keep it out.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_TYPE_MISMATCH,
		.title = "File disguised by its name",
		.category = "binary",
		.severity = AL_SEV_HIGH,
		.description = "The name promises text, a document or an image "
		    "(README.txt, logo.png), but the content is an executable or "
		    "an archive. A disguised file is meant to be overlooked.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_PATCH_PATH,
		.title = "Patch that writes where it should not",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A patch names a file inside .git (in any "
		    "spelling: .GIT, .git., git~1, .git with characters HFS+ "
		    "ignores), an absolute path, a path climbing out with '..', "
		    "or one with control characters. git apply refuses most of "
		    "these; a patch that tries is an attempt to reach hooks or "
		    "configuration, not a code change.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SUBMODULE,
		.title = "Submodule added or moved",
		.category = "dependency",
		.severity = AL_SEV_HIGH,
		.description = "A gitlink (mode 160000) points the repository at "
		    "a commit of another repository. The code it brings in is "
		    "not part of this artifact and was not scanned or reviewed.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_EXEC_MODE,
		.title = "File made executable",
		.category = "binary",
		.severity = AL_SEV_LOW,
		.description = "A change sets the executable bit (mode 100755). "
		    "Scripts need it; a data or document file does not. Context "
		    "for the reviewer.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_BUNDLE_INCOMPLETE,
		.title = "Git bundle that depends on history it does not carry",
		.category = "context",
		.severity = AL_SEV_LOW,
		.description = "The bundle lists prerequisite commits: it was "
		    "made from a range and applies on top of history it does "
		    "not carry. airlock scanned every object the bundle "
		    "carries and the changes its commits make; the history "
		    "below was not seen. Check that the prerequisites are "
		    "commits you trust. (Objects the bundle needs but lacks "
		    "make it unscannable instead.)",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SPECIAL,
		.title = "Device, FIFO or socket file",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A special file has no place in source or build "
		    "output; a device node can give raw access to hardware or "
		    "memory when unpacked with privileges.",
		.builtin = 1,
	},
};

#define NBUILTIN (sizeof(builtin_rules) / sizeof(builtin_rules[0]))

const struct rule *
scan_builtin_rule(const char *id)
{
	size_t i;

	for (i = 0; i < NBUILTIN; i++)
		if (strcmp(builtin_rules[i].id, id) == 0)
			return &builtin_rules[i];
	return NULL;
}

const struct rule *const *
scan_builtin_rules(size_t *n_out)
{
	static const struct rule *ptrs[NBUILTIN];
	size_t i;

	for (i = 0; i < NBUILTIN; i++)
		ptrs[i] = &builtin_rules[i];
	*n_out = NBUILTIN;
	return ptrs;
}

/* ---- findings ---------------------------------------------------------- */

static int
finding_push(struct finding_list *l, struct finding **out)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		struct finding *nv = realloc(l->v, ncap * sizeof(*nv));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		l->v = nv;
		l->cap = ncap;
	}
	*out = &l->v[l->n++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

static void
fingerprint_of(char out[33], const char *rule_id, const char *relpath,
    const char *content_hash, size_t occurrence)
{
	struct dynbuf b;
	char hex[AL_SHA256_HEX];

	dynbuf_init(&b, 3 * AL_MAX_PATH);
	(void)dynbuf_addf(&b, "%s%c%s%c%s%c%zu", rule_id, 0, relpath, 0,
	    content_hash, 0, occurrence);
	al_sha256_hex(hex, dynbuf_str(&b), b.len);
	dynbuf_free(&b);
	memcpy(out, hex, 32);
	out[32] = '\0';
}

int
finding_add_builtin(struct finding_list *l, const char *rule_id,
    const char *path, const char *message)
{
	const struct rule *r = scan_builtin_rule(rule_id);
	struct finding *f;
	int rc;

	if (r == NULL)
		return al_err_set(AL_EINVAL, "no built-in rule %s", rule_id);
	if ((rc = finding_push(l, &f)) < 0)
		return rc;
	f->rule = r;
	f->severity = r->severity;
	f->path = strdup(path);
	f->excerpt = strdup(message);
	if (f->path == NULL || f->excerpt == NULL) {
		free(f->path);
		free(f->excerpt);
		l->n--;
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	fingerprint_of(f->fingerprint, rule_id, path, "", 0);
	return 0;
}

int
finding_add_builtinv(struct finding_list *l, const char *rule_id,
    const char *path, const char *fmt, va_list ap)
{
	char msg[AL_MAX_PATH + 512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return finding_add_builtin(l, rule_id, path, msg);
}

int
finding_add_builtinf(struct finding_list *l, const char *rule_id,
    const char *path, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = finding_add_builtinv(l, rule_id, path, fmt, ap);
	va_end(ap);
	return rc;
}

void
finding_list_free(struct finding_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].excerpt);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int
cmp_finding(const void *a, const void *b)
{
	const struct finding *fa = a, *fb = b;
	int c = strcmp(fa->path, fb->path);

	if (c != 0)
		return c;
	if (fa->line != fb->line)
		return fa->line < fb->line ? -1 : 1;
	if (fa->column != fb->column)
		return fa->column < fb->column ? -1 : 1;
	return strcmp(fa->rule->id, fb->rule->id);
}

void
finding_list_sort(struct finding_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_finding);
}

int
finding_list_move(struct finding_list *dst, struct finding_list *src)
{
	size_t need;

	if (src->n == 0)
		return 0;
	if (al_size_add(&need, dst->n, src->n) < 0)
		return AL_ELIMIT;
	if (need > dst->cap) {
		struct finding *nv = realloc(dst->v, need * sizeof(*nv));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		dst->v = nv;
		dst->cap = need;
	}
	memcpy(dst->v + dst->n, src->v, src->n * sizeof(*src->v));
	dst->n = need;
	free(src->v);
	src->v = NULL;
	src->n = src->cap = 0;
	return 0;
}

/* ---- the engine -------------------------------------------------------- */

/* What a Hyperscan expression stands for. */
enum {
	EXPR_PATTERN = 0, /* the rule's pattern (prefilter mode) */
	EXPR_KEYWORD,     /* one of the rule's keywords: confirm on its line */
	EXPR_FACTOR,      /* a literal every match contains: confirm around it */
};

struct scan_engine {
	const struct rule_set *rs;
	hs_database_t *db;        /* NULL when no rule has content patterns */
	unsigned nexpr;
	unsigned *expr_rule;      /* expression id -> rule index */
	unsigned char *expr_kw;   /* expression id -> EXPR_* */
	size_t *scoped;           /* rules with paths or exclude_paths */
	size_t nscoped;
	/* The distinct globs of all rules: many rules share them (the same
	 * documentation exclusions), so each is matched once per file. */
	const char **globs;
	size_t nglobs;
	unsigned *gidx;           /* per scoped rule: its paths, then excludes */
	size_t *g_at;             /* per scoped rule: first index into gidx */
	size_t *g_npaths, *g_nexcl;
	unsigned max_groups;      /* most capture groups of any rule */
	int from_cache;
};

const struct rule_set *
scan_engine_rules(const struct scan_engine *e)
{
	return e->rs;
}

int
scan_engine_from_cache(const struct scan_engine *e)
{
	return e->from_cache;
}

void
scan_engine_free(struct scan_engine *e)
{
	if (e == NULL)
		return;

	hs_free_database(e->db);
	free(e->expr_rule);
	free(e->expr_kw);
	free(e->scoped);
	free(e->globs);
	free(e->gidx);
	free(e->g_at);
	free(e->g_npaths);
	free(e->g_nexcl);
	free(e);
}

/* Turns a literal keyword into a Hyperscan expression: every byte escaped. */
static char *
keyword_expr(const char *kw)
{
	struct dynbuf b;
	const unsigned char *p;

	dynbuf_init(&b, 4 * strlen(kw) + 1);
	for (p = (const unsigned char *)kw; *p; p++)
		if (dynbuf_addf(&b, "\\x%02x", *p) < 0) {
			dynbuf_free(&b);
			return NULL;
		}
	return dynbuf_take(&b, NULL);
}

/*
 * The cache key covers exactly what was compiled: every expression with its
 * flags, in order (so ids map to the same rules), the Hyperscan version and
 * the CPU features the database was built for.
 */
static void
cache_key(char out[AL_SHA256_HEX], const char *const *exprs,
    const unsigned *flags, size_t n)
{
	hs_platform_info_t plat;
	struct dynbuf b;
	size_t i;

	memset(&plat, 0, sizeof(plat));
	(void)hs_populate_platform(&plat);
	dynbuf_init(&b, (size_t)256 << 20);
	(void)dynbuf_addf(&b, "airlock-hs%c%s%c%s%c", 0, AL_ENGINE_VERSION, 0,
	    hs_version(), 0);
	(void)dynbuf_add(&b, &plat, sizeof(plat));
	for (i = 0; i < n; i++)
		(void)dynbuf_addf(&b, "%u%c%s%c", flags[i], 0, exprs[i], 0);
	al_sha256_hex(out, dynbuf_str(&b), b.len);
	dynbuf_free(&b);
}

#define CACHE_MAGIC "ALHSDB01"
#define CACHE_MAX ((size_t)512 << 20)

static int
cache_path(struct dynbuf *p, const char *dir, const char *key)
{
	dynbuf_init(p, AL_MAX_PATH);
	return dynbuf_addf(p, "%s/hs-%s.db", dir, key);
}

/* Loads a cached database; any problem just means "not cached". */
static hs_database_t *
cache_load(const char *dir, const char *key)
{
	struct dynbuf p;
	hs_database_t *db = NULL;
	char *data = NULL, hex[AL_SHA256_HEX], want[AL_SHA256_HEX];
	size_t len;

	if (cache_path(&p, dir, key) < 0)
		goto out;
	if (al_read_file(dynbuf_str(&p), CACHE_MAX, &data, &len) < 0)
		goto out;
	if (len < 8 + 64 || memcmp(data, CACHE_MAGIC, 8) != 0)
		goto out;
	memcpy(want, data + 8, 64);
	want[64] = '\0';
	al_sha256_hex(hex, data + 72, len - 72);
	if (strcmp(hex, want) != 0)
		goto out;
	if (hs_deserialize_database(data + 72, len - 72, &db) != HS_SUCCESS)
		db = NULL;
out:
	free(data);
	dynbuf_free(&p);
	return db;
}

static void
cache_store(const char *dir, const char *key, const hs_database_t *db)
{
	struct dynbuf p, tmp;
	char *bytes = NULL, hex[AL_SHA256_HEX];
	size_t len = 0;
	int fd = -1, ok = 0;

	dynbuf_init(&tmp, AL_MAX_PATH);
	if (cache_path(&p, dir, key) < 0)
		goto out;
	if (hs_serialize_database(db, &bytes, &len) != HS_SUCCESS)
		goto out;
	(void)mkdir(dir, 0700);
	if (dynbuf_addf(&tmp, "%s/.hs-XXXXXX", dir) < 0)
		goto out;
	fd = mkstemp(tmp.data);
	if (fd < 0)
		goto out;
	al_sha256_hex(hex, bytes, len);
	ok = write(fd, CACHE_MAGIC, 8) == 8 && write(fd, hex, 64) == 64 &&
	    write(fd, bytes, len) == (ssize_t)len;
	ok = close(fd) == 0 && ok;
	fd = -1;
	ok = ok && rename(tmp.data, dynbuf_str(&p)) == 0;
	if (!ok)
		(void)unlink(tmp.data);
out:
	free(bytes);
	dynbuf_free(&p);
	dynbuf_free(&tmp);
}

/* A rule's factors, when they are good enough to stand for its pattern. */
struct rule_factors {
	char **v;
	size_t n;
};

static void
factors_free(struct rule_factors *f, size_t n)
{
	size_t i, j;

	for (i = 0; f != NULL && i < n; i++) {
		for (j = 0; j < f[i].n; j++)
			free(f[i].v[j]);
		free(f[i].v);
	}
	free(f);
}

static int
engine_compile(struct scan_engine *e, const char *cache_dir)
{
	const struct rule_set *rs = e->rs;
	const char **exprs = NULL;
	char **owned = NULL;
	unsigned *flags = NULL, *ids = NULL;
	hs_compile_error_t *cerr = NULL;
	struct rule_factors *fac;
	char key[AL_SHA256_HEX];
	size_t i, j, n = 0, cap = 0;
	int rc = 0;

	fac = calloc(rs->nrules ? rs->nrules : 1, sizeof(*fac));
	if (fac == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];
		size_t minlen = 0;

		if (r->pattern == NULL)
			continue;
		if (r->keywords.n > 0) {
			cap += r->keywords.n;
			continue;
		}
		if (rule_pattern_factors(r->pattern, strlen(r->pattern), &fac[i].v,
		    &fac[i].n, &minlen) < 0) {
			factors_free(fac, rs->nrules);
			return al_err_set(AL_ENOMEM, "out of memory");
		}
		if (fac[i].n > 0 && minlen < AL_MIN_FACTOR) {
			for (j = 0; j < fac[i].n; j++)
				free(fac[i].v[j]);
			free(fac[i].v);
			fac[i].v = NULL;
			fac[i].n = 0;
		}
		cap += fac[i].n ? fac[i].n : 1;
	}
	if (cap == 0) {
		factors_free(fac, rs->nrules);
		return 0;
	}
	exprs = calloc(cap, sizeof(*exprs));
	owned = calloc(cap, sizeof(*owned));
	flags = calloc(cap, sizeof(*flags));
	ids = calloc(cap, sizeof(*ids));
	e->expr_rule = calloc(cap, sizeof(*e->expr_rule));
	e->expr_kw = calloc(cap, sizeof(*e->expr_kw));
	if (!exprs || !owned || !flags || !ids || !e->expr_rule || !e->expr_kw) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];
		const struct rule_strv lits = r->keywords.n ? r->keywords :
		    (struct rule_strv){fac[i].v, fac[i].n};

		if (r->pattern == NULL)
			continue;
		if (lits.n == 0) {
			/* No good factor: the pattern itself, approximated by
			 * Hyperscan's prefilter mode (PCRE2 confirms). */
			exprs[n] = r->pattern;
			flags[n] = HS_FLAG_MULTILINE | HS_FLAG_PREFILTER;
			e->expr_rule[n] = (unsigned)i;
			ids[n] = (unsigned)n;
			n++;
			continue;
		}
		for (j = 0; j < lits.n; j++) {
			owned[n] = keyword_expr(lits.v[j]);
			if (owned[n] == NULL) {
				rc = al_err_set(AL_ENOMEM, "out of memory");
				goto out;
			}
			exprs[n] = owned[n];
			flags[n] = HS_FLAG_CASELESS;
			e->expr_rule[n] = (unsigned)i;
			e->expr_kw[n] = r->keywords.n ? EXPR_KEYWORD : EXPR_FACTOR;
			ids[n] = (unsigned)n;
			n++;
		}
	}
	e->nexpr = (unsigned)n;
	cache_key(key, exprs, flags, n);
	if (cache_dir != NULL && (e->db = cache_load(cache_dir, key)) != NULL) {
		e->from_cache = 1;
		goto out;
	}
	if (hs_compile_multi(exprs, flags, ids, (unsigned)n, HS_MODE_STREAM,
	    NULL, &e->db, &cerr) != HS_SUCCESS) {
		const struct rule *bad = cerr && cerr->expression >= 0 &&
		    (size_t)cerr->expression < n ?
		    rs->rules[e->expr_rule[cerr->expression]] : NULL;

		rc = al_err_set(AL_EENGINE, "%s%s%sHyperscan: %s",
		    bad ? "rule " : "", bad ? bad->id : "", bad ? ": " : "",
		    cerr && cerr->message ? cerr->message : "compile failed");
		hs_free_compile_error(cerr);
		e->db = NULL;
		goto out;
	}
	if (cache_dir != NULL)
		cache_store(cache_dir, key, e->db);
out:
	if (owned != NULL)
		for (i = 0; i < n; i++)
			free(owned[i]);
	free(owned);
	free(exprs);
	free(flags);
	free(ids);
	factors_free(fac, rs->nrules);
	return rc;
}

static unsigned
glob_index(struct scan_engine *e, const char *g)
{
	size_t i;

	for (i = 0; i < e->nglobs; i++)
		if (strcmp(e->globs[i], g) == 0)
			return (unsigned)i;
	e->globs[e->nglobs] = g;
	return (unsigned)e->nglobs++;
}

/* Numbers the distinct globs and lists each scoped rule's by index. */
static int
engine_globs(struct scan_engine *e)
{
	const struct rule_set *rs = e->rs;
	size_t total = 0, i, j, k = 0;

	for (i = 0; i < e->nscoped; i++) {
		const struct rule *r = rs->rules[e->scoped[i]];

		total += r->paths.n + r->exclude_paths.n;
	}
	e->globs = calloc(total ? total : 1, sizeof(*e->globs));
	e->gidx = calloc(total ? total : 1, sizeof(*e->gidx));
	e->g_at = calloc(e->nscoped ? e->nscoped : 1, sizeof(*e->g_at));
	e->g_npaths = calloc(e->nscoped ? e->nscoped : 1, sizeof(*e->g_npaths));
	e->g_nexcl = calloc(e->nscoped ? e->nscoped : 1, sizeof(*e->g_nexcl));
	if (!e->globs || !e->gidx || !e->g_at || !e->g_npaths || !e->g_nexcl)
		return al_err_set(AL_ENOMEM, "out of memory");
	for (i = 0; i < e->nscoped; i++) {
		const struct rule *r = rs->rules[e->scoped[i]];

		e->g_at[i] = k;
		e->g_npaths[i] = r->paths.n;
		e->g_nexcl[i] = r->exclude_paths.n;
		for (j = 0; j < r->paths.n; j++)
			e->gidx[k++] = glob_index(e, r->paths.v[j]);
		for (j = 0; j < r->exclude_paths.n; j++)
			e->gidx[k++] = glob_index(e, r->exclude_paths.v[j]);
	}
	return 0;
}

int
scan_engine_new(struct scan_engine **out, const struct rule_set *rs,
    const char *cache_dir)
{
	struct scan_engine *e;
	size_t i;
	int rc;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	e->rs = rs;
	e->scoped = calloc(rs->nrules ? rs->nrules : 1, sizeof(*e->scoped));
	if (e->scoped == NULL) {
		scan_engine_free(e);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	for (i = 0; i < rs->nrules; i++) {
		const struct rule *r = rs->rules[i];

		if (r->paths.n || r->exclude_paths.n)
			e->scoped[e->nscoped++] = i;
		if (r->capture_count > e->max_groups)
			e->max_groups = r->capture_count;
	}
	if ((rc = engine_globs(e)) < 0 ||
	    (rc = engine_compile(e, cache_dir)) < 0) {
		scan_engine_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

/* ---- per-thread worker --------------------------------------------------- */

struct hit {
	unsigned id;
	unsigned long long end;
};

struct span {
	uint64_t s, e;
};

/* What the engine keeps about a finding until its file is done. */
struct fmeta {
	uint64_t ex_abs;          /* offset of the excerpt's first byte */
	int ex_head, ex_tail;     /* excerpt cut at its start / end */
	int decoded;              /* excerpt comes from a decoded blob */
	char hash[AL_SHA256_HEX]; /* sha256 of the matched bytes */
};

struct scan_worker {
	const struct scan_engine *e;
	hs_scratch_t *scratch;
	pcre2_match_data *md;
	pcre2_match_data *md_allow;
	pcre2_match_context *mctx;      /* rule patterns: offset limit set */
	pcre2_match_context *mctx_allow; /* allow regexes: no offset limit */
	pcre2_jit_stack *jit;
	char *buf;                /* KEEP + AL_SCAN_CHUNK bytes */
	uint64_t *last_end;       /* per rule: end of the last covered match */
	uint64_t *last_line;      /* per rule: line of the last finding */
	uint64_t *done;           /* per rule: matches starting before are found */
	unsigned char *active;    /* per rule: applies to this file */
	signed char *glob_memo;   /* per distinct glob: -1 unknown, 0, 1 */
	struct hit *pending;
	size_t npending;
	struct span *spans;
	size_t nspans, spans_cap;
	struct fmeta *meta;
	size_t meta_cap;
	unsigned depth;           /* 0, or how many decodings deep */
	struct scan_typer *typer; /* libmagic, when enabled */
	struct scan_worker *child; /* scans decoded blobs, made on demand */
	unsigned char *dec;       /* decoded bytes of one blob piece */

	/* The file being scanned. */
	const char *path;
	const char *relpath;
	struct finding_list *out;
	size_t first;             /* index in out of this file's first finding */
	uint64_t buf_off;         /* file offset of buf[0] */
	size_t buf_len;
	int bol_at_start;         /* buf[0] starts a line */
	unsigned char prev_byte;  /* the byte before buf[0], 0 at file start */
	uint64_t base_line, base_col; /* position of buf[0] */
	uint64_t cur_abs, cur_line, cur_col;
	int eof;
	int stop;                 /* cap reached or an error: read no further */
	int nomem;
	uint64_t blob_pos;        /* where the base64/hex search goes on */
	uint64_t xesc_pos;        /* where the \\xHH search goes on */
	uint64_t decoded_total;   /* decoded text scanned again, this file */
	struct scan_item_list *items; /* when collecting */
	EVP_MD_CTX *imd;          /* hashes each item */
	uint32_t item_mode;
	const char *mime;         /* libmagic's type of this file, or NULL */
};

void
scan_worker_free(struct scan_worker *w)
{
	if (w == NULL)
		return;
	hs_free_scratch(w->scratch);
	pcre2_match_data_free(w->md);
	pcre2_match_data_free(w->md_allow);
	pcre2_match_context_free(w->mctx);
	pcre2_match_context_free(w->mctx_allow);
	pcre2_jit_stack_free(w->jit);
	free(w->buf);
	free(w->last_end);
	free(w->last_line);
	free(w->done);
	free(w->active);
	free(w->glob_memo);
	free(w->pending);
	free(w->spans);
	free(w->meta);
	free(w->dec);
	scan_typer_free(w->typer);
	scan_worker_free(w->child);
	EVP_MD_CTX_free(w->imd);
	free(w);
}

void
scan_item_list_free(struct scan_item_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].type);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int
scan_worker_collect_items(struct scan_worker *w, struct scan_item_list *items)
{
	if (items != NULL && w->imd == NULL &&
	    (w->imd = EVP_MD_CTX_new()) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	w->items = items;
	return 0;
}

void
scan_worker_item_mode(struct scan_worker *w, uint32_t mode)
{
	w->item_mode = mode;
}

/* Appends the item just read. */
static int
item_push(struct scan_worker *w, const char *path, uint64_t size, int whole,
    int binary)
{
	struct scan_item_list *l = w->items;
	struct scan_item *it;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct scan_item *v = reallocarray(l->v, cap, sizeof(*v));

		if (v == NULL)
			return AL_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	it = &l->v[l->n];
	memset(it, 0, sizeof(*it));
	it->mode = w->item_mode;
	it->size = size;
	if (EVP_DigestFinal_ex(w->imd, md, &mdlen) == 1 && mdlen == 32 && whole)
		al_hex(it->sha256, md, mdlen);
	it->path = strdup(path);
	it->type = strdup(w->mime ? w->mime : binary ?
	    "application/octet-stream" : "text/plain");
	if (it->path == NULL || it->type == NULL) {
		free(it->path);
		free(it->type);
		return AL_ENOMEM;
	}
	l->n++;
	return 0;
}

int
scan_worker_enable_types(struct scan_worker *w)
{
	return w->typer != NULL ? 0 : scan_typer_new(&w->typer);
}

int
scan_worker_new(struct scan_worker **out, const struct scan_engine *e)
{
	struct scan_worker *w;
	size_t nr = e->rs->nrules ? e->rs->nrules : 1;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	w->e = e;
	if (e->db != NULL && hs_alloc_scratch(e->db, &w->scratch) != HS_SUCCESS) {
		scan_worker_free(w);
		return al_err_set(AL_EENGINE, "Hyperscan scratch allocation failed");
	}
	w->md = pcre2_match_data_create(e->max_groups + 1, NULL);
	w->md_allow = pcre2_match_data_create(1, NULL);
	w->mctx = pcre2_match_context_create(NULL);
	w->mctx_allow = pcre2_match_context_create(NULL);
	w->jit = pcre2_jit_stack_create(32 * 1024, 512 * 1024, NULL);
	w->buf = malloc(KEEP + AL_SCAN_CHUNK);
	w->last_end = calloc(nr, sizeof(*w->last_end));
	w->last_line = calloc(nr, sizeof(*w->last_line));
	w->done = calloc(nr, sizeof(*w->done));
	w->active = calloc(nr, 1);
	w->glob_memo = malloc(e->nglobs ? e->nglobs : 1);
	w->pending = calloc(AL_MAX_PENDING_HITS, sizeof(*w->pending));
	w->dec = malloc(scan_decoded_max(AL_DECODE_MAX_BLOB));
	if (!w->md || !w->md_allow || !w->mctx || !w->mctx_allow || !w->jit ||
	    !w->buf ||
	    !w->last_end || !w->last_line || !w->done || !w->active ||
	    !w->glob_memo ||
	    !w->pending ||
	    !w->dec) {
		scan_worker_free(w);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	pcre2_set_match_limit(w->mctx, AL_PCRE2_MATCH_LIMIT);
	pcre2_set_depth_limit(w->mctx, AL_PCRE2_DEPTH_LIMIT);
	pcre2_jit_stack_assign(w->mctx, NULL, w->jit);
	pcre2_set_match_limit(w->mctx_allow, AL_PCRE2_MATCH_LIMIT);
	pcre2_set_depth_limit(w->mctx_allow, AL_PCRE2_DEPTH_LIMIT);
	pcre2_jit_stack_assign(w->mctx_allow, NULL, w->jit);
	*out = w;
	return 0;
}

/* ---- positions ----------------------------------------------------------- */

/*
 * Code points in a span: every byte that is not a UTF-8 continuation, and
 * every continuation byte that follows an ASCII byte (a stray one, shown as
 * U+FFFD in JSON, so it must count as one). prev is the byte before p, or
 * 0 when unknown; the count does not depend on where a span is split.
 */
static uint64_t
count_cps(const char *p, size_t n, unsigned char prev)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)p[i];

		c += (b & 0xc0) != 0x80 || (prev & 0x80) == 0;
		prev = b;
	}
	return c;
}

/* The byte before file offset abs, if the buffer holds it. */
static unsigned char
byte_before(const struct scan_worker *w, uint64_t abs)
{
	return abs > w->buf_off ? (unsigned char)w->buf[abs - w->buf_off - 1] : 0;
}

static uint64_t
count_nl(const char *p, size_t n, const char **last)
{
	const char *end = p + n, *q;
	uint64_t c = 0;

	*last = NULL;
	while (p < end && (q = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		c++;
		*last = q;
		p = q + 1;
	}
	return c;
}

/* Moves the cursor to file offset abs (inside the buffer). */
static void
cursor_to(struct scan_worker *w, uint64_t abs)
{
	const char *base = w->buf - w->buf_off; /* base + abs = byte at abs */
	const char *last;
	uint64_t k;

	if (abs >= w->cur_abs) {
		k = count_nl(base + w->cur_abs, abs - w->cur_abs, &last);
		if (k > 0) {
			w->cur_line += k;
			w->cur_col = count_cps(last + 1,
			    (size_t)(base + abs - (last + 1)), '\n');
		} else {
			w->cur_col += count_cps(base + w->cur_abs,
			    abs - w->cur_abs, byte_before(w, w->cur_abs));
		}
	} else {
		k = count_nl(base + abs, w->cur_abs - abs, &last);
		w->cur_line -= k;
		last = memrchr(w->buf, '\n', abs - w->buf_off);
		if (last != NULL)
			w->cur_col = count_cps(last + 1,
			    (size_t)(base + abs - (last + 1)), '\n');
		else
			w->cur_col = w->base_col + count_cps(w->buf,
			    abs - w->buf_off, w->prev_byte);
	}
	w->cur_abs = abs;
}

/* ---- findings from content ---------------------------------------------- */

static int
file_findings(const struct scan_worker *w)
{
	return (int)(w->out->n - w->first);
}

static int meta_reserve(struct scan_worker *w, size_t n);

static void
worker_unscannable(struct scan_worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
worker_unscannable(struct scan_worker *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->stop = 1;
	if (meta_reserve(w, (size_t)file_findings(w) + 1) < 0 ||
	    finding_add_builtin(w->out, AL_RULE_UNSCANNABLE, w->path, msg) < 0)
		w->nomem = 1;
	else
		memset(&w->meta[file_findings(w) - 1], 0, sizeof(*w->meta));
}

static int
meta_reserve(struct scan_worker *w, size_t n)
{
	if (n > w->meta_cap) {
		size_t ncap = w->meta_cap ? w->meta_cap * 2 : 64;
		struct fmeta *nv;

		while (ncap < n)
			ncap *= 2;
		nv = realloc(w->meta, ncap * sizeof(*nv));
		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		w->meta = nv;
		w->meta_cap = ncap;
	}
	return 0;
}

/*
 * A new finding of the current file, with its meta zeroed; NULL when the
 * per-file cap is reached (the file is then unscannable) or memory ran out.
 */
static struct finding *
new_finding(struct scan_worker *w, struct fmeta **meta_out)
{
	struct finding *f;

	if ((size_t)file_findings(w) >= AL_MAX_FINDINGS_PER_FILE) {
		worker_unscannable(w, "more than %u findings in this file; the "
		    "rest were not examined", AL_MAX_FINDINGS_PER_FILE);
		return NULL;
	}
	if (meta_reserve(w, (size_t)file_findings(w) + 1) < 0 ||
	    finding_push(w->out, &f) < 0) {
		w->nomem = w->stop = 1;
		return NULL;
	}
	*meta_out = &w->meta[file_findings(w) - 1];
	memset(*meta_out, 0, sizeof(**meta_out));
	return f;
}

static int
span_push(struct scan_worker *w, uint64_t s, uint64_t e)
{
	if (w->nspans == w->spans_cap) {
		size_t ncap = w->spans_cap ? w->spans_cap * 2 : 16;
		struct span *nv = realloc(w->spans, ncap * sizeof(*nv));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		w->spans = nv;
		w->spans_cap = ncap;
	}
	w->spans[w->nspans].s = s;
	w->spans[w->nspans].e = e;
	w->nspans++;
	return 0;
}

/* Runs the rule's check, if any, on the line around the match [s, t). */
static int
check_passes(const struct scan_worker *w, const struct rule *r, uint64_t s,
    uint64_t t)
{
	const char *base = w->buf - w->buf_off, *nl;
	uint64_t buf_end = w->buf_off + w->buf_len, ls, le;

	if (r->check == 0)
		return 1;
	ls = s > w->buf_off + AL_SCAN_WINDOW ? s - AL_SCAN_WINDOW : w->buf_off;
	nl = memrchr(base + ls, '\n', s - ls);
	if (nl != NULL)
		ls = (uint64_t)(nl - base) + 1;
	le = t + AL_SCAN_WINDOW < buf_end ? t + AL_SCAN_WINDOW : buf_end;
	nl = memchr(base + s, '\n', le - s);
	if (nl != NULL)
		le = (uint64_t)(nl - base);
	if (t > le)
		t = le;
	return scan_check_run(r->check, (const unsigned char *)base + ls,
	    le - ls, s - ls, t - ls, ls == 0);
}

/* Does the secret pass the rule's entropy floor and allow-list? */
static int
secret_counts(struct scan_worker *w, const struct rule *r, const char *sec,
    size_t n)
{
	size_t i;

	if (r->entropy > 0 && al_entropy((const unsigned char *)sec, n) <
	    r->entropy)
		return 0;
	for (i = 0; i < r->allow_stopwords.n; i++)
		if (al_memcasemem(sec, n, r->allow_stopwords.v[i],
		    strlen(r->allow_stopwords.v[i])) != NULL)
			return 0;
	for (i = 0; i < r->allow_regexes.n; i++)
		if (pcre2_match(r->allow_re[i], (PCRE2_SPTR)sec, n, 0, 0,
		    w->md_allow, w->mctx_allow) >= 0)
			return 0;
	return 1;
}

/* Records a confirmed match [s, t) of rule ri; sec is the secret span. */
static void
emit(struct scan_worker *w, size_t ri, uint64_t s, uint64_t t, uint64_t sec_s,
    uint64_t sec_e)
{
	const struct rule *r = w->e->rs->rules[ri];
	const char *base = w->buf - w->buf_off;
	uint64_t buf_end = w->buf_off + w->buf_len, lo, ex_s, ex_e;
	struct finding *f;
	struct fmeta *m;
	const char *nl;

	/* Every secret is masked, also those a deduped finding would show. */
	if (strcmp(r->category, "secret") == 0 &&
	    span_push(w, sec_s, sec_e) < 0) {
		w->nomem = w->stop = 1;
		return;
	}
	cursor_to(w, s);
	if (w->last_line[ri] == w->cur_line)
		return; /* one finding per (rule, file, line) */
	w->last_line[ri] = w->cur_line;
	if ((f = new_finding(w, &m)) == NULL)
		return;
	f->rule = r;
	f->severity = r->severity;
	f->line = w->cur_line;
	f->column = w->cur_col + 1;
	/* The excerpt: the line around s, at most AL_EXCERPT_BYTES. */
	lo = s > w->buf_off + AL_EXCERPT_BYTES / 2 ? s - AL_EXCERPT_BYTES / 2 :
	    w->buf_off;
	nl = memrchr(base + lo, '\n', s - lo);
	ex_s = nl ? (uint64_t)(nl - base) + 1 : lo;
	m->ex_head = nl == NULL && !(lo == 0 ||
	    (lo == w->buf_off && w->bol_at_start));
	ex_e = ex_s + AL_EXCERPT_BYTES < buf_end ? ex_s + AL_EXCERPT_BYTES :
	    buf_end;
	nl = memchr(base + s, '\n', ex_e - s);
	if (nl != NULL)
		ex_e = (uint64_t)(nl - base);
	m->ex_tail = nl == NULL && !(ex_e == buf_end && w->eof);
	if (ex_e > ex_s && base[ex_e - 1] == '\r')
		ex_e--;
	m->ex_abs = ex_s;
	f->excerpt = malloc(ex_e - ex_s + 1);
	f->path = strdup(w->path);
	if (f->excerpt == NULL || f->path == NULL) {
		w->nomem = w->stop = 1;
		return;
	}
	memcpy(f->excerpt, base + ex_s, ex_e - ex_s);
	f->excerpt[ex_e - ex_s] = '\0';
	al_sha256_hex(m->hash, base + s, t - s);
}

/*
 * Confirms a hit of expression id ending at end: runs the rule's regex on the
 * window around it and reports every match there that survives the filters.
 *
 * A keyword hit is confirmed on its line. A pattern or factor hit is
 * confirmed on [end - W, end + W], W being the rule's longest match (capped
 * by AL_SCAN_WINDOW): every match that contains the hit lies inside. What a
 * search has already covered for the rule (done[]) is not searched again, so
 * frequent hits cost no more than one pass of the regex over the file.
 */
static void
confirm(struct scan_worker *w, unsigned id, uint64_t end)
{
	const struct scan_engine *e = w->e;
	size_t ri = e->expr_rule[id];
	const struct rule *r = e->rs->rules[ri];
	int kw = e->expr_kw[id] == EXPR_KEYWORD;
	uint64_t buf_end = w->buf_off + w->buf_len, ws, we, pos;
	const char *base = w->buf - w->buf_off;
	uint64_t width = r->max_width < AL_SCAN_WINDOW ? r->max_width :
	    AL_SCAN_WINDOW;
	PCRE2_SIZE *ov;
	uint32_t opts = 0;

	if (!w->active[ri] || end <= w->last_end[ri] || w->stop)
		return;
	if (kw) {
		uint64_t lo = end > w->buf_off + AL_SCAN_WINDOW ?
		    end - AL_SCAN_WINDOW : w->buf_off;
		uint64_t hi = end + AL_SCAN_WINDOW < buf_end ?
		    end + AL_SCAN_WINDOW : buf_end;
		const char *nl = memrchr(base + lo, '\n', end - lo);

		ws = nl ? (uint64_t)(nl - base) + 1 : lo;
		nl = memchr(base + end, '\n', hi - end);
		we = nl ? (uint64_t)(nl - base) : hi;
		w->last_end[ri] = we;
		pcre2_set_offset_limit(w->mctx, PCRE2_UNSET);
	} else {
		/* A match containing the hit starts at or before it: the
		 * search may not start later (offset limit), and matches that
		 * start before the previous hit were found by its search. */
		ws = end > w->buf_off + width ? end - width : w->buf_off;
		if (ws < w->done[ri])
			ws = w->done[ri];
		we = end + width < buf_end ? end + width : buf_end;
		if (ws > end)
			return;
		w->done[ri] = end;
		pcre2_set_offset_limit(w->mctx, end - w->buf_off);
	}
	if (ws > 0 && (ws > w->buf_off ? base[ws - 1] != '\n' :
	    !w->bol_at_start))
		opts |= PCRE2_NOTBOL;
	if (we < buf_end ? base[we] != '\n' : !w->eof)
		opts |= PCRE2_NOTEOL;
	ov = pcre2_get_ovector_pointer(w->md);
	for (pos = ws; pos < we && (kw || pos <= end) && !w->stop;) {
		uint64_t s, t, sec_s, sec_e;
		unsigned g;
		int rc;

		rc = pcre2_match(r->re, (PCRE2_SPTR)w->buf, we - w->buf_off,
		    pos - w->buf_off, opts, w->md, w->mctx);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		if (rc < 0) {
			PCRE2_UCHAR msg[128];

			pcre2_get_error_message(rc, msg, sizeof(msg));
			cursor_to(w, pos);
			worker_unscannable(w, "rule %s could not be evaluated near "
			    "line %llu: %s", r->id,
			    (unsigned long long)w->cur_line, (char *)msg);
			return;
		}
		s = ov[0] + w->buf_off;
		t = ov[1] + w->buf_off;
		pos = t > s ? t : s + 1;
		if (t <= s || (!kw && t <= w->last_end[ri]))
			continue; /* empty, or already reported */
		if (!kw)
			w->last_end[ri] = t;
		g = r->secret_group;
		if ((int)g >= rc || ov[2 * g] == PCRE2_UNSET)
			g = 0;
		sec_s = ov[2 * g] + w->buf_off;
		sec_e = ov[2 * g + 1] + w->buf_off;
		/* Every match on the window is reported (once per line): a
		 * keyword line is read to its end, so that every secret on it
		 * is known for redaction too. */
		if (secret_counts(w, r, base + sec_s, sec_e - sec_s) &&
		    check_passes(w, r, s, t))
			emit(w, ri, s, t, sec_s, sec_e);
	}
}

static int
on_hit(unsigned int id, unsigned long long from, unsigned long long to,
    unsigned int flags, void *ctx)
{
	struct scan_worker *w = ctx;
	const struct rule *r = w->e->rs->rules[w->e->expr_rule[id]];
	uint64_t la = w->e->expr_kw[id] == EXPR_KEYWORD ? AL_SCAN_WINDOW :
	    (r->max_width < AL_SCAN_WINDOW ? r->max_width : AL_SCAN_WINDOW);

	(void)from;
	(void)flags;
	if (w->stop)
		return 1;
	if (!w->active[w->e->expr_rule[id]])
		return 0;
	if (w->eof || to + la <= w->buf_off + w->buf_len) {
		confirm(w, id, to);
	} else if (w->npending < AL_MAX_PENDING_HITS) {
		w->pending[w->npending].id = id;
		w->pending[w->npending].end = to;
		w->npending++;
	} else {
		confirm(w, id, to); /* with the lookahead there is */
	}
	return w->stop ? 1 : 0;
}

static void
flush_pending(struct scan_worker *w)
{
	size_t i;

	for (i = 0; i < w->npending && !w->stop; i++)
		confirm(w, w->pending[i].id, w->pending[i].end);
	w->npending = 0;
}

/* ---- redaction and fingerprints ----------------------------------------- */

static int
cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

/* Rewrites an excerpt with every secret span on it masked. */
static int
redact(struct scan_worker *w, struct finding *f, const struct fmeta *m)
{
	size_t len = strlen(f->excerpt), i;
	uint64_t a = m->ex_abs, b = m->ex_abs + len, p = a;
	struct dynbuf out;
	int rc = 0;

	dynbuf_init(&out, 4 * AL_EXCERPT_BYTES + 64);
	if (m->ex_head)
		rc |= dynbuf_adds(&out, "...");
	for (i = 0; i < w->nspans && rc == 0; i++) {
		const struct span *sp = &w->spans[i];
		uint64_t keep = 0;

		if (sp->e <= p || sp->s >= b)
			continue;
		if (sp->s > p)
			rc |= dynbuf_add(&out, f->excerpt + (p - a), sp->s - p);
		if (sp->s >= p) {
			keep = (sp->e - sp->s) / 4;
			if (keep > 4)
				keep = 4;
			if (sp->s + keep > b)
				keep = b - sp->s;
			rc |= dynbuf_add(&out, f->excerpt + (sp->s - a), keep);
		}
		rc |= dynbuf_adds(&out, "*****");
		p = sp->e < b ? sp->e : b;
	}
	if (rc == 0 && p < b)
		rc = dynbuf_add(&out, f->excerpt + (p - a), b - p);
	if (rc == 0 && m->ex_tail)
		rc = dynbuf_adds(&out, "...");
	if (rc != 0) {
		dynbuf_free(&out);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	free(f->excerpt);
	f->excerpt = dynbuf_take(&out, NULL);
	return 0;
}

/* Categories that make an auto-run file critical when found inside it. */
static int
dangerous_category(const char *c)
{
	return strcmp(c, "download-exec") == 0 ||
	    strcmp(c, "exfiltration") == 0 ||
	    strcmp(c, "credential-access") == 0 ||
	    strcmp(c, "obfuscation") == 0 || strcmp(c, "persistence") == 0;
}

/*
 * A file that runs by itself (a path-only install-hook finding: a git hook,
 * a workflow, a .pth) and that also downloads, sends, reads credentials,
 * hides code or persists, is what DESIGN.md calls an install hook that
 * reaches the network: its location finding becomes critical and says why.
 */
static int
escalate_autorun(struct scan_worker *w)
{
	struct finding *v, *worst = NULL;
	size_t n = (size_t)file_findings(w), i;
	char msg[300];

	if (n == 0)
		return 0;
	v = w->out->v + w->first;
	for (i = 0; i < n; i++)
		if (v[i].line > 0 && v[i].severity >= AL_SEV_MEDIUM &&
		    dangerous_category(v[i].rule->category) &&
		    (worst == NULL || v[i].severity > worst->severity))
			worst = &v[i];
	if (worst == NULL)
		return 0;
	snprintf(msg, sizeof(msg), "runs automatically and contains %s "
	    "(%s) at line %llu", worst->rule->id,
	    al_severity_name(worst->severity),
	    (unsigned long long)worst->line);
	for (i = 0; i < n; i++) {
		char *m;

		if (v[i].rule->builtin || v[i].rule->pattern != NULL ||
		    strcmp(v[i].rule->category, "install-hook") != 0)
			continue;
		if ((m = strdup(msg)) == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		free(v[i].excerpt);
		v[i].excerpt = m;
		v[i].severity = AL_SEV_CRITICAL;
	}
	return 0;
}

static int
finish_file(struct scan_worker *w)
{
	size_t n = (size_t)file_findings(w), i, j;

	if (w->nspans > 1)
		qsort(w->spans, w->nspans, sizeof(*w->spans), cmp_span);
	for (i = 0; i < n; i++) {
		struct finding *f = &w->out->v[w->first + i];
		const struct fmeta *m = &w->meta[i];
		size_t occ = 0;

		/* A built-in finding made here has its fingerprint; one adopted
		 * from a decoded blob gets it below, like the rules' ones. */
		if ((f->rule->builtin && !m->decoded) || f->line == 0)
			continue;
		if (!m->decoded && redact(w, f, m) < 0)
			return AL_ENOMEM;
		for (j = 0; j < i; j++)
			if (w->out->v[w->first + j].rule == f->rule &&
			    strcmp(w->meta[j].hash, m->hash) == 0)
				occ++;
		fingerprint_of(f->fingerprint, f->rule->id, w->relpath, m->hash,
		    occ);
	}
	return escalate_autorun(w);
}

/* ---- encoded blobs ------------------------------------------------------ */

static int scan_source_nested(struct scan_worker *w, const unsigned char *p,
    size_t n, struct finding_list *out);

/* Moves what the scan of a decoded blob at [s, e) found into this file's
 * findings, at the blob's position, the excerpt naming the decoding. */
static void
adopt_decoded(struct scan_worker *w, enum scan_encoding enc, uint64_t s,
    uint64_t e, struct finding_list *inner)
{
	size_t i;

	cursor_to(w, s);
	for (i = 0; i < inner->n && !w->stop; i++) {
		const struct finding *in = &inner->v[i];
		size_t ri = rule_set_index(w->e->rs, in->rule->id);
		struct finding *f;
		struct fmeta *m;
		struct dynbuf x;

		if (strcmp(in->rule->category, "secret") == 0 &&
		    span_push(w, s, e) < 0) {
			w->nomem = w->stop = 1;
			return;
		}
		if (!in->rule->builtin) {
			if (ri >= w->e->rs->nrules ||
			    w->last_line[ri] == w->cur_line)
				continue;
			w->last_line[ri] = w->cur_line;
		}
		if ((f = new_finding(w, &m)) == NULL)
			return;
		m->decoded = 1;
		al_sha256_hex(m->hash, in->fingerprint, strlen(in->fingerprint));
		f->rule = in->rule;
		f->severity = in->severity;
		f->line = w->cur_line;
		f->column = w->cur_col + 1;
		f->path = strdup(w->path);
		dynbuf_init(&x, 4 * AL_EXCERPT_BYTES + 256);
		(void)dynbuf_addf(&x, "decoded %s: %s", scan_encoding_name(enc),
		    in->excerpt);
		f->excerpt = dynbuf_take(&x, NULL);
		if (f->path == NULL || f->excerpt == NULL)
			w->nomem = w->stop = 1;
	}
}

/* Decodes the blob [s, e) piece by piece; scans what reads as text. */
static void
try_blob(struct scan_worker *w, uint64_t s, uint64_t e, int hex_only,
    int xesc)
{
	const char *base = w->buf - w->buf_off;
	uint64_t p;

	for (p = s; p < e && !w->stop;) {
		size_t n = e - p < AL_DECODE_MAX_BLOB ? (size_t)(e - p) :
		    AL_DECODE_MAX_BLOB;
		enum scan_encoding enc = xesc ? ENC_XESC : ENC_HEX;
		struct finding_list inner = {0};
		ssize_t len = -1;

		if (xesc)
			len = scan_decode_xesc(base + p, n, w->dec);
		else if (hex_only)
			len = scan_decode_hex(base + p, n, w->dec);
		if (!xesc && (len < 0 || !scan_is_text(w->dec, (size_t)len))) {
			enc = ENC_BASE64;
			len = scan_decode_base64(base + p, n, w->dec);
		}
		p += n;
		if (len <= 0 || !scan_is_text(w->dec, (size_t)len))
			continue;
		w->decoded_total += (uint64_t)len;
		if (w->decoded_total > AL_DECODE_MAX_FILE) {
			worker_unscannable(w, "more than %u bytes of encoded text; "
			    "not all of it was decoded", AL_DECODE_MAX_FILE);
			return;
		}
		if (e - s >= AL_ENCODED_TEXT_REPORT && p - n == s) {
			char msg[128];
			struct finding *f;

			cursor_to(w, s);
			snprintf(msg, sizeof(msg), "%llu bytes of %s decode to text",
			    (unsigned long long)(e - s), scan_encoding_name(enc));
			if (meta_reserve(w, (size_t)file_findings(w) + 1) < 0 ||
			    finding_add_builtin(w->out, AL_RULE_ENCODED_TEXT,
			    w->path, msg) < 0) {
				w->nomem = w->stop = 1;
				return;
			}
			f = &w->out->v[w->out->n - 1];
			f->line = w->cur_line;
			f->column = w->cur_col + 1;
			memset(&w->meta[file_findings(w) - 1], 0, sizeof(*w->meta));
		}
		if (scan_source_nested(w, w->dec, (size_t)len, &inner) < 0) {
			finding_list_free(&inner);
			w->nomem = w->stop = 1;
			return;
		}
		adopt_decoded(w, enc, s, e, &inner);
		finding_list_free(&inner);
	}
}

/* Bytes of encoded blobs: 1 base64 only, 3 base64 and hex. */
static const unsigned char blob_class[256] = {
	['A' ... 'F'] = 3, ['G' ... 'Z'] = 1,
	['a' ... 'f'] = 3, ['g' ... 'z'] = 1,
	['0' ... '9'] = 3,
	['+'] = 1, ['/'] = 1, ['-'] = 1, ['_'] = 1,
};

/*
 * Finds base64 and hex runs of at least AL_DECODE_MIN_CHARS in [from, to)
 * and decodes them. Most bytes of source text belong to the base64
 * alphabet, so the search skips: if the byte M-1 ahead is not in the
 * alphabet, no run of M can start before it. A run that reaches `to` before
 * the end of the file may go on in the next chunk: its start is returned so
 * that the search resumes there (its head is decoded now if it is too long
 * to stay in the kept window).
 */
static uint64_t
find_b64hex(struct scan_worker *w, uint64_t from, uint64_t to, int final)
{
	const unsigned char *base = (const unsigned char *)w->buf - w->buf_off;
	const uint64_t m = AL_DECODE_MIN_CHARS;
	uint64_t i = from, r, e, pad, k;

	while (i + m <= to && !w->stop) {
		int hex_only = 1;

		if (blob_class[base[i + m - 1]] == 0) {
			i += m;
			continue;
		}
		for (r = i + m - 1; r > i && blob_class[base[r - 1]] != 0; r--)
			;
		for (e = i + m; e < to && blob_class[base[e]] != 0; e++)
			;
		if (e - r < m && e < to) {
			i = e + 1;
			continue;
		}
		for (pad = e; pad < to && base[pad] == '=' && pad - e < 2; pad++)
			;
		if (pad == to && !final) {
			uint64_t head;

			if (to - r < KEEP / 2)
				return r;
			/* Decode a 4-aligned head now; the rest stays. */
			head = (to - r - KEEP / 4) / 4 * 4;
			for (k = r; k < r + head; k++)
				hex_only &= blob_class[base[k]] == 3;
			try_blob(w, r, r + head, hex_only, 0);
			return r + head;
		}
		if (e - r >= m) {
			for (k = r; k < e; k++)
				hex_only &= blob_class[base[k]] == 3;
			try_blob(w, r, pad, hex_only, 0);
		}
		i = pad + 1;
	}
	if (!final && i < to) {
		/* A run at the very end may go on in the next chunk. */
		for (r = to; r > i && blob_class[base[r - 1]] != 0; r--)
			;
		return r;
	}
	return to;
}

/* Finds runs of at least AL_DECODE_MIN_CHARS / 4 "\xHH" escapes. */
static uint64_t
find_xesc(struct scan_worker *w, uint64_t from, uint64_t to, int final)
{
	const unsigned char *base = (const unsigned char *)w->buf - w->buf_off;
	uint64_t i = from;

	while (i < to && !w->stop) {
		const unsigned char *p = memchr(base + i, '\\', to - i);
		uint64_t s, k;

		if (p == NULL)
			break;
		s = k = (uint64_t)(p - base);
		while (k + 3 < to && base[k] == '\\' &&
		    (base[k + 1] == 'x' || base[k + 1] == 'X') &&
		    blob_class[base[k + 2]] == 3 && blob_class[base[k + 3]] == 3)
			k += 4;
		if (!final && k + 4 > to && to - s < KEEP / 2)
			return s;
		if (k - s >= AL_DECODE_MIN_CHARS)
			try_blob(w, s, k, 0, 1);
		i = k > s ? k : s + 1;
	}
	return final || to < from + 3 ? to : to - 3;
}

/* ---- driving a file through -------------------------------------------- */

static const char *const text_exts[] = {
	"sh", "bash", "zsh", "fish", "ksh", "py", "pyw", "pth", "rb", "pl",
	"pm", "php", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "yml",
	"yaml", "toml", "ini", "cfg", "conf", "env", "md", "txt", "rst", "xml",
	"html", "htm", "ps1", "psm1", "bat", "cmd", "go", "rs", "c", "h", "cc",
	"cpp", "java", "kt", "gradle", "swift", "lua", "sql", "tf", "mk",
	"cmake", "service", "plist", "desktop", "gemspec", "csv", "svg",
};

/* A NUL in the first bytes means binary, unless the name says it is a
 * script or text a tool will run or read: then a stray NUL must not be a
 * way to switch the text rules off. */
static int
is_binary(const char *relpath, const char *p, size_t n)
{
	const char *slash, *dot;
	size_t i;

	if (memchr(p, '\0', n < AL_BINARY_SNIFF ? n : AL_BINARY_SNIFF) == NULL)
		return 0;
	slash = strrchr(relpath, '/');
	dot = strrchr(slash ? slash : relpath, '.');
	if (dot == NULL)
		return 1;
	for (i = 0; i < sizeof(text_exts) / sizeof(text_exts[0]); i++)
		if (strcasecmp(dot + 1, text_exts[i]) == 0)
			return 0;
	return 1;
}

struct source {
	int fd;
	const char *mem;
	size_t mem_len, mem_pos;
	EVP_MD_CTX *md;           /* hashes what is read, when wanted */
	scan_read_fn cb;          /* or reads through a callback */
	void *cb_ctx;
};

static ssize_t
source_read(struct source *src, char *dst, size_t n)
{
	ssize_t r;

	if (src->cb != NULL)
		return src->cb(src->cb_ctx, dst, n);

	if (src->mem != NULL) {
		size_t left = src->mem_len - src->mem_pos;

		if (n > left)
			n = left;
		memcpy(dst, src->mem + src->mem_pos, n);
		src->mem_pos += n;
		return (ssize_t)n;
	}
	do
		r = read(src->fd, dst, n);
	while (r < 0 && errno == EINTR);
	/* libcrypto that cannot hash leaves nothing safe to go on with. */
	AL_ASSERT(r <= 0 || src->md == NULL ||
	    EVP_DigestUpdate(src->md, dst, (size_t)r) == 1);
	return r;
}

/* Glob k matches relpath? Each distinct glob is matched once per file. */
static int
glob_memo_match(struct scan_worker *w, unsigned k, const char *relpath)
{
	if (w->glob_memo[k] < 0)
		w->glob_memo[k] = (signed char)rule_glob_match(w->e->globs[k],
		    relpath);
	return w->glob_memo[k];
}

/* Does the i-th scoped rule apply to relpath: one of its paths matches (or it
 * has none) and none of its exclude_paths does. */
static int
scoped_applies(struct scan_worker *w, size_t i, const char *relpath)
{
	const struct scan_engine *e = w->e;
	const unsigned *g = e->gidx + e->g_at[i];
	size_t j;
	int in = e->g_npaths[i] == 0;

	for (j = 0; j < e->g_npaths[i] && !in; j++)
		in = glob_memo_match(w, g[j], relpath);
	for (j = 0; in && j < e->g_nexcl[i]; j++)
		if (glob_memo_match(w, g[e->g_npaths[i] + j], relpath))
			in = 0;
	return in;
}

static void
file_begin(struct scan_worker *w, const char *path, const char *relpath,
    struct finding_list *out)
{
	const struct rule_set *rs = w->e->rs;
	size_t i;

	w->path = path;
	w->relpath = relpath;
	w->out = out;
	w->first = out->n;
	w->buf_off = 0;
	w->buf_len = 0;
	w->bol_at_start = 1;
	w->prev_byte = 0;
	w->base_line = w->cur_line = 1;
	w->base_col = w->cur_col = 0;
	w->cur_abs = 0;
	w->eof = w->stop = w->nomem = 0;
	w->npending = 0;
	w->nspans = 0;
	w->blob_pos = w->xesc_pos = 0;
	w->decoded_total = 0;
	memset(w->last_end, 0, rs->nrules * sizeof(*w->last_end));
	memset(w->last_line, 0, rs->nrules * sizeof(*w->last_line));
	memset(w->done, 0, rs->nrules * sizeof(*w->done));
	memset(w->active, 1, rs->nrules);
	memset(w->glob_memo, -1, w->e->nglobs);
	for (i = 0; i < w->e->nscoped; i++)
		w->active[w->e->scoped[i]] = (unsigned char)scoped_applies(w, i,
		    relpath);
	/* Path rules: a finding for the file itself, whatever its content. */
	for (i = 0; i < rs->nrules && !w->nomem; i++) {
		const struct rule *r = rs->rules[i];
		struct finding *f;

		if (r->pattern != NULL || !w->active[i] || w->depth > 0)
			continue;
		if (meta_reserve(w, (size_t)file_findings(w) + 1) < 0 ||
		    finding_push(out, &f) < 0) {
			w->nomem = 1;
			break;
		}
		memset(&w->meta[file_findings(w) - 1], 0, sizeof(*w->meta));
		f->rule = r;
		f->severity = r->severity;
		f->path = strdup(path);
		f->excerpt = strdup("");
		if (f->path == NULL || f->excerpt == NULL)
			w->nomem = 1;
		fingerprint_of(f->fingerprint, r->id, relpath, "", 0);
	}
}

/* Adds a whole-file built-in finding for the current file. */
static void
worker_builtin(struct scan_worker *w, const char *rule, const char *msg)
{
	if (meta_reserve(w, (size_t)file_findings(w) + 1) < 0 ||
	    finding_add_builtin(w->out, rule, w->path, msg) < 0)
		w->nomem = 1;
	else
		memset(&w->meta[file_findings(w) - 1], 0, sizeof(*w->meta));
}

/* Types the file from its first bytes: executables, and binaries wearing
 * the name of a text file or an image, are findings. */
static void
check_type(struct scan_worker *w, const char *p, size_t n)
{
	const char *mime;
	char msg[256];

	if (w->typer == NULL || w->depth > 0)
		return;
	/* Machine code and bytecode have NUL bytes at once; text does not,
	 * and libmagic is too slow to ask about every text file. */
	if (memchr(p, '\0', n < AL_BINARY_SNIFF ? n : AL_BINARY_SNIFF) == NULL)
		return;
	mime = scan_typer_mime(w->typer, p, n);
	w->mime = mime;
	if (!scan_type_is_executable(mime))
		return;
	snprintf(msg, sizeof(msg), "content is %s", mime);
	worker_builtin(w, AL_RULE_EXECUTABLE, msg);
	if (scan_name_promises_data(w->relpath)) {
		snprintf(msg, sizeof(msg), "named like text or an image, but the "
		    "content is %s", mime);
		worker_builtin(w, AL_RULE_TYPE_MISMATCH, msg);
	}
}

/* Keeps the last KEEP bytes, counting what leaves. */
static void
slide(struct scan_worker *w)
{
	uint64_t new_off;
	size_t drop;

	if (w->buf_len <= KEEP)
		return;
	drop = w->buf_len - KEEP;
	new_off = w->buf_off + drop;
	cursor_to(w, new_off);
	w->base_line = w->cur_line;
	w->base_col = w->cur_col;
	w->bol_at_start = w->buf[drop - 1] == '\n';
	w->prev_byte = (unsigned char)w->buf[drop - 1];
	memmove(w->buf, w->buf + drop, KEEP);
	w->buf_off = new_off;
	w->buf_len = KEEP;
	if (w->blob_pos < new_off)
		w->blob_pos = new_off;
	if (w->xesc_pos < new_off)
		w->xesc_pos = new_off;
}

static int
scan_source(struct scan_worker *w, struct source *src, const char *path,
    const char *relpath, struct finding_list *out, uint64_t *bytes)
{
	const struct scan_engine *e = w->e;
	hs_stream_t *stream = NULL;
	uint64_t total = 0;
	int first = 1, binary = 0, item = w->items != NULL && w->depth == 0;

	w->mime = NULL;
	if (item && EVP_DigestInit_ex(w->imd, EVP_sha256(), NULL) != 1)
		return al_err_set(AL_EENGINE, "libcrypto cannot hash");
	file_begin(w, path, relpath, out);
	if (w->nomem)
		return al_err_set(AL_ENOMEM, "out of memory");
	if (e->db != NULL && hs_open_stream(e->db, 0, &stream) != HS_SUCCESS) {
		worker_unscannable(w, "the scan engine could not open a stream");
		stream = NULL;
	}
	while (!w->stop) {
		ssize_t n;

		/* Slide only when the buffer is nearly full: a file that fits
		 * is never slid, so its lines are counted only up to its hits. */
		if (KEEP + AL_SCAN_CHUNK - w->buf_len < AL_SCAN_CHUNK / 4)
			slide(w);
		n = source_read(src, w->buf + w->buf_len,
		    KEEP + AL_SCAN_CHUNK - w->buf_len);
		if (n < 0) {
			worker_unscannable(w, "read error after %llu bytes: %s",
			    (unsigned long long)total, strerror(errno));
			break;
		}
		if (n == 0) {
			w->eof = 1;
			break;
		}
		total += (uint64_t)n;
		AL_ASSERT(!item || EVP_DigestUpdate(w->imd, w->buf + w->buf_len,
		    (size_t)n) == 1);
		if (total > AL_MAX_FILE_BYTES) {
			worker_unscannable(w, "larger than the %llu-byte limit",
			    (unsigned long long)AL_MAX_FILE_BYTES);
			break;
		}
		if (first)
			check_type(w, w->buf, (size_t)n);
		if (first && is_binary(relpath, w->buf, (size_t)n)) {
			w->stop = binary = 1; /* not for text rules; no error */
			break;
		}
		first = 0;
		w->buf_len += (size_t)n;
		if (stream == NULL)
			continue;
		flush_pending(w);
		if (w->stop)
			break;
		if (hs_scan_stream(stream, w->buf + w->buf_len - (size_t)n,
		    (unsigned)n, 0, w->scratch, on_hit, w) != HS_SUCCESS &&
		    !w->stop)
			worker_unscannable(w, "the scan engine failed");
		if (w->depth < AL_DECODE_DEPTH && !w->stop) {
			w->blob_pos = find_b64hex(w, w->blob_pos,
			    w->buf_off + w->buf_len, 0);
			w->xesc_pos = find_xesc(w, w->xesc_pos,
			    w->buf_off + w->buf_len, 0);
		}
	}
	if (stream != NULL) {
		flush_pending(w);
		/* Matches that end at end of data ($, \b) are reported here. */
		if (hs_close_stream(stream, w->scratch, w->stop ? NULL : on_hit,
		    w) != HS_SUCCESS && !w->stop)
			worker_unscannable(w, "the scan engine failed at end of "
			    "data");
		if (w->depth < AL_DECODE_DEPTH && !w->stop) {
			(void)find_b64hex(w, w->blob_pos, w->buf_off + w->buf_len,
			    1);
			(void)find_xesc(w, w->xesc_pos, w->buf_off + w->buf_len,
			    1);
		}
	}
	/* A binary file is still hashed whole, for the allow-list and the
	 * item record. */
	while (binary && (src->md != NULL || item)) {
		ssize_t n = source_read(src, w->buf, KEEP + AL_SCAN_CHUNK);

		if (n <= 0) {
			w->eof = n == 0;
			break;
		}
		total += (uint64_t)n;
		AL_ASSERT(!item || EVP_DigestUpdate(w->imd, w->buf, (size_t)n) == 1);
		if (total > AL_MAX_FILE_BYTES)
			break;
	}
	*bytes += total;
	if (w->nomem || finish_file(w) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	if (item && item_push(w, path, total, w->eof, binary) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	w->item_mode = 0;
	return 0;
}

/* Scans decoded bytes with a child worker one level deeper. */
static int
scan_source_nested(struct scan_worker *w, const unsigned char *p, size_t n,
    struct finding_list *out)
{
	struct source src = {-1, (const char *)p, n, 0, NULL, NULL, NULL};
	uint64_t bytes = 0;
	int rc;

	if (w->child == NULL) {
		if ((rc = scan_worker_new(&w->child, w->e)) < 0)
			return rc;
		w->child->depth = w->depth + 1;
	}
	return scan_source(w->child, &src, w->path, w->relpath, out, &bytes);
}

int
scan_fd(struct scan_worker *w, int fd, const char *path, const char *relpath,
    struct finding_list *out, uint64_t *bytes, char *digest)
{
	struct source src = {fd, NULL, 0, 0, NULL, NULL, NULL};
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int rc;

	if (digest != NULL) {
		digest[0] = '\0';
		if ((src.md = EVP_MD_CTX_new()) == NULL ||
		    EVP_DigestInit_ex(src.md, EVP_sha256(), NULL) != 1) {
			EVP_MD_CTX_free(src.md);
			return al_err_set(AL_ENOMEM, "out of memory");
		}
	}
	rc = scan_source(w, &src, path, relpath, out, bytes);
	/* Only a file read to its end has a digest. */
	if (digest != NULL && rc == 0 && w->eof &&
	    EVP_DigestFinal_ex(src.md, md, &mdlen) == 1 && mdlen == 32)
		al_hex(digest, md, mdlen);
	EVP_MD_CTX_free(src.md);
	return rc;
}

int
scan_stream(struct scan_worker *w, scan_read_fn cb, void *ctx,
    const char *path, const char *relpath, struct finding_list *out,
    uint64_t *bytes)
{
	struct source src = {-1, NULL, 0, 0, NULL, cb, ctx};

	return scan_source(w, &src, path, relpath, out, bytes);
}

int
scan_mem(struct scan_worker *w, const char *data, size_t len,
    const char *path, const char *relpath, struct finding_list *out)
{
	struct source src = {-1, data ? data : "", len, 0, NULL, NULL, NULL};
	uint64_t bytes = 0;

	return scan_source(w, &src, path, relpath, out, &bytes);
}
