/*
 * scan_flow.h - the second stage (scan_flow.c): conditions over a whole
 * file, decided from the atoms the first stage found in it.
 *
 * An atom is a match of a rule marked `atom:` (docs/rules.md): a place
 * where a program reads something (the environment, a credential file,
 * the host's name, a download, a decoder's output) or does something (a
 * network request, a DNS lookup, exec or eval, a spawn, chmod). It is no
 * finding by itself. A condition rule names atom tags:
 *
 *   all:  every tag occurs, within N lines (ordered, if it says so);
 *   flow: a value from an atom of a `from` tag reaches an atom of a `to`
 *         tag through assignments, containers, string formatting, loop
 *         variables, function returns and parameters, within the file.
 *
 * The flow is followed by a hand-written statement reader that is the
 * same for every language family (Python, JavaScript/TypeScript, shell,
 * PowerShell, Ruby, Go, Perl, PHP, Rust, Java): statements are joined
 * across brackets and continuation lines, strings are skipped but their
 * interpolations (${x}, #{x}, {x}, $x) are read, comments are skipped
 * where the file's name says which kind it has. It over-approximates:
 * a name once tainted stays tainted (a branch that reassigns it may not
 * run), and a call's result carries its arguments' taint.
 *
 * Trust: the text is hostile. No recursion; every table is bounded
 * (FLOW_* below); cost is linear in the text times a small constant
 * (two passes). A pure function over the caller's buffers apart from the
 * tables it allocates and frees.
 */
#ifndef AIRLOCK_SCAN_FLOW_H
#define AIRLOCK_SCAN_FLOW_H

#include <stddef.h>
#include <stdint.h>

#define FLOW_MAX_TAGS 64     /* tags in a rule set (bits of a mask) */
#define FLOW_MAX_ALL 8       /* tags one `all:` condition names */
#define FLOW_MAX_NAMES 2048  /* tainted names followed in one file */
#define FLOW_MAX_FUNCS 1024  /* functions whose parameters are known */
#define FLOW_MAX_REPORTS 16  /* reports per condition per file */
#define FLOW_NAME_MAX 64     /* longer names are cut (and so compared) */
#define FLOW_STMT_MAX 65536  /* bytes of one statement before it is cut */

/* The comment syntax of a file, from its name. */
enum flow_lang {
	FLOW_LANG_ANY = 0, /* unknown: nothing is a comment */
	FLOW_LANG_HASH,    /* # (Python, shell, Ruby, Perl, PowerShell, YAML) */
	FLOW_LANG_SLASH,   /* // and slash-star (JS, Go, Rust, Java, C) */
	FLOW_LANG_BOTH,    /* both (PHP) */
};

/* One atom: a match [off, end) of an atom rule, on line `line`. */
struct flow_atom {
	uint64_t off, end;
	uint64_t line;
	uint64_t tags;   /* its rule's tag bits */
	unsigned rule;   /* its rule's index, for the message */
};

enum { FLOW_ALL = 1, FLOW_DATA = 2 };

/* One condition rule, its tags resolved to bits. */
struct flow_cond {
	unsigned rule;
	int kind;             /* FLOW_ALL or FLOW_DATA */
	uint64_t from, to;    /* FLOW_DATA */
	int built;            /* FLOW_DATA: the value is built into a string
	                       * on its way (joined, formatted, interpolated) */
	unsigned char all[FLOW_MAX_ALL]; /* FLOW_ALL: tag bit numbers */
	size_t nall;
	uint64_t within;      /* FLOW_ALL: lines from first to last; 0 any */
	int ordered;          /* FLOW_ALL: the tags in that order */
	uint64_t lowered_by;  /* FLOW_ALL: an atom of these tags between the
	                       * first and the last makes the report `lowered` */
};

/* What a condition found. */
struct flow_report {
	size_t cond;          /* index into the conditions given */
	uint64_t line;        /* the sink's line (FLOW_ALL: the last atom's) */
	uint64_t off;         /* the sink atom's offset */
	uint64_t from_line;   /* the source's line (FLOW_ALL: the first's) */
	unsigned from_rule, to_rule; /* the atoms' rules */
	unsigned hops;        /* FLOW_DATA: names it went through */
	int minified;         /* FLOW_DATA: most of the text is in lines of
	                       * FLOW_LONG_LINE bytes or more (minified code
	                       * reuses short names in every scope) */
	int lowered;          /* FLOW_ALL: a lowered_by atom lies between */
	int unfollowed;       /* FLOW_DATA decided by lines, not data: the
	                       * text was not whole */
	char through[160];    /* "env, payload": the names it went through */
};

typedef int (*flow_report_fn)(void *ctx, const struct flow_report *r);

/* The comment syntax for a path. */
enum flow_lang scan_flow_lang(const char *path);

/*
 * Decides the conditions over the atoms (sorted by offset) of the text
 * [0, len). whole says the text is the file's whole text; when it is not,
 * a FLOW_DATA condition is decided by lines instead (a `to` atom at most
 * FLOW_NEAR lines after a `from` atom) and reported as unfollowed.
 * cb is called once per report (at most FLOW_MAX_REPORTS per condition);
 * a non-zero return stops. Returns 0, or -1 when out of memory.
 */
#define FLOW_NEAR 50
/* A flow whose source and sink are further apart than this many lines, or
 * that went through more names than FLOW_FAR_HOPS, is reported at low
 * severity: programs that steal are short and direct, and the further a
 * may-analysis follows a value, the likelier the path is one no run takes
 * (docs/detection.md "Conditions over a file"). */
#define FLOW_FAR_LINES 200
#define FLOW_FAR_HOPS 6
#define FLOW_LONG_LINE 400
int scan_flow_run(const char *text, size_t len, int whole,
    enum flow_lang lang, const struct flow_atom *atoms, size_t natoms,
    const struct flow_cond *conds, size_t nconds, flow_report_fn cb,
    void *ctx);

/* 1 if the keyword table is in strcmp order (check_flow). */
int scan_flow_keywords_sorted(void);

#endif
