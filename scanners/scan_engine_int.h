/*
 * scan_engine_int.h - what the files of the engine share, private to them:
 * the compiled engine (struct scan_engine), the per-thread worker (struct
 * scan_worker) and the helpers more than one file of the engine calls.
 * Nothing outside these files includes it; the rest of airlock sees only
 * scan_engine.h.
 *
 * Files: scan_finding.c holds the built-in rules, finding lists and
 * fingerprints; scan_build.c compiles a rule set into the Hyperscan
 * database (and its cache); scan_worker.c is the worker and the one pass
 * over a file; scan_pos.c keeps the line and column cursor; scan_redact.c
 * finishes a file's findings (redaction, fingerprints, auto-run
 * escalation); scan_blob.c finds, decodes and scans encoded blobs.
 *
 * Trust: a scan_engine is built in the parent from the operator's rules,
 * before any scan child is forked, and is read-only afterwards. A
 * scan_worker reads hostile bytes and runs in the sandboxed scan child
 * (scan_worker.c says which other callers there are).
 */
#ifndef AIRLOCK_SCAN_ENGINE_INT_H
#define AIRLOCK_SCAN_ENGINE_INT_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif

#include <stddef.h>
#include <stdint.h>

#include <hs.h>
#include <openssl/evp.h>
#include <pcre2.h>

#include "al_limits.h"
#include "scan_flow.h"
#include "scan_pickle.h"
#include "scan_engine.h"
#include "util.h"

/* Bytes of the previous chunk kept in front of the next one. */
#define KEEP (2 * AL_SCAN_WINDOW)
/* Atom hits held per file before each rule's span is read instead. */
#define DEFER_HITS 4096u

/* What a Hyperscan expression stands for. */
enum {
	EXPR_PATTERN = 0, /* the rule's pattern (prefilter mode) */
	EXPR_KEYWORD,     /* one of the rule's keywords: confirm on its line */
	EXPR_FACTOR,      /* a literal in every match: confirm around it */
	EXPR_TRIGGER,     /* a line the normalised view should read */
	/* Not Hyperscan's: the frequent triggers found by the worker itself
	 * (scan_worker.c, qtrig_run), with the same meaning. */
	EXPR_TRIGGER_QUOTE, /* the same, unless the quote is an apostrophe */
	EXPR_TRIGGER_EMPTY, /* the same, if the empty literal touches a word */
	EXPR_TRIGGER_MEMBER, /* the same, if the bracket follows a value */
};

struct scan_engine {
	const struct rule_set *rs;
	hs_database_t *db;        /* NULL when no rule has content patterns */
	/* The atoms a file needs only once it has a key atom (one of a tag
	 * some condition cannot be met without: key_tags), left out of
	 * db_light and looked for by db_rest (block mode) in the kept text
	 * of a file whose stream (db_light) found a key atom; both NULL when
	 * every atom is a key atom (docs/rules.md, "key"). */
	hs_database_t *db_light, *db_rest;
	uint64_t key_tags;
	unsigned nexpr;
	unsigned *expr_rule;      /* expression id -> rule index */
	unsigned char *expr_kw;   /* expression id -> EXPR_* */
	size_t *scoped;           /* rules with paths or exclude_paths */
	size_t nscoped;
	/* The distinct globs of all rules: many rules share them (the same
	 * documentation exclusions), so each is matched once per file. */
	const char **globs;
	size_t nglobs;
	/* Per scoped rule: the indexes of its paths, then of its excludes. */
	unsigned *gidx;
	size_t *g_at;             /* per scoped rule: first index into gidx */
	size_t *g_npaths, *g_nexcl;
	unsigned max_groups;      /* most capture groups of any rule */
	int from_cache;
	/* The second stage (scan_flow.h): the condition rules. */
	struct flow_cond *conds;
	size_t ncond;
	int has_atoms;            /* some rule gives its matches tags */
};

/* ---- the worker ---------------------------------------------------------- */

/* A hit held until the bytes its confirmation needs have arrived. */
struct hit {
	unsigned id;
	unsigned rule;            /* held hits (dhits): the expression's rule */
	unsigned long long end;
};

/* A secret's span, in file offsets, masked in every excerpt it is on. */
struct span {
	uint64_t s, e;
};

/* What the engine keeps about a finding until its file is done. */
struct fmeta {
	uint64_t ex_abs;          /* offset of the excerpt's first byte */
	size_t ex_len;            /* its bytes as cut, NULs among them */
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
	struct pickle_walk *pickle;     /* made at the first file that may be
	                                 * one, reset for every other */
	pcre2_match_context *mctx_allow; /* allow regexes: no offset limit */
	pcre2_jit_stack *jit;
	char *buf;                /* KEEP + AL_SCAN_CHUNK bytes */
	uint64_t *last_end;       /* per rule: end of the last covered match */
	uint64_t *last_line;      /* per rule: line of the last finding */
	/* Per rule: every match that starts before this offset is found. */
	uint64_t *done;
	unsigned char *active;    /* per rule: applies to this file */
	signed char *glob_memo;   /* per distinct glob: -1 unknown, 0, 1 */
	int memo_kept;            /* glob_memo was given for the next file's
	                           * path (eng_scan_nested: the same path) */
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
	/* The index in out of this file's first finding. */
	size_t first;
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
	unsigned char *ibuf;      /* the current item's bytes while it is
	                           * text (AL_MEMBER_CONTENT_MAX, made on use) */
	size_t ibuf_len;
	int ibuf_over;            /* past the cap, or binary: not kept */
	size_t kept_total;        /* bytes kept for this scan's items */
	const char *mime;         /* libmagic's type of this file, or NULL */

	/* Reading a file as its consumer does (scan_read.c), made on use. */
	char *crbuf;              /* a chunk, lone CRs as LF, for Hyperscan */
	unsigned char *rbuf;      /* UTF-16 bytes not decoded yet */
	struct scan_strbin *sb;   /* the strings of a binary file */
	const char *via;          /* how the file was read (its excerpts say
	                           * so), or NULL */
	/* Per rule: reads the strings of binaries (made on use); with
	 * strings_only set, file_begin turns every other rule off. */
	unsigned char *strings_rules;
	int strings_only;
	struct scan_normview *nv; /* the normalised view (made on use) */

	/* The second stage (scan_flow.h): the atoms of the file and its
	 * text, kept while there are conditions to decide. */
	struct flow_atom *atoms;
	size_t natoms, atoms_cap;
	int atoms_over;           /* more atoms than AL_FLOW_MAX_ATOMS */
	unsigned stage;           /* SCAN_STAGE_* for the current file */
	char *ftext;              /* the text as the rules read it */
	size_t ftext_len, ftext_cap;
	int ftext_over;           /* longer than AL_FLOW_TEXT_MAX */
	/* Set on the worker that reads normalised views: an atom is
	 * reported as a finding for the parent to place, and no condition
	 * is decided. */
	int atoms_up;
	int views_flushing;       /* its child reads views (atoms_up) */
	int report_atoms;         /* atoms are findings too (rules test) */
	/* Atom hits held until the file's end: an atom counts only where a
	 * condition can be met, so it is confirmed only there (defer_*).
	 * Per rule: its first and last hit (UINT64_MAX: none) and one of its
	 * expressions; the rules held, and their tags. */
	uint64_t *dfirst, *dlast;
	unsigned *did;
	unsigned *drules;
	size_t ndrules;
	uint64_t dtags;
	struct hit *dhits;        /* the held hits, DEFER_HITS at most */
	size_t ndhits;
	int dhits_over;           /* more: each rule's span is read */
	int deferring;            /* hits of atoms are held for this file */
	int light;                /* its stream has db_light: rest_scan */
	/* The frequent triggers (quotes and brackets, scan_worker.c
	 * qtrig_run): every byte below qscan has been looked at. */
	uint64_t qscan;
};

/* ---- findings (scan_finding.c) ------------------------------------------- */

/* Appends a zeroed finding to l; *out points at it. */
int eng_finding_push(struct finding_list *l, struct finding **out);
/* 128 bits of SHA-256 over what identifies a finding, in hex. */
void eng_fingerprint(char out[33], const char *rule_id, const char *relpath,
    const char *content_hash, size_t occurrence);

/* ---- the worker's findings (scan_worker.c) ------------------------------- */

/* How many findings the current file has so far. */
static inline int
eng_file_findings(const struct scan_worker *w)
{
	return (int)(w->out->n - w->first);
}

/* Room for the meta of n findings of the current file. */
int eng_meta_reserve(struct scan_worker *w, size_t n);
/* Makes the current file unscannable with the message; reads no further. */
void eng_unscannable(struct scan_worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A new finding of the current file with its meta zeroed, or NULL. */
struct finding *eng_new_finding(struct scan_worker *w,
    struct fmeta **meta_out);
/* Remembers a secret span [s, e) for redaction. */
int eng_span_push(struct scan_worker *w, uint64_t s, uint64_t e);
/* Scans decoded bytes with a child worker one level deeper. */
int eng_scan_nested(struct scan_worker *w, const unsigned char *p, size_t n,
    struct finding_list *out);

/* ---- positions (scan_pos.c) ---------------------------------------------- */

/* Moves the cursor to file offset abs (inside the buffer). */
void eng_cursor_to(struct scan_worker *w, uint64_t abs);

/* ---- the end of a file (scan_redact.c) ----------------------------------- */

/* Redacts, fingerprints and escalates the current file's findings. */
int eng_finish_file(struct scan_worker *w);

/* ---- encoded blobs (scan_blob.c) ----------------------------------------- */

/*
 * Decodes the base64 and hex runs, or the \xHH runs, in [from, to), and
 * returns where the next search starts (a run may go on in the next
 * chunk).
 */
uint64_t eng_find_b64hex(struct scan_worker *w, uint64_t from, uint64_t to,
    int final);
uint64_t eng_find_xesc(struct scan_worker *w, uint64_t from, uint64_t to,
    int final);

#endif
