/*
 * scan_flow.c - the second stage: `all:` and `flow:` conditions over the
 * atoms of one file (scan_flow.h says what they mean).
 *
 * How a flow is followed. The text is cut into statements by one reader
 * for every language family: a statement ends at a newline (or a lone CR,
 * or `;`) outside brackets and strings, unless the line ends with `\` or
 * an operator or the next one starts with `.`, `)`, `&&`, `||`...; a `{`
 * opens a bracket where a value stands (`= {`, `({`, `x := T{`) and ends
 * the statement where a block starts (`if (...) {`). Each statement
 * becomes tokens: names (dotted chains, `->` and `::` as `.`, sigils
 * `$ @ %` dropped), the interpolations of strings, and operators. Then:
 *
 *   - the statement's input taint is the tags of the atoms inside it and
 *     of every tainted name it uses (a chain `a.b.c` uses `a`, `a.b` and
 *     `a.b.c`);
 *   - an assignment (a top-level `=`, `:=`, `+=`..., or a walrus) taints
 *     its targets; a mutating call (`x.append(t)`, `x.update(t)`,
 *     `x.push(t)`, `Object.assign(x, t)`, `x << t`, ...) taints x; a loop
 *     header taints its loop variables, a block's parameters (`|k, v|`,
 *     `(k, v) =>`) too; `return` taints the current function's name, so
 *     that its calls carry it; a call of a known function taints its
 *     parameters;
 *   - a statement with an atom of a condition's `to` tags whose input
 *     taint holds one of its `from` tags is a report. An atom does not
 *     feed the condition it is the sink of (`requests.get(` is both a
 *     download and a request).
 * The file is read twice, so that functions defined below their callers
 * and loops that feed earlier lines are seen; reports come from the
 * second reading. Nothing is ever untainted: the analysis may say a flow
 * exists that a branch never takes, never the other way round.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scan_flow.h"
#include "text.h"

/* ---- names ---------------------------------------------------------------- */

#define NAME_SLOTS 4096u /* open addressing, a power of two above NAMES */
#define FUNC_SLOTS 2048u /* the same for FLOW_MAX_FUNCS */
#define FUNC_PARAMS 6
#define STMT_TOKENS 4096u
#define DEPTH_MAX 64

struct name {
	char s[FLOW_NAME_MAX];
	unsigned char len;
	uint64_t tags;
	uint64_t line;        /* where it was tainted first */
	unsigned rule;        /* the source atom's rule, through parents */
	uint64_t src_line;    /* the source atom's line */
	/* More sources, for tags the first did not have: a message names
	 * the source of the condition's tag. */
	uint64_t more_tags[3];
	unsigned more_rule[3];
	uint64_t more_line[3];
	int parent;           /* the name it was tainted from, or -1 */
	int func;             /* a function whose return value is tainted */
	int built;            /* its value was built into a string */
};

struct func {
	char s[FLOW_NAME_MAX];
	unsigned char len;
	unsigned char nparams;
	uint64_t indent;      /* of its definition: a statement at most this
	                       * far in ends its body */
	char p[FUNC_PARAMS][FLOW_NAME_MAX];
	unsigned char plen[FUNC_PARAMS];
};

enum { T_NAME = 1, T_OP, T_STR };

#define SINK_NAMES 32

struct sink_name {
	char s[FLOW_NAME_MAX];
	unsigned char len;
	uint64_t tags;        /* the sink atom's */
	unsigned rule;
};

struct tok {
	uint32_t off;     /* in the text */
	uint16_t len;
	unsigned char kind;
	unsigned char depth; /* bracket depth inside the statement */
	unsigned char in_str; /* a string's interpolation */
};

/* The keyword list's index (is_keyword_in): per first byte, a range of
 * the sorted list, and each keyword's length. */
#define KW_MAX 192
struct kw_index {
	unsigned char from[256], to[256], len[KW_MAX];
};

struct flow {
	struct kw_index kw;
	const char *t;
	size_t n;
	enum flow_lang lang;
	const struct flow_atom *a;
	size_t na;
	const struct flow_cond *c;
	size_t nc;
	flow_report_fn cb;
	void *ctx;
	int stopped;
	uint64_t from_all, to_all; /* every condition's tags together */

	struct name *names;      /* grown as names come, to FLOW_MAX_NAMES */
	size_t nnames, names_cap;
	int *slot;               /* NAME_SLOTS: index into names, or -1 */
	struct func *funcs;      /* grown the same way, to FLOW_MAX_FUNCS */
	int *fslot;              /* FUNC_SLOTS: index into funcs, or -1 */
	size_t nfuncs, funcs_cap;
	int cur_func;            /* the function being read, or -1 */
	int report;              /* the second reading */
	int minified;            /* most bytes are in very long lines */
	size_t *nrep;            /* per condition */
	uint64_t *last_rep_line; /* per condition */

	/* The statement being read. */
	struct tok tok[STMT_TOKENS];
	size_t ntok;
	uint64_t s_off, s_line;  /* its start */
	int ends_block;          /* it ended at a block's `{` */
	int is_def;              /* it defines a function: no sink */
	/* Its comments: an atom inside one is no atom of the statement. */
	uint64_t cmt_s[16], cmt_e[16];
	size_t ncmt;
	/* The reader. */
	uint64_t line;
	uint64_t ls_at, ls;      /* ls: the start of the line holding ls_at */
	unsigned char bstack[DEPTH_MAX]; /* 1 value bracket, 0 block brace */
	int vsaved[DEPTH_MAX];   /* a block's: vdepth outside it */
	int bdepth;              /* entries of bstack in use */
	int vdepth;              /* value brackets open inside the block */
	int overflow;            /* brackets deeper than DEPTH_MAX */

	/* Names given a sink (`req = https.request(...)`): a sending method
	 * called on one, or a body field set, is that sink (`req.write(data)`,
	 * `req.body = data`; stmt_recv_sinks). */
	struct sink_name sinks[SINK_NAMES];
	size_t nsinks;
};

static uint32_t
name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The array a of *cap elements of size bytes, given room for more (twice
 * as many, at most max): the new array with *cap updated, or NULL (a is
 * kept) when it holds max already or memory is short. Most files name
 * few things: the room grows with what a file has, not with the limits. */
static void *
grow(void *a, size_t *cap, size_t size, size_t max)
{
	size_t n = *cap == 0 ? 32 : *cap * 2;
	void *m;

	if (*cap >= max)
		return NULL;
	if (n > max)
		n = max;
	if ((m = realloc(a, n * size)) == NULL)
		return NULL;
	*cap = n;
	return m;
}

static int
name_find(const struct flow *f, const char *s, size_t n)
{
	uint32_t h = name_hash(s, n) & (NAME_SLOTS - 1);
	unsigned probe;

	for (probe = 0; probe < NAME_SLOTS; probe++) {
		int k = f->slot[(h + probe) & (NAME_SLOTS - 1)];

		if (k < 0)
			return -1;
		if (f->names[k].len == n && memcmp(f->names[k].s, s, n) == 0)
			return k;
	}
	return -1;
}

/* Taints name s with tags; returns its index, or -1 when the table is
 * full (the name is then not followed: fewer reports, never more). */
static int name_taint_b(struct flow *f, const char *s, size_t n,
    uint64_t tags, int parent, unsigned rule, uint64_t src_line, int built);

static int
name_taint(struct flow *f, const char *s, size_t n, uint64_t tags,
    int parent, unsigned rule, uint64_t src_line)
{
	return name_taint_b(f, s, n, tags, parent, rule, src_line,
	    parent >= 0 && f->names[parent].built);
}

static int
name_taint_b(struct flow *f, const char *s, size_t n, uint64_t tags,
    int parent, unsigned rule, uint64_t src_line, int built)
{
	uint32_t h;
	int k;

	if (n == 0 || tags == 0)
		return -1;
	if (n > FLOW_NAME_MAX)
		n = FLOW_NAME_MAX;
	if ((k = name_find(f, s, n)) >= 0) {
		struct name *nm = &f->names[k];
		uint64_t add = tags & ~nm->tags;
		size_t j;

		for (j = 0; add && j < 3; j++)
			if (nm->more_tags[j] == 0) {
				nm->more_tags[j] = add;
				nm->more_rule[j] = rule;
				nm->more_line[j] = src_line;
				break;
			}
		nm->tags |= tags;
		nm->built |= built;
		return k;
	}
	if (f->nnames == f->names_cap) {
		struct name *m = grow(f->names, &f->names_cap, sizeof(*m),
		    FLOW_MAX_NAMES);

		if (m == NULL)
			return -1;
		f->names = m;
	}
	k = (int)f->nnames++;
	memcpy(f->names[k].s, s, n);
	f->names[k].len = (unsigned char)n;
	f->names[k].tags = tags;
	f->names[k].line = f->s_line;
	f->names[k].parent = parent == k ? -1 : parent;
	f->names[k].rule = rule;
	f->names[k].src_line = src_line;
	f->names[k].func = 0;
	f->names[k].built = built;
	memset(f->names[k].more_tags, 0, sizeof(f->names[k].more_tags));
	h = name_hash(s, n) & (NAME_SLOTS - 1);
	while (f->slot[h] >= 0)
		h = (h + 1) & (NAME_SLOTS - 1);
	f->slot[h] = k;
	return k;
}

/* ---- tokens ---------------------------------------------------------------- */

static int
is_id0(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    c >= 0x80;
}

static int
is_id(unsigned char c)
{
	return is_id0(c) || (c >= '0' && c <= '9');
}

/* Words that are never a name a value lives in: in strcmp order, so that
 * the words of each first byte are together (kw_index; the order is
 * checked by check_flow through scan_flow_keywords_sorted). */
static const char *const keywords[] = {
	"False", "None", "String", "True", "_", "and", "any", "as", "async",
	"auto", "await", "bool", "break", "byte", "bytes", "case", "catch",
	"char", "class", "cls", "const", "continue", "declare", "def",
	"default", "defer", "delete", "dict", "die", "do", "done", "double",
	"echo", "elif", "else", "elsif", "end", "err", "error", "except",
	"exit", "export", "false", "fi", "final", "finally", "float", "fn",
	"for", "foreach", "from", "func", "function", "global", "go", "if",
	"import", "in", "instanceof", "int", "interface", "is", "lambda",
	"let", "list", "local", "long", "map", "mut", "my", "new", "nil",
	"nonlocal", "not", "null", "object", "of", "or", "our", "package",
	"pass", "print", "private", "protected", "pub", "public", "puts",
	"raise", "range", "readonly", "return", "self", "static", "str",
	"string", "struct", "sub", "super", "switch", "then", "this", "throw",
	"true", "try", "type", "typeof", "undef", "undefined", "unless",
	"unset", "until", "val", "var", "void", "while", "with", "yield",
};

#define NKEYWORDS (sizeof(keywords) / sizeof(keywords[0]))
_Static_assert(NKEYWORDS <= KW_MAX && KW_MAX < 256,
    "keyword indexes are bytes");

/* Per first byte, the keywords that start with it: [from, to) of the
 * sorted list, and their lengths; made for each run (scan_flow_run), as
 * the sandboxed child may not wait on another thread. */
static void
kw_index(struct kw_index *x)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < NKEYWORDS; i++) {
		unsigned char c = (unsigned char)keywords[i][0];

		if (x->to[c] == 0)
			x->from[c] = (unsigned char)i;
		x->to[c] = (unsigned char)(i + 1);
		x->len[i] = (unsigned char)strlen(keywords[i]);
	}
}

/* Every name of every statement is looked up here: the keywords of its
 * first byte are few, and most lengths differ. */
static int
is_keyword(const struct flow *f, const char *s, size_t n)
{
	unsigned char c;
	size_t i;

	if (n == 0 || n > 12)
		return 0;
	c = (unsigned char)s[0];
	for (i = f->kw.from[c]; i < f->kw.to[c]; i++)
		if (f->kw.len[i] == n && memcmp(keywords[i], s, n) == 0)
			return 1;
	return 0;
}

int
scan_flow_keywords_sorted(void)
{
	size_t i;

	for (i = 1; i < NKEYWORDS; i++)
		if (strcmp(keywords[i - 1], keywords[i]) >= 0)
			return 0;
	return 1;
}

/* A name with a sigil ($bytes, @list, %map) is a variable whatever its
 * spelling. */
static int
tok_sigil(const struct flow *f, const struct tok *k)
{
	char c = f->t[k->off];

	return c == '$' || c == '@' || c == '%';
}

static int
tok_is(const struct flow *f, const struct tok *k, const char *s)
{
	size_t i;

	for (i = 0; i < k->len; i++)
		if (s[i] == '\0' || s[i] != f->t[k->off + i])
			return 0;
	return s[i] == '\0';
}

static void
tok_push(struct flow *f, uint64_t off, size_t len, int kind, int in_str)
{
	struct tok *k;

	if (f->ntok >= STMT_TOKENS || len == 0)
		return;
	k = &f->tok[f->ntok++];
	k->off = (uint32_t)off;
	k->len = (uint16_t)(len > 0xffff ? 0xffff : len);
	k->kind = (unsigned char)kind;
	k->depth = (unsigned char)(f->vdepth > 255 ? 255 : f->vdepth);
	k->in_str = (unsigned char)in_str;
}

/*
 * Copies a name token into buf as a chain ("a.b.c": `->`, `::`, `?.`
 * as `.`, sigils dropped); returns its length (at most FLOW_NAME_MAX).
 */
static size_t
chain_text(const struct flow *f, const struct tok *k, char *buf)
{
	size_t i, o = 0;

	for (i = 0; i < k->len && o < FLOW_NAME_MAX; i++) {
		unsigned char c = (unsigned char)f->t[k->off + i];

		if (is_id(c))
			buf[o++] = (char)c;
		else if ((c == '.' || c == ':' || c == '>') && o > 0 &&
		    buf[o - 1] != '.')
			buf[o++] = '.';
	}
	while (o > 0 && buf[o - 1] == '.')
		o--;
	return o;
}

/* Length of the first segment of a chain. */
static size_t
chain_head(const char *s, size_t n)
{
	const char *d = memchr(s, '.', n);

	return d ? (size_t)(d - s) : n;
}

/* ---- the statement ---------------------------------------------------------- */

/* Does the statement build a string: concatenation, formatting,
 * interpolation, a join? */
static int
stmt_build(const struct flow *f)
{
	static const char *const fns[] = {"format", "join", "sprintf",
		"Sprintf", "concat", "Join", "Format", "Concat", "printf"};
	char buf[FLOW_NAME_MAX];
	size_t i, j, n;

	for (i = 0; i < f->ntok; i++) {
		const struct tok *k = &f->tok[i];

		if (k->kind == T_NAME && k->in_str)
			return 1;
		/* An operator next to a string literal: "x." + h, "%s" % h. */
		if (k->kind == T_OP && (tok_is(f, k, "+") || tok_is(f, k, "%") ||
		    tok_is(f, k, ".") || tok_is(f, k, "..") ||
		    tok_is(f, k, ".=") || tok_is(f, k, "+=")) &&
		    ((i > 0 && f->tok[i - 1].kind == T_STR) ||
		    (i + 1 < f->ntok && f->tok[i + 1].kind == T_STR)))
			return 1;
		if (k->kind != T_NAME)
			continue;
		n = chain_text(f, k, buf);
		for (j = 0; j < sizeof(fns) / sizeof(fns[0]); j++) {
			size_t m = strlen(fns[j]);

			if (n >= m && memcmp(buf + n - m, fns[j], m) == 0 &&
			    (n == m || buf[n - m - 1] == '.'))
				return 1;
		}
	}
	return 0;
}

/* The taint a statement reads, and one name or atom it came from. */
struct input {
	uint64_t tags;
	int name;          /* a tainted name it uses, or -1 */
	unsigned rule;     /* when name is -1: the source atom's rule */
	uint64_t src_line;
	int built;         /* the value is built into a string here or before */
};

/* The first atom that may overlap [s, e). */
static size_t
atom_lower(const struct flow *f, uint64_t s)
{
	size_t lo = 0, hi = f->na, back = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->a[mid].off < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Atoms that start before s may still reach into it (a view's
	 * atom spans its line). */
	while (lo > 0 && back < 64) {
		lo--;
		back++;
	}
	return lo;
}

/* Is the atom inside one of the statement's comments? */
static int
in_comment(const struct flow *f, const struct flow_atom *a)
{
	size_t i;

	for (i = 0; i < f->ncmt; i++)
		if (a->off >= f->cmt_s[i] && a->end <= f->cmt_e[i])
			return 1;
	return 0;
}

/* The tags of the statement's atoms, leaving out those with any bit of
 * `skip` (the sink of the condition being decided). */
static uint64_t
stmt_atoms(const struct flow *f, uint64_t s, uint64_t e, uint64_t skip,
    unsigned *rule, uint64_t *line, int want_src)
{
	uint64_t tags = 0;
	size_t i;
	int got = 0;

	for (i = atom_lower(f, s); i < f->na && f->a[i].off < e; i++) {
		const struct flow_atom *a = &f->a[i];

		if (a->end <= s || (a->tags & skip) || in_comment(f, a))
			continue;
		tags |= a->tags;
		if (!got && rule != NULL &&
		    (!want_src || (a->tags & f->from_all))) {
			*rule = a->rule;
			*line = a->line;
			got = 1;
		}
	}
	return tags;
}

/* The taint of the names the statement uses, from token `from` on. */
static void
stmt_uses_to(const struct flow *f, size_t from, size_t to, uint64_t want,
    struct input *in);

static void
stmt_uses(const struct flow *f, size_t from, struct input *in)
{
	stmt_uses_to(f, from, f->ntok, 0, in);
}

/* The taint of the names in tokens [from, to); with want, the name
 * recorded is one that carries a bit of it. */
static void
stmt_uses_to(const struct flow *f, size_t from, size_t to, uint64_t want,
    struct input *in)
{
	char buf[FLOW_NAME_MAX];
	size_t i, n, cut;
	int k;

	for (i = from; i < to; i++) {
		if (f->tok[i].kind != T_NAME)
			continue;
		n = chain_text(f, &f->tok[i], buf);
		/* Every prefix of the chain at a dot: `env.copy` uses env. */
		for (cut = 0; cut < n;) {
			const char *d = memchr(buf + cut, '.', n - cut);
			size_t plen = d ? (size_t)(d - buf) : n;

			if (plen < n || tok_sigil(f, &f->tok[i]) ||
			    !is_keyword(f, buf, plen)) {
				k = name_find(f, buf, plen);
				if (k >= 0 && f->names[k].tags) {
					in->tags |= f->names[k].tags;
					if (in->name < 0 || (want &&
					    !(f->names[in->name].tags & want) &&
					    (f->names[k].tags & want)))
						in->name = k;
				}
			}
			cut = plen + 1;
		}
		/* obj.method(): a method whose return value is tainted. */
		if (i + 1 < f->ntok && tok_is(f, &f->tok[i + 1], "(")) {
			const char *d = memrchr(buf, '.', n);

			if (d != NULL) {
				k = name_find(f, d + 1, n - (size_t)(d + 1 - buf));
				if (k >= 0 && f->names[k].func) {
					in->tags |= f->names[k].tags;
					if (in->name < 0 || (want &&
					    !(f->names[in->name].tags & want) &&
					    (f->names[k].tags & want)))
						in->name = k;
				}
			}
		}
	}
}

/* Index of the top-level assignment operator, or ntok. */
static size_t
stmt_assign(const struct flow *f)
{
	static const char *const ops[] = {
		"=", ":=", "+=", "-=", "|=", ".=", "||=", "&&=", "?\?=", "<<=",
		"*=", "^=", "<-",
	};
	size_t i, j;

	for (i = 0; i < f->ntok; i++) {
		const struct tok *k = &f->tok[i];

		if (k->kind != T_OP)
			continue;
		for (j = 0; j < sizeof(ops) / sizeof(ops[0]); j++)
			if (tok_is(f, k, ops[j]) && (k->depth == 0 ||
			    j == 1))
				return i;
	}
	return f->ntok;
}

static int
name_source(const struct flow *f, const struct input *in, unsigned *rule,
    uint64_t *line)
{
	if (in->name >= 0) {
		*rule = f->names[in->name].rule;
		*line = f->names[in->name].src_line;
		return in->name;
	}
	*rule = in->rule;
	*line = in->src_line;
	return -1;
}

/* Taints the name of token i (its whole chain). */
static void
taint_tok(struct flow *f, size_t i, const struct input *in)
{
	char buf[FLOW_NAME_MAX];
	size_t n = chain_text(f, &f->tok[i], buf);
	unsigned rule;
	uint64_t line;
	int parent;

	if (n == 0 || (is_keyword(f, buf, n) && !tok_sigil(f, &f->tok[i])))
		return;
	parent = name_source(f, in, &rule, &line);
	(void)name_taint_b(f, buf, n, in->tags, parent, rule, line, in->built);
}

/* Words after which a `:` opens a block, not a type: `if x: y = z`. */
static int
block_word(const struct flow *f, const struct tok *k)
{
	static const char *const w[] = {
		"case", "default", "do", "elif", "else", "except", "finally",
		"for", "if", "try", "when", "while", "with",
	};
	size_t j;

	if (k->kind != T_NAME)
		return 0;
	for (j = 0; j < sizeof(w) / sizeof(w[0]); j++)
		if (tok_is(f, k, w[j]))
			return 1;
	return 0;
}

/* The assignment's targets: per comma-separated group at depth 0, its
 * last name that is not a keyword (`const x`, `String s`, `my $x`); with
 * a type after a `:` (`let x: Vec<T> =`, `const x: Record<K, V> =`,
 * `val x: Map<K, V> =`), the name before the `:` too. Both are targets:
 * a label (`l: x = v`) must not hide x. fn is called with each. */
static void
each_target(struct flow *f, size_t eq,
    void (*fn)(struct flow *, size_t, const void *), const void *arg)
{
	size_t i, last = SIZE_MAX, ann = SIZE_MAX, g0 = 0;

	for (i = 0; eq < f->ntok && i <= eq; i++) {
		const struct tok *k = &f->tok[i];

		if (i == eq || (k->kind == T_OP && k->depth == 0 &&
		    tok_is(f, k, ","))) {
			if (last != SIZE_MAX)
				fn(f, last, arg);
			if (ann != SIZE_MAX && ann != last)
				fn(f, ann, arg);
			last = ann = SIZE_MAX;
			g0 = i + 1;
			continue;
		}
		/* A type annotation: the name before the first `:`. */
		if (k->kind == T_OP && k->depth == 0 && tok_is(f, k, ":") &&
		    ann == SIZE_MAX && last != SIZE_MAX && g0 < f->ntok &&
		    !block_word(f, &f->tok[g0]))
			ann = last;
		if (k->kind == T_NAME && k->depth == 0 && !k->in_str) {
			char buf[FLOW_NAME_MAX];
			size_t n = chain_text(f, k, buf);

			if (n > 0 && (!is_keyword(f, buf, n) || tok_sigil(f, k)))
				last = i;
		}
	}
}

static void
taint_target(struct flow *f, size_t i, const void *in)
{
	taint_tok(f, i, in);
}

/* Marks target i as holding the sink atom *arg (a struct flow_atom). */
static void
sink_target(struct flow *f, size_t i, const void *arg)
{
	const struct flow_atom *a = arg;
	char buf[FLOW_NAME_MAX];
	size_t n = chain_text(f, &f->tok[i], buf), j;
	struct sink_name *sn;

	if (n == 0 || (is_keyword(f, buf, n) && !tok_sigil(f, &f->tok[i])))
		return;
	for (j = 0; j < f->nsinks; j++)
		if (f->sinks[j].len == n && memcmp(f->sinks[j].s, buf, n) == 0) {
			f->sinks[j].tags |= a->tags & f->to_all;
			return;
		}
	if (f->nsinks == SINK_NAMES)
		return; /* not followed: fewer reports, never more */
	sn = &f->sinks[f->nsinks++];
	memcpy(sn->s, buf, n);
	sn->len = (unsigned char)n;
	sn->tags = a->tags & f->to_all;
	sn->rule = a->rule;
}

static int
is_sink_name(const struct flow *f, const char *s, size_t n)
{
	size_t j;

	for (j = 0; j < f->nsinks; j++)
		if (f->sinks[j].len == n && memcmp(f->sinks[j].s, s, n) == 0)
			return 1;
	return 0;
}

/* The statement's first sink atom (outside comments), or NULL. */
static const struct flow_atom *
stmt_sink(const struct flow *f, uint64_t s, uint64_t e, uint64_t to)
{
	size_t i;

	for (i = atom_lower(f, s); i < f->na && f->a[i].off < e; i++)
		if (f->a[i].end > s && (f->a[i].tags & to) &&
		    !in_comment(f, &f->a[i]))
			return &f->a[i];
	return NULL;
}

/* Methods that send their arguments through their receiver (a request,
 * a socket, a process's standard input: Popen.communicate). A name
 * given a sink may hold a result rather than a handle (`host =
 * gethostbyname(h)`, `res = await fetch(u)`): its other methods read. */
static const char *const senders[] = {
	"body", "communicate", "emit", "end", "endheaders", "form", "json",
	"patch", "post", "print", "printf", "println", "put", "putheader",
	"puts", "request", "send", "sendBeacon", "send_bytes", "send_form",
	"send_json", "send_string", "sendall", "sendmsg", "sendto",
	"set_form_data", "upload", "write", "writeBytes", "writeObject",
	"writeUTF", "write_all", "writelines",
};

/* A request's fields that hold what it sends. */
static const char *const body_fields[] = {
	"body", "content", "data", "entity", "form", "json", "payload",
};

/* Is s (n bytes) one of the nv words of v? */
static int
in_words(const char *const *v, size_t nv, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < nv; i++)
		if (strlen(v[i]) == n && memcmp(v[i], s, n) == 0)
			return 1;
	return 0;
}

#define NWORDS(v) (sizeof(v) / sizeof((v)[0]))

static int
is_body(const char *s, size_t n)
{
	return in_words(body_fields, NWORDS(body_fields), s, n);
}

static int
is_sender(const char *s, size_t n)
{
	return in_words(senders, NWORDS(senders), s, n);
}

/* The sink tags (with bits of to) of the names given a sink that are a
 * proper prefix of chain buf at a dot (`req.socket.write` is req's and
 * req.socket's); the first one's rule in *rule. */
static uint64_t
sink_prefix(const struct flow *f, const char *buf, size_t n, uint64_t to,
    unsigned *rule)
{
	uint64_t tags = 0;
	size_t j, cut;

	for (cut = 0; cut < n; cut++) {
		if (buf[cut] != '.')
			continue;
		for (j = 0; j < f->nsinks; j++)
			if ((f->sinks[j].tags & to) && f->sinks[j].len == cut &&
			    memcmp(f->sinks[j].s, buf, cut) == 0) {
				if (tags == 0)
					*rule = f->sinks[j].rule;
				tags |= f->sinks[j].tags & to;
			}
	}
	return tags;
}

/*
 * The sinks the statement reaches through names given a sink: a sending
 * call (senders) on one (`req.write(data)`), or an assignment to one's
 * field (`req.body = data`). *at is the call's or the field's token, *rule
 * the sink's rule, and [*a0, *a1) the tokens that feed it: the call's
 * arguments, or the assigned value. The first such place only.
 */
static uint64_t
stmt_recv_sinks(const struct flow *f, uint64_t to, size_t eq, size_t *at,
    unsigned *rule, size_t *a0, size_t *a1)
{
	char buf[FLOW_NAME_MAX];
	const char *d;
	uint64_t tags;
	size_t i, n;

	if (f->nsinks == 0)
		return 0;
	/* req.body = data (a body's field: not req.headers[k] = v) */
	if (eq < f->ntok && f->tok[eq].depth == 0)
		for (i = 0; i < eq; i++) {
			if (f->tok[i].kind != T_NAME || f->tok[i].depth != 0)
				continue;
			n = chain_text(f, &f->tok[i], buf);
			d = memrchr(buf, '.', n);
			if (d == NULL || !is_body(d + 1,
			    n - (size_t)(d + 1 - buf)))
				continue;
			if ((tags = sink_prefix(f, buf, n, to, rule)) != 0) {
				*at = i;
				*a0 = eq + 1;
				*a1 = f->ntok;
				return tags;
			}
		}
	for (i = 0; i + 1 < f->ntok; i++) {
		if (f->tok[i].kind != T_NAME || !tok_is(f, &f->tok[i + 1], "("))
			continue;
		n = chain_text(f, &f->tok[i], buf);
		d = memrchr(buf, '.', n);
		if (d == NULL || !is_sender(d + 1, n - (size_t)(d + 1 - buf)) ||
		    (tags = sink_prefix(f, buf, n, to, rule)) == 0)
			continue;
		*at = i;
		*a0 = i + 2;
		for (*a1 = *a0; *a1 < f->ntok &&
		    f->tok[*a1].depth > f->tok[i + 1].depth; (*a1)++)
			;
		return tags;
	}
	return 0;
}

/* The line of token i of the statement. */
static uint64_t
tok_line(const struct flow *f, size_t i)
{
	uint64_t line = f->s_line, o;

	for (o = f->s_off; o < f->tok[i].off; o++)
		line += f->t[o] == '\n';
	return line;
}

/* The assignment's targets (each_target) take the value's taint. */
static void
taint_targets(struct flow *f, size_t eq, const struct input *in)
{
	size_t i, i0 = 0;

	while (i0 < eq && f->tok[i0].kind == T_NAME &&
	    is_keyword(f, f->t + f->tok[i0].off, f->tok[i0].len))
		i0++;
	each_target(f, eq, taint_target, in);
	/* Destructuring: `const {a, b} = x`, `[a, b] = x`. */
	if (eq < f->ntok && i0 < eq && (tok_is(f, &f->tok[i0], "{") ||
	    tok_is(f, &f->tok[i0], "[") || tok_is(f, &f->tok[i0], "(")))
		for (i = 0; i < eq; i++)
			if (f->tok[i].kind == T_NAME && f->tok[i].depth >= 1 &&
			    !f->tok[i].in_str)
				taint_tok(f, i, in);
	/* (data += c) inside an arrow's parentheses. */
	for (i = eq < f->ntok ? eq + 1 : 1; i < f->ntok; i++)
		if (f->tok[i].kind == T_OP && f->tok[i].depth > 0 &&
		    (tok_is(f, &f->tok[i], "+=") || tok_is(f, &f->tok[i], ".=") ||
		    tok_is(f, &f->tok[i], "||=") || tok_is(f, &f->tok[i], "|=") ||
		    tok_is(f, &f->tok[i], "<<=")) && f->tok[i - 1].kind == T_NAME)
			taint_tok(f, i - 1, in);
	/* A walrus inside brackets: the name before it. */
	if (eq < f->ntok && eq > 0 && f->tok[eq].depth > 0 &&
	    f->tok[eq - 1].kind == T_NAME)
		taint_tok(f, eq - 1, in);
}

/* Methods and functions that put their argument into their receiver or
 * their first argument. */
static const char *const mutators[] = {
	"append", "extend", "update", "push", "unshift", "add", "put",
	"set", "insert", "concat", "write", "writelines", "merge",
	"store", "Set", "Add", "Write", "WriteString", "assign", "putAll",
	"setdefault", "appendChild", "send_keys",
};

static int
is_mutator(const char *s, size_t n)
{
	return in_words(mutators, NWORDS(mutators), s, n);
}

static void
taint_mutated(struct flow *f, const struct input *in)
{
	char buf[FLOW_NAME_MAX];
	size_t i, n;

	for (i = 0; i + 1 < f->ntok; i++) {
		const struct tok *k = &f->tok[i];
		const char *d;
		size_t rlen;

		if (k->kind != T_NAME)
			continue;
		/* `x << t` (Ruby, C++ streams). */
		if (f->tok[i + 1].kind == T_OP && tok_is(f, &f->tok[i + 1],
		    "<<")) {
			taint_tok(f, i, in);
			continue;
		}
		if (!(f->tok[i + 1].kind == T_OP && tok_is(f, &f->tok[i + 1],
		    "(")))
			continue;
		n = chain_text(f, k, buf);
		d = n ? memrchr(buf, '.', n) : NULL;
		if (d == NULL)
			continue;
		rlen = (size_t)(d - buf);
		if (!is_mutator(d + 1, n - rlen - 1))
			continue;
		/* Object.assign(x, t): the first argument (io.Copy below). */
		if (rlen == 6 && memcmp(buf, "Object", 6) == 0) {
			if (i + 2 < f->ntok && f->tok[i + 2].kind == T_NAME)
				taint_tok(f, i + 2, in);
			continue;
		}
		/* req.write(data) sent data: req does not hold it after */
		if (is_sink_name(f, buf, rlen))
			continue;
		if (!is_keyword(f, buf, chain_head(buf, rlen)) || rlen >
		    chain_head(buf, rlen)) {
			unsigned rule;
			uint64_t line;
			int parent = name_source(f, in, &rule, &line);

			(void)name_taint(f, buf, rlen, in->tags, parent, rule,
			    line);
		}
	}
	for (i = 0; i + 2 < f->ntok; i++)
		if (f->tok[i].kind == T_NAME && tok_is(f, &f->tok[i], "io.Copy")
		    && f->tok[i + 2].kind == T_NAME)
			taint_tok(f, i + 2, in);
}

/* Loop variables and block parameters. */
static void
taint_loop_vars(struct flow *f, const struct input *in)
{
	size_t i, j;

	for (i = 0; i < f->ntok; i++) {
		const struct tok *k = &f->tok[i];

		/* with open(p) as f, except ... as e, import x as y */
		if (k->kind == T_NAME && tok_is(f, k, "as") && i + 1 < f->ntok &&
		    f->tok[i + 1].kind == T_NAME)
			taint_tok(f, i + 1, in);
		if (k->kind == T_NAME && (tok_is(f, k, "for") ||
		    tok_is(f, k, "foreach"))) {
			for (j = i + 1; j < f->ntok; j++) {
				const struct tok *v = &f->tok[j];

				if (v->kind == T_NAME && (tok_is(f, v, "in") ||
				    tok_is(f, v, "of") || tok_is(f, v, "as")))
					break;
				if (v->kind == T_OP && (tok_is(f, v, ":=") ||
				    tok_is(f, v, "=")))
					break;
				if (v->kind == T_NAME)
					taint_tok(f, j, in);
			}
			/* PHP: foreach ($x as $k => $v). */
			for (; j < f->ntok; j++)
				if (f->tok[j].kind == T_NAME && j > 0 &&
				    tok_is(f, &f->tok[j - 1], "as"))
					taint_tok(f, j, in);
				else if (f->tok[j].kind == T_NAME && j > 0 &&
				    tok_is(f, &f->tok[j - 1], "=>"))
					taint_tok(f, j, in);
			return;
		}
		/* |k, v| after `do` or a brace. */
		if (k->kind == T_OP && tok_is(f, k, "|") && i > 0 &&
		    (tok_is(f, &f->tok[i - 1], "do") ||
		    tok_is(f, &f->tok[i - 1], "{"))) {
			for (j = i + 1; j < f->ntok && f->tok[j].kind != T_OP;
			    j++)
				taint_tok(f, j, in);
			for (; j < f->ntok && !tok_is(f, &f->tok[j], "|");
			    j++)
				if (f->tok[j].kind == T_NAME)
					taint_tok(f, j, in);
		}
		/* (k, v) => and k => */
		if (k->kind == T_OP && tok_is(f, k, "=>") && i > 0) {
			if (f->tok[i - 1].kind == T_NAME) {
				taint_tok(f, i - 1, in);
			} else if (tok_is(f, &f->tok[i - 1], ")")) {
				unsigned d = f->tok[i - 1].depth;

				for (j = i - 1; j > 0; j--) {
					if (f->tok[j - 1].kind == T_NAME &&
					    f->tok[j - 1].depth > d)
						taint_tok(f, j - 1, in);
					if (f->tok[j - 1].kind == T_OP &&
					    f->tok[j - 1].depth <= d &&
					    tok_is(f, &f->tok[j - 1], "("))
						break;
				}
			}
		}
	}
}

static int
func_find(const struct flow *f, const char *s, size_t n)
{
	uint32_t h = name_hash(s, n) & (FUNC_SLOTS - 1);
	unsigned probe;

	for (probe = 0; probe < FUNC_SLOTS; probe++) {
		int k = f->fslot[(h + probe) & (FUNC_SLOTS - 1)];

		if (k < 0)
			return -1;
		if (f->funcs[k].len == n && memcmp(f->funcs[k].s, s, n) == 0)
			return k;
	}
	return -1;
}

/* A new function s (func_find found none): its index, or -1 if full. */
static int
func_add(struct flow *f, const char *s, size_t n)
{
	uint32_t h = name_hash(s, n) & (FUNC_SLOTS - 1);
	struct func *fn;

	if (f->nfuncs == f->funcs_cap) {
		struct func *m = grow(f->funcs, &f->funcs_cap, sizeof(*m),
		    FLOW_MAX_FUNCS);

		if (m == NULL)
			return -1;
		f->funcs = m;
	}
	while (f->fslot[h] >= 0)
		h = (h + 1) & (FUNC_SLOTS - 1);
	f->fslot[h] = (int)f->nfuncs;
	fn = &f->funcs[f->nfuncs];
	memset(fn, 0, sizeof(*fn));
	memcpy(fn->s, s, n);
	fn->len = (unsigned char)n;
	return (int)f->nfuncs++;
}

/* The parameters: each name that follows `(` or `,` at the depth of the
 * group opened at token `open`. */
static void
func_params(struct flow *f, struct func *fn, size_t open)
{
	unsigned d = f->tok[open].depth + 1u;
	char buf[FLOW_NAME_MAX];
	size_t i, n;

	for (i = open + 1; i < f->ntok; i++) {
		const struct tok *k = &f->tok[i];

		if (k->kind == T_OP && k->depth < d)
			break;
		if (k->kind != T_NAME || k->depth != d ||
		    fn->nparams == FUNC_PARAMS)
			continue;
		if (!(tok_is(f, &f->tok[i - 1], "(") ||
		    tok_is(f, &f->tok[i - 1], ",") ||
		    tok_is(f, &f->tok[i - 1], "*") ||
		    tok_is(f, &f->tok[i - 1], "**") ||
		    tok_is(f, &f->tok[i - 1], "...")))
			continue;
		n = chain_text(f, k, buf);
		if (n == 0 || is_keyword(f, buf, n))
			continue;
		memcpy(fn->p[fn->nparams], buf, n);
		fn->plen[fn->nparams++] = (unsigned char)n;
	}
}

/* The column of the statement's first token on its line. Statements come
 * in the text's order, so the line's start is found from the last one's:
 * each byte is looked at once per reading, also in one long line. */
static uint64_t
stmt_indent(struct flow *f)
{
	uint64_t o = f->tok[0].off, p;

	if (o < f->ls_at) {
		for (p = o; p > 0 && f->t[p - 1] != '\n' && f->t[p - 1] != '\r';
		    p--)
			;
		f->ls = p;
	} else {
		for (p = f->ls_at; p < o; p++)
			if (f->t[p] == '\n' || f->t[p] == '\r')
				f->ls = p + 1;
	}
	f->ls_at = o;
	return o - f->ls;
}

/* A definition starts the statement: def f(, function f(, func f(,
 * func (r T) f(, fn f(, sub f, f = function(, f = (a) =>, and a method
 * `name(args) {`. Records it and makes it the current function. */
static void
stmt_func(struct flow *f)
{
	size_t i = 0, name = SIZE_MAX, open = SIZE_MAX;
	char buf[FLOW_NAME_MAX];
	struct func *fn;
	size_t n;
	int k;

	while (i < f->ntok && f->tok[i].kind == T_NAME &&
	    (tok_is(f, &f->tok[i], "async") || tok_is(f, &f->tok[i], "export") ||
	    tok_is(f, &f->tok[i], "public") || tok_is(f, &f->tok[i], "static") ||
	    tok_is(f, &f->tok[i], "private") || tok_is(f, &f->tok[i], "pub") ||
	    tok_is(f, &f->tok[i], "const") || tok_is(f, &f->tok[i], "let") ||
	    tok_is(f, &f->tok[i], "var") || tok_is(f, &f->tok[i], "default")))
		i++;
	if (i + 1 < f->ntok && f->tok[i].kind == T_NAME &&
	    (tok_is(f, &f->tok[i], "def") || tok_is(f, &f->tok[i], "function") ||
	    tok_is(f, &f->tok[i], "func") || tok_is(f, &f->tok[i], "fn") ||
	    tok_is(f, &f->tok[i], "sub") || tok_is(f, &f->tok[i], "proc"))) {
		i++;
		/* Go's receiver: func (r *T) Name(...) */
		if (tok_is(f, &f->tok[i], "(")) {
			unsigned d = f->tok[i].depth;

			for (i++; i < f->ntok && !(tok_is(f, &f->tok[i], ")") &&
			    f->tok[i].depth == d); i++)
				;
			i++;
		}
		if (i < f->ntok && f->tok[i].kind == T_NAME)
			name = i;
		if (name != SIZE_MAX && name + 1 < f->ntok &&
		    tok_is(f, &f->tok[name + 1], "("))
			open = name + 1;
	} else if (i + 2 < f->ntok && f->tok[i].kind == T_NAME &&
	    f->tok[i + 1].kind == T_OP && tok_is(f, &f->tok[i + 1], "=")) {
		/* f = function (a) / f = async (a) => / f = (a) => / f = a => */
		size_t j = i + 2;

		while (j < f->ntok && (tok_is(f, &f->tok[j], "async") ||
		    tok_is(f, &f->tok[j], "function")))
			j++;
		if (j < f->ntok && tok_is(f, &f->tok[j], "(") &&
		    (j > i + 2 || f->ends_block)) {
			name = i;
			open = j;
		} else if (j < f->ntok && tok_is(f, &f->tok[j], "(")) {
			size_t m;

			for (m = j; m < f->ntok; m++)
				if (tok_is(f, &f->tok[m], "=>")) {
					name = i;
					open = j;
					break;
				}
		} else if (j + 1 < f->ntok && f->tok[j].kind == T_NAME &&
		    tok_is(f, &f->tok[j + 1], "=>")) {
			name = i;
		}
	} else if (f->ends_block && i + 1 < f->ntok &&
	    f->tok[i].kind == T_NAME && tok_is(f, &f->tok[i + 1], "(") &&
	    f->tok[0].depth == 0) {
		/* name(args) {, name(args): T {, name(args) -> T { : not
		 * name(x).then(() => {, whose `(` is followed by more. */
		unsigned d = f->tok[i + 1].depth;
		size_t j = i + 2;

		while (j < f->ntok && !(tok_is(f, &f->tok[j], ")") &&
		    f->tok[j].depth == d))
			j++;
		n = chain_text(f, &f->tok[i], buf);
		if (n > 0 && !is_keyword(f, buf, n) &&
		    memchr(buf, '.', n) == NULL && j < f->ntok && (j + 1 == f->ntok ||
		    tok_is(f, &f->tok[j + 1], "{") ||
		    tok_is(f, &f->tok[j + 1], ":") ||
		    tok_is(f, &f->tok[j + 1], "->") ||
		    tok_is(f, &f->tok[j + 1], "throws"))) {
			name = i;
			open = i + 1;
		}
	}
	if (name == SIZE_MAX)
		return;
	f->is_def = 1;
	n = chain_text(f, &f->tok[name], buf);
	if (n == 0 || is_keyword(f, buf, n))
		return;
	/* this.name = ... and self.name: the method's own name. */
	if (memrchr(buf, '.', n) != NULL) {
		const char *d = memrchr(buf, '.', n);
		size_t m = n - (size_t)(d + 1 - buf);

		memmove(buf, d + 1, m);
		n = m;
	}
	if ((k = func_find(f, buf, n)) < 0) {
		if ((k = func_add(f, buf, n)) < 0)
			return;
		if (open != SIZE_MAX)
			func_params(f, &f->funcs[k], open);
	}
	fn = &f->funcs[k];
	fn->indent = stmt_indent(f);
	if (open == SIZE_MAX && fn->nparams == 0 && name + 3 < f->ntok &&
	    f->tok[name + 2].kind == T_NAME) {
		size_t m = chain_text(f, &f->tok[name + 2], fn->p[0]);

		if (m > 0)
			fn->plen[fn->nparams++] = (unsigned char)m;
	}
	f->cur_func = k;
}

/* Calls of known functions taint their parameters. */
static void
taint_calls(struct flow *f, const struct input *in)
{
	char buf[FLOW_NAME_MAX];
	size_t i, n;
	unsigned rule;
	uint64_t line;
	int parent = name_source(f, in, &rule, &line), k;

	for (i = 0; i + 1 < f->ntok; i++) {
		const char *d;

		if (f->tok[i].kind != T_NAME || !tok_is(f, &f->tok[i + 1], "("))
			continue;
		n = chain_text(f, &f->tok[i], buf);
		d = n ? memrchr(buf, '.', n) : NULL;
		if (d != NULL) {
			size_t m = n - (size_t)(d + 1 - buf);

			memmove(buf, d + 1, m);
			n = m;
		}
		if ((k = func_find(f, buf, n)) < 0)
			continue;
		/* Each parameter gets what its own argument carries. */
		{
			unsigned dep = f->tok[i + 1].depth;
			size_t at = i + 2, argn = 0;

			while (at <= f->ntok && argn < FUNC_PARAMS) {
				size_t end = at;
				struct input arg = {0, -1, 0, 0, 0};

				/* To this argument's comma (one level in) or
				 * the call's closing parenthesis. */
				while (end < f->ntok && !(f->tok[end].kind == T_OP &&
				    ((f->tok[end].depth == dep &&
				    tok_is(f, &f->tok[end], ")")) ||
				    (f->tok[end].depth == dep + 1 &&
				    tok_is(f, &f->tok[end], ",")))))
					end++;
				stmt_uses_to(f, at, end, 0, &arg);
				arg.tags |= stmt_atoms(f, f->tok[at < f->ntok ? at :
				    f->ntok - 1].off, end < f->ntok ?
				    f->tok[end].off + 1 : f->n, 0, NULL, NULL, 0) &
				    f->from_all;
				if (arg.tags != 0 && argn < f->funcs[k].nparams) {
					if (arg.name >= 0)
						parent = name_source(f, &arg, &rule,
						    &line);
					(void)name_taint(f, f->funcs[k].p[argn],
					    f->funcs[k].plen[argn], arg.tags,
					    parent, rule, line);
				}
				argn++;
				if (end >= f->ntok || tok_is(f, &f->tok[end], ")"))
					break;
				at = end + 1;
			}
		}
	}
}

/* "env, payload": the names from the source to the sink; returns how
 * many there are (at most 6 are followed). */
static unsigned
through(const struct flow *f, int k, char *out, size_t cap)
{
	int chain[6];
	size_t n = 0, o = 0, i;

	while (k >= 0 && n < 6) {
		size_t j;
		int seen = 0;

		for (j = 0; j < n; j++)
			seen |= chain[j] == k;
		if (seen) {
			k = -1;
			break;
		}
		chain[n++] = k;
		k = f->names[k].parent;
	}
	out[0] = '\0';
	for (i = n; i-- > 0 && o + 4 < cap;) {
		const struct name *nm = &f->names[chain[i]];
		size_t len = nm->len;

		if (o > 0) {
			out[o++] = ',';
			out[o++] = ' ';
		}
		if (len > cap - o - 1)
			len = cap - o - 1;
		memcpy(out + o, nm->s, len);
		o += len;
		out[o] = '\0';
	}
	/* Beyond what is named: how far it went. */
	while (k >= 0 && n < 64) {
		k = f->names[k].parent;
		n++;
	}
	return (unsigned)n;
}

static void
stmt_report(struct flow *f, uint64_t s, uint64_t e, const struct input *used,
    size_t eq)
{
	size_t ci;

	for (ci = 0; ci < f->nc && !f->stopped; ci++) {
		const struct flow_cond *c = &f->c[ci];
		struct flow_report r;
		struct input in, args = {0, -1, 0, 0, 0};
		const struct input *u = used;
		const struct flow_atom *a;
		unsigned sink_rule = 0, src_rule = 0, rrule = 0;
		uint64_t sink_line = 0, src_line = 0, at, as = s, ae = e;
		size_t rat = 0, a0 = 0, a1 = f->ntok;

		if (c->kind != FLOW_DATA || f->nrep[ci] >= FLOW_MAX_REPORTS)
			continue;
		if ((a = stmt_sink(f, s, e, c->to)) == NULL) {
			/* Through a name given the sink: only what the call's
			 * arguments or the field's value carry feeds it
			 * (`tip = sock.read()` sends nothing). */
			if (!stmt_recv_sinks(f, c->to, eq, &rat, &rrule, &a0,
			    &a1))
				continue;
			stmt_uses_to(f, a0, a1, 0, &args);
			u = &args;
			as = a0 < f->ntok ? f->tok[a0].off : e;
			ae = a1 < f->ntok ? f->tok[a1].off : e;
		}
		in = *u;
		if (in.name >= 0 && !(f->names[in.name].tags & c->from)) {
			struct input again = {0, -1, 0, 0, 0};

			stmt_uses_to(f, a0, a1, c->from, &again);
			if (again.name >= 0 && (f->names[again.name].tags &
			    c->from))
				in.name = again.name;
		}
		/* The atoms that are not this condition's sink feed it. */
		in.tags |= stmt_atoms(f, as, ae, c->to, &src_rule, &src_line, 1);
		if (!(in.tags & c->from))
			continue;
		if (in.name < 0 || !(u->tags & c->from)) {
			in.name = -1;
			in.rule = src_rule;
			in.src_line = src_line;
		}
		if (a != NULL) {
			sink_rule = a->rule;
			sink_line = a->line;
			at = a->off;
		} else {
			sink_rule = rrule;
			sink_line = tok_line(f, rat);
			at = f->tok[rat].off;
		}
		if (c->built && !stmt_build(f) &&
		    !(in.name >= 0 && f->names[in.name].built))
			continue;
		if (f->last_rep_line[ci] == sink_line)
			continue;
		f->last_rep_line[ci] = sink_line;
		memset(&r, 0, sizeof(r));
		r.cond = ci;
		r.line = sink_line;
		r.off = at;
		r.to_rule = sink_rule;
		if (in.name >= 0) {
			const struct name *nm = &f->names[in.name];
			size_t j;

			r.from_rule = nm->rule;
			r.from_line = nm->src_line;
			uint64_t first = nm->tags & ~nm->more_tags[0] &
			    ~nm->more_tags[1] & ~nm->more_tags[2];

			for (j = 0; j < 3 && !(first & c->from); j++)
				if (nm->more_tags[j] & c->from) {
					r.from_rule = nm->more_rule[j];
					r.from_line = nm->more_line[j];
					break;
				}
			r.hops = through(f, in.name, r.through,
			    sizeof(r.through));
		} else {
			r.from_rule = in.rule;
			r.from_line = in.src_line;
		}
		r.minified = f->minified;
		f->nrep[ci]++;
		if (f->cb(f->ctx, &r) != 0)
			f->stopped = 1;
	}
}

/* return x, yield x, a callback's resolve(x), cb(null, x), done(x). */
static int
stmt_returns(const struct flow *f)
{
	static const char *const w[] = {"return", "resolve", "callback", "cb",
		"done", "yield"};
	size_t i;

	if (f->tok[0].kind != T_NAME)
		return 0;
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (tok_is(f, &f->tok[0], w[i]))
			return 1;
	return 0;
}

/*
 * A function's value without `return`: a Ruby, Rust or Perl body's last
 * expression, a shell function's output. Taken as: an expression
 * statement (no assignment, no control keyword) holding a source atom, a
 * lone name, or output (echo, printf, puts, print, Write-Output).
 */
static int
implicit_return(const struct flow *f, uint64_t s, uint64_t e)
{
	static const char *const ctl[] = {"if", "elif", "elsif", "while",
		"for", "foreach", "switch", "case", "unless", "until", "import",
		"from", "require", "use", "include", "with"};
	static const char *const out[] = {"echo", "printf", "puts", "print",
		"Write-Output", "cat"};
	size_t i;

	if (f->tok[0].kind != T_NAME)
		return 0;
	for (i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++)
		if (tok_is(f, &f->tok[0], ctl[i]))
			return 0;
	if (f->ntok == 1)
		return 1;
	for (i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		if (tok_is(f, &f->tok[0], out[i]))
			return 1;
	return (stmt_atoms(f, s, e, 0, NULL, NULL, 0) & f->from_all) != 0;
}

/* Decides one statement: tokens f->tok[0, ntok) over [s, e). */
static void
stmt_end(struct flow *f, uint64_t e)
{
	uint64_t s = f->s_off;
	struct input used = {0, -1, 0, 0, 0}, in;
	size_t eq;

	if (f->ntok == 0 || f->stopped)
		goto out;
	/* A statement no deeper than the definition ends the function (a
	 * closing bracket or a chained call goes on with it). */
	if (f->cur_func >= 0 && f->tok[0].kind == T_NAME &&
	    stmt_indent(f) <= f->funcs[f->cur_func].indent)
		f->cur_func = -1;
	stmt_func(f);
	eq = stmt_assign(f);
	stmt_uses(f, eq < f->ntok && f->tok[eq].depth == 0 ? eq + 1 : 0,
	    &used);
	/* `req = https.request(...)`: req's methods are that sink. */
	if (!f->is_def && eq < f->ntok && f->tok[eq].depth == 0) {
		const struct flow_atom *a = stmt_sink(f, s, e, f->to_all);

		if (a != NULL)
			each_target(f, eq, sink_target, a);
	}
	if (f->report && !f->is_def) {
		size_t rat, a0, a1;
		unsigned rrule;

		if ((stmt_atoms(f, s, e, 0, NULL, NULL, 0) & f->to_all) ||
		    stmt_recv_sinks(f, f->to_all, eq, &rat, &rrule, &a0, &a1))
			stmt_report(f, s, e, &used, eq);
	}
	in = used;
	if (!f->is_def)
		in.tags |= stmt_atoms(f, s, e, 0, &in.rule, &in.src_line, 1) &
		    f->from_all;
	if (in.name >= 0 && !(used.tags & f->from_all))
		in.name = -1;
	if (in.tags == 0)
		goto out;
	in.built = stmt_build(f) ||
	    (used.name >= 0 && f->names[used.name].built);
	taint_targets(f, eq, &in);
	taint_mutated(f, &in);
	taint_loop_vars(f, &in);
	taint_calls(f, &in);
	/* What a function returns (return x, or a callback's resolve(x),
	 * cb(null, x)), its calls carry. */
	if (f->cur_func >= 0 && (stmt_returns(f) ||
	    (eq == f->ntok && !f->is_def && implicit_return(f, s, e)))) {
		const struct func *fn = &f->funcs[f->cur_func];
		unsigned rule;
		uint64_t line;
		int parent = name_source(f, &in, &rule, &line);

		int k = name_taint(f, fn->s, fn->len, in.tags, parent, rule,
		    line);

		if (k >= 0)
			f->names[k].func = 1;
	}
out:
	f->ntok = 0;
	f->ends_block = 0;
	f->is_def = 0;
	f->ncmt = 0;
}

/* ---- the reader --------------------------------------------------------------- */

static int
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

/* Is the previous token one after which `{` (or `/`) starts a value? */
static int
value_ctx(const struct flow *f)
{
	static const char *const after[] = {
		"=", "(", "[", ",", ":", "?", "...", ":=", "||", "&&", "+",
		"return", "{", "!", "&", "|", ";", "+=", "??", "@",
	};
	const struct tok *k;
	size_t i;

	if (f->ntok == 0)
		return 1;
	k = &f->tok[f->ntok - 1];
	for (i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		if (tok_is(f, k, after[i]))
			return 1;
	return 0;
}

/* `x := T{`, `let p = Point {`: a composite value after a type name. */
static int
composite_ctx(const struct flow *f)
{
	size_t i;

	if (f->ntok == 0 || f->tok[0].kind != T_NAME)
		return 0;
	if (tok_is(f, &f->tok[0], "for") || tok_is(f, &f->tok[0], "if") ||
	    tok_is(f, &f->tok[0], "while") || tok_is(f, &f->tok[0], "switch") ||
	    tok_is(f, &f->tok[0], "func") || tok_is(f, &f->tok[0], "fn") ||
	    tok_is(f, &f->tok[0], "match") || tok_is(f, &f->tok[0], "else") ||
	    tok_is(f, &f->tok[0], "select") || tok_is(f, &f->tok[0], "impl"))
		return 0;
	for (i = 0; i < f->ntok; i++)
		if (f->tok[i].kind == T_OP && f->tok[i].depth == 0 &&
		    (tok_is(f, &f->tok[i], "=") || tok_is(f, &f->tok[i], ":=")))
			return f->tok[f->ntok - 1].kind == T_NAME ||
			    tok_is(f, &f->tok[f->ntok - 1], "]");
	return 0;
}

static void
stmt_cut(struct flow *f, uint64_t at)
{
	stmt_end(f, at);
	f->s_off = at;
	f->s_line = f->line;
}

/* Does the statement go on past the newline at text[i]? */
static int
continues(const struct flow *f, size_t i)
{
	size_t j = i;
	unsigned char c;

	if (f->vdepth > 0)
		return 1;
	while (j > f->s_off && (is_space((unsigned char)f->t[j - 1]) ||
	    f->t[j - 1] == '\r'))
		j--;
	if (j > f->s_off) {
		c = (unsigned char)f->t[j - 1];
		if (c == '\\' || c == ',' || c == '+' || c == '|' ||
		    c == '.' || c == '=' || c == '(' || c == '[')
			return 1;
		if (c == '&' && j - 1 > f->s_off && f->t[j - 2] == '&')
			return 1;
	}
	for (j = i + 1; j < f->n && (is_space((unsigned char)f->t[j]) ||
	    f->t[j] == '\r'); j++)
		;
	if (j >= f->n)
		return 0;
	c = (unsigned char)f->t[j];
	if (c == '.' && !(j + 1 < f->n && f->t[j + 1] == '.'))
		return 1;
	if (c == ')' || c == ']' || c == '?')
		return 1;
	return (c == '&' || c == '|') && j + 1 < f->n && f->t[j + 1] == c;
}

/* Reads a string from its opening quote at i; returns the index after
 * it. Interpolations become name tokens. */
static size_t
read_string(struct flow *f, size_t i)
{
	char q = f->t[i];
	int triple = 0, multiline, interp_depth = 0;
	size_t n = f->n;

	if (i + 2 < n && f->t[i + 1] == q && f->t[i + 2] == q && q != '`') {
		triple = 1;
		i += 3;
	} else {
		i++;
	}
	multiline = triple || q == '`';
	while (i < n) {
		unsigned char c = (unsigned char)f->t[i];

		if (c == '\\' && i + 1 < n) {
			if (f->t[i + 1] == '\n')
				f->line++;
			i += 2;
			continue;
		}
		if (c == '\n') {
			if (!multiline)
				return i; /* unterminated: the line ends it */
			f->line++;
			i++;
			continue;
		}
		if (interp_depth == 0 && c == (unsigned char)q) {
			if (!triple)
				return i + 1;
			if (i + 2 < n && f->t[i + 1] == q && f->t[i + 2] == q)
				return i + 3;
		}
		if ((c == '$' || c == '#') && i + 1 < n &&
		    (f->t[i + 1] == '{' || f->t[i + 1] == '(')) {
			interp_depth++;
			i += 2;
			continue;
		}
		if (c == '{') {
			interp_depth++;
			i++;
			continue;
		}
		if ((c == '}' || c == ')') && interp_depth > 0) {
			interp_depth--;
			i++;
			continue;
		}
		if (c == '$' && i + 1 < n && is_id0((unsigned char)f->t[i + 1])) {
			size_t s = ++i;

			while (i < n && is_id((unsigned char)f->t[i]))
				i++;
			tok_push(f, s, i - s, T_NAME, 1);
			continue;
		}
		if (interp_depth > 0 && is_id0(c)) {
			size_t s = i;

			while (i < n && (is_id((unsigned char)f->t[i]) ||
			    (f->t[i] == '.' && i + 1 < n &&
			    is_id0((unsigned char)f->t[i + 1]))))
				i++;
			tok_push(f, s, i - s, T_NAME, 1);
			continue;
		}
		i++;
	}
	return i;
}

/* A JS regex literal from its `/` at i, if it is one there; else i. */
static size_t
read_regex(struct flow *f, size_t i)
{
	size_t j = i + 1;
	int cls = 0;

	if (f->lang != FLOW_LANG_SLASH || !value_ctx(f))
		return i;
	for (; j < f->n && f->t[j] != '\n'; j++) {
		if (f->t[j] == '\\') {
			j++;
			continue;
		}
		if (f->t[j] == '[')
			cls = 1;
		else if (f->t[j] == ']')
			cls = 0;
		else if (f->t[j] == '/' && !cls)
			return j + 1;
	}
	return i; /* no end on the line: a division after all */
}

static int
hash_comments(const struct flow *f)
{
	return f->lang == FLOW_LANG_HASH || f->lang == FLOW_LANG_BOTH;
}

static int
slash_comments(const struct flow *f)
{
	return f->lang == FLOW_LANG_SLASH || f->lang == FLOW_LANG_BOTH;
}

static void
open_bracket(struct flow *f, int value)
{
	if (f->bdepth < DEPTH_MAX) {
		f->vsaved[f->bdepth] = f->vdepth;
		f->bstack[f->bdepth++] = (unsigned char)value;
	} else {
		f->overflow++;
	}
	/* A block's statements are read on their own, even inside a
	 * call: foo(function () { a; b; }). */
	if (value)
		f->vdepth++;
	else
		f->vdepth = 0;
}

static void
close_bracket(struct flow *f)
{
	if (f->overflow > 0) {
		f->overflow--;
		return;
	}
	if (f->bdepth == 0)
		return;
	f->bdepth--;
	if (f->bstack[f->bdepth] == 0)
		f->vdepth = f->vsaved[f->bdepth];
	else if (f->vdepth > 0)
		f->vdepth--;
}

static const char *const ops3[] = {"===", "!==", "||=", "&&=", "?\?=",
	"<<=", ">>=", "..."};
static const char *const ops2[] = {"==", "!=", "<=", ">=", "=>", ":=", "+=",
	"-=", "*=", "/=", "|=", "&=", "^=", "%=", ".=", "||", "&&", "??",
	"<<", ">>", "->", "::", "=~", "**", "<-"};

static size_t
op_len(const char *p, size_t left)
{
	size_t i;

	for (i = 0; left >= 3 && i < sizeof(ops3) / sizeof(ops3[0]); i++)
		if (memcmp(p, ops3[i], 3) == 0)
			return 3;
	for (i = 0; left >= 2 && i < sizeof(ops2) / sizeof(ops2[0]); i++)
		if (memcmp(p, ops2[i], 2) == 0)
			return 2;
	return 1;
}

/* A comment [s, e): before the statement's first token it is no part of
 * the statement; after, its atoms are left out (16 are kept; past that
 * they count, which may only add reports). */
static void
comment(struct flow *f, size_t s, size_t e)
{
	if (f->ntok == 0) {
		f->s_off = e;
		return;
	}
	if (f->ncmt < 16) {
		f->cmt_s[f->ncmt] = s;
		f->cmt_e[f->ncmt++] = e;
	}
}

/* One reading of the whole text. */
static void
read_text(struct flow *f)
{
	size_t i = 0, n = f->n;

	f->line = 1;
	f->s_off = 0;
	f->s_line = 1;
	f->ntok = 0;
	f->bdepth = f->vdepth = f->overflow = 0;
	f->ends_block = 0;
	f->cur_func = -1;
	while (i < n && !f->stopped) {
		unsigned char c = (unsigned char)f->t[i];

		if (i - f->s_off > FLOW_STMT_MAX || f->ntok >= STMT_TOKENS) {
			f->vdepth = f->bdepth = f->overflow = 0;
			stmt_cut(f, i);
		}
		if (c == '\n' || c == '\r') {
			int lf = c == '\n';

			if (c == '\r' && i + 1 < n && f->t[i + 1] == '\n') {
				i++;
				lf = 1;
			}
			if (!continues(f, i))
				stmt_cut(f, i + 1);
			if (lf)
				f->line++;
			i++;
			if (f->ntok == 0) {
				f->s_off = i;
				f->s_line = f->line;
			}
			continue;
		}
		if (is_space(c)) {
			i++;
			continue;
		}
		if (c == '#' && hash_comments(f) && (i == 0 ||
		    is_space((unsigned char)f->t[i - 1]) || f->t[i - 1] == '\n' ||
		    f->t[i - 1] == ';' || f->t[i - 1] == '\r')) {
			size_t c0 = i;

			while (i < n && f->t[i] != '\n' && f->t[i] != '\r')
				i++;
			comment(f, c0, i);
			continue;
		}
		if (c == '/' && slash_comments(f) && i + 1 < n &&
		    f->t[i + 1] == '/') {
			size_t c0 = i;

			while (i < n && f->t[i] != '\n' && f->t[i] != '\r')
				i++;
			comment(f, c0, i);
			continue;
		}
		if (c == '/' && slash_comments(f) && i + 1 < n &&
		    f->t[i + 1] == '*') {
			size_t c0 = i;

			for (i += 2; i + 1 < n && !(f->t[i] == '*' &&
			    f->t[i + 1] == '/'); i++)
				if (f->t[i] == '\n')
					f->line++;
			i += 2;
			comment(f, c0, i < n ? i : n);
			continue;
		}
		if (c == '"' || c == '\'' ||
		    (c == '`' && !hash_comments(f))) {
			size_t s = i;

			tok_push(f, s, 1, T_STR, 0);
			i = read_string(f, i);
			continue;
		}
		if (c == '/') {
			size_t j = read_regex(f, i);

			if (j > i) {
				tok_push(f, i, 1, T_STR, 0);
				i = j;
				continue;
			}
		}
		if (is_id0(c) || ((c == '$' || c == '@' || c == '%') &&
		    i + 1 < n && (is_id0((unsigned char)f->t[i + 1]) ||
		    (f->t[i + 1] == '{' && i + 2 < n &&
		    is_id0((unsigned char)f->t[i + 2]))))) {
			size_t s = i;

			while (i < n && (f->t[i] == '$' || f->t[i] == '@' ||
			    f->t[i] == '%' || f->t[i] == '{') && i - s < 2)
				i++;
			while (i < n) {
				if (is_id((unsigned char)f->t[i])) {
					i++;
				} else if (i + 1 < n && f->t[i] == '.' &&
				    is_id0((unsigned char)f->t[i + 1])) {
					i++;
				} else if (i + 2 < n && ((f->t[i] == '-' &&
				    f->t[i + 1] == '>') || (f->t[i] == ':' &&
				    f->t[i + 1] == ':') || (f->t[i] == '?' &&
				    f->t[i + 1] == '.')) &&
				    is_id0((unsigned char)f->t[i + 2])) {
					i += 2;
				} else {
					break;
				}
			}
			if (f->t[s] == '$' && s + 1 < n && f->t[s + 1] == '{' &&
			    i < n && f->t[i] == '}')
				i++;
			tok_push(f, s, i - s, T_NAME, 0);
			continue;
		}
		if (c >= '0' && c <= '9') {
			while (i < n && is_id((unsigned char)f->t[i]))
				i++;
			continue;
		}
		if (c == '(' || c == '[') {
			tok_push(f, i, 1, T_OP, 0);
			open_bracket(f, 1);
			i++;
			continue;
		}
		if (c == '{') {
			int value = value_ctx(f) || composite_ctx(f);

			if (!value) {
				/* A block: what came before is a statement. */
				f->ends_block = 1;
				tok_push(f, i, 1, T_OP, 0);
				open_bracket(f, 0);
				i++;
				stmt_cut(f, i);
				continue;
			}
			tok_push(f, i, 1, T_OP, 0);
			open_bracket(f, 1);
			i++;
			continue;
		}
		if (c == ')' || c == ']' || c == '}') {
			int block = f->bdepth > 0 && f->overflow == 0 &&
			    f->bstack[f->bdepth - 1] == 0;

			close_bracket(f);
			tok_push(f, i, 1, T_OP, 0);
			i++;
			if (block)
				stmt_cut(f, i);
			continue;
		}
		if (c == ';' && f->vdepth == 0) {
			i++;
			stmt_cut(f, i);
			continue;
		}
		{
			size_t l = op_len(f->t + i, n - i);

			tok_push(f, i, l, T_OP, 0);
			i += l;
		}
	}
	if (!f->stopped)
		stmt_end(f, n);
}

/* ---- conditions by lines ------------------------------------------------------ */

static void
report_lines(struct flow *f, size_t ci, size_t first, size_t last,
    int unfollowed)
{
	struct flow_report r;

	if (f->last_rep_line[ci] == f->a[last].line ||
	    f->nrep[ci] >= FLOW_MAX_REPORTS)
		return;
	f->last_rep_line[ci] = f->a[last].line;
	memset(&r, 0, sizeof(r));
	r.cond = ci;
	r.line = f->a[last].line;
	r.off = f->a[last].off;
	r.from_line = f->a[first].line;
	r.from_rule = f->a[first].rule;
	r.to_rule = f->a[last].rule;
	r.unfollowed = unfollowed;
	r.minified = f->minified;
	if (f->c[ci].kind == FLOW_ALL && f->c[ci].lowered_by) {
		size_t i;

		for (i = 0; i < f->na && !r.lowered; i++)
			r.lowered = (f->a[i].tags & f->c[ci].lowered_by) &&
			    f->a[i].line >= r.from_line && f->a[i].line <= r.line;
	}
	f->nrep[ci]++;
	if (f->cb(f->ctx, &r) != 0)
		f->stopped = 1;
}

/* all: unordered. A window slides over the atoms (sorted by offset, so
 * by line): when every tag is inside it, the condition holds at its
 * right end. */
static void
cond_all_any(struct flow *f, size_t ci)
{
	const struct flow_cond *c = &f->c[ci];
	size_t cnt[FLOW_MAX_ALL] = {0}, l = 0, r, k, have = 0;

	for (r = 0; r < f->na && !f->stopped &&
	    f->nrep[ci] < FLOW_MAX_REPORTS; r++) {
		for (k = 0; k < c->nall; k++)
			if ((f->a[r].tags >> c->all[k]) & 1 && cnt[k]++ == 0)
				have++;
		while (c->within && f->a[l].line + c->within < f->a[r].line) {
			for (k = 0; k < c->nall; k++)
				if ((f->a[l].tags >> c->all[k]) & 1 &&
				    --cnt[k] == 0)
					have--;
			l++;
		}
		if (have == c->nall) {
			report_lines(f, ci, l, r, 0);
			if (!c->within)
				return; /* once per file is enough */
		}
	}
}

/* all: ordered. From each atom of the first tag, the earliest atom of
 * each next tag after the previous one (nxt[k][i]: the first atom at
 * index >= i with tag k); the earliest choice gives the shortest span
 * from that start. */
static int
cond_all_seq(struct flow *f, size_t ci)
{
	const struct flow_cond *c = &f->c[ci];
	size_t *nxt, *lstart, i, k;

	nxt = malloc((f->na + 1) * c->nall * sizeof(*nxt));
	lstart = malloc((f->na + 1) * sizeof(*lstart));
	if (nxt == NULL || lstart == NULL) {
		free(nxt);
		free(lstart);
		return -1;
	}
	/* Atoms on one line are in any order: each step may take one on
	 * the previous step's line. */
	for (i = 0; i < f->na; i++)
		lstart[i] = i > 0 && f->a[i - 1].line == f->a[i].line ?
		    lstart[i - 1] : i;
	for (k = 0; k < c->nall; k++) {
		size_t *v = nxt + k * (f->na + 1);

		v[f->na] = SIZE_MAX;
		for (i = f->na; i-- > 0;)
			v[i] = (f->a[i].tags >> c->all[k]) & 1 ? i : v[i + 1];
	}
	for (i = nxt[0]; i != SIZE_MAX && !f->stopped &&
	    f->nrep[ci] < FLOW_MAX_REPORTS; i = nxt[i + 1]) {
		size_t at = i;

		for (k = 1; k < c->nall && at != SIZE_MAX; k++) {
			size_t from = lstart[at], j;

			j = nxt[k * (f->na + 1) + from];
			/* Not an atom of an earlier line than the last step. */
			at = j;
		}
		if (at == SIZE_MAX)
			break; /* no later start can do better */
		if (c->within && f->a[i].line + c->within < f->a[at].line)
			continue;
		report_lines(f, ci, i, at, 0);
		if (!c->within)
			break;
	}
	free(nxt);
	free(lstart);
	return 0;
}

/* A data condition when the text is not whole: a `to` atom at most
 * FLOW_NEAR lines after a `from` atom (another one). */
static void
cond_near(struct flow *f, size_t ci)
{
	const struct flow_cond *c = &f->c[ci];
	size_t i, j;

	for (i = 0; i < f->na && !f->stopped &&
	    f->nrep[ci] < FLOW_MAX_REPORTS; i++) {
		if (!(f->a[i].tags & c->to))
			continue;
		for (j = i; j-- > 0;) {
			if (f->a[j].line + FLOW_NEAR < f->a[i].line)
				break;
			if (f->a[j].tags & c->from) {
				report_lines(f, ci, j, i, 1);
				break;
			}
		}
	}
}

/* ---- the entry -------------------------------------------------------------------- */

enum flow_lang
scan_flow_lang(const char *path)
{
	static const char *const hash[] = {"py", "pyw", "pth", "sh", "bash",
		"zsh", "ksh", "fish", "rb", "pl", "pm", "ps1", "psm1", "psd1",
		"yml", "yaml", "toml", "cfg", "conf", "ini", "r", "mk", "cmake",
		"tcl", "nim", "ex", "exs", "jl", "coffee", "bats", "envrc"};
	static const char *const slash[] = {"js", "mjs", "cjs", "ts", "mts",
		"cts", "tsx", "jsx", "go", "rs", "java", "kt", "kts", "scala",
		"c", "h", "cc", "cpp", "hpp", "cs", "swift", "dart", "groovy",
		"gradle", "zig", "v", "sol", "json5", "jsonc"};
	const char *base = strrchr(path, '/'), *dot;
	size_t i;

	base = base ? base + 1 : path;
	if (strcmp(base, "Makefile") == 0 || strcmp(base, "Dockerfile") == 0 ||
	    strcmp(base, "Rakefile") == 0 || strcmp(base, "Gemfile") == 0 ||
	    strcmp(base, "Jenkinsfile") == 0 || strncmp(base, ".bash", 5) == 0 ||
	    strncmp(base, ".zsh", 4) == 0 || strcmp(base, ".profile") == 0)
		return strcmp(base, "Jenkinsfile") == 0 ? FLOW_LANG_SLASH :
		    FLOW_LANG_HASH;
	if ((dot = strrchr(base, '.')) == NULL)
		return FLOW_LANG_ANY;
	dot++;
	if (strcasecmp(dot, "php") == 0)
		return FLOW_LANG_BOTH;
	for (i = 0; i < sizeof(hash) / sizeof(hash[0]); i++)
		if (strcasecmp(dot, hash[i]) == 0)
			return FLOW_LANG_HASH;
	for (i = 0; i < sizeof(slash) / sizeof(slash[0]); i++)
		if (strcasecmp(dot, slash[i]) == 0)
			return FLOW_LANG_SLASH;
	return FLOW_LANG_ANY;
}

int
scan_flow_run(const char *text, size_t len, int whole, enum flow_lang lang,
    const struct flow_atom *atoms, size_t natoms,
    const struct flow_cond *conds, size_t nconds, flow_report_fn cb,
    void *ctx)
{
	struct flow *f;
	uint64_t have = 0;
	size_t i;
	int data = 0, rc = 0;

	if (natoms == 0 || nconds == 0)
		return 0;
	if (len > UINT32_MAX)
		whole = 0; /* token offsets are 32 bits */
	for (i = 0; i < natoms; i++)
		have |= atoms[i].tags;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return -1;
	kw_index(&f->kw);
	f->t = text;
	f->n = len;
	f->lang = lang;
	f->a = atoms;
	f->na = natoms;
	f->c = conds;
	f->nc = nconds;
	f->cb = cb;
	f->ctx = ctx;
	f->nrep = calloc(nconds, sizeof(*f->nrep));
	f->last_rep_line = calloc(nconds, sizeof(*f->last_rep_line));
	if (f->nrep == NULL || f->last_rep_line == NULL) {
		rc = -1;
		goto out;
	}
	{
		size_t ls = 0, longb = 0;

		for (i = 0; i <= len; i++)
			if (i == len || text[i] == '\n') {
				if (i - ls >= FLOW_LONG_LINE)
					longb += i - ls;
				ls = i + 1;
			}
		f->minified = longb > len / 2;
	}
	for (i = 0; i < nconds && !f->stopped; i++) {
		const struct flow_cond *c = &conds[i];
		size_t k;
		int ok = 1;

		if (c->kind == FLOW_ALL) {
			for (k = 0; k < c->nall; k++)
				ok &= (have >> c->all[k]) & 1;
			if (ok && c->nall > 0 && c->ordered &&
			    cond_all_seq(f, i) < 0) {
				rc = -1;
				goto out;
			}
			if (ok && c->nall > 0 && !c->ordered)
				cond_all_any(f, i);
		} else if ((have & c->from) && (have & c->to)) {
			if (!whole) {
				cond_near(f, i);
			} else {
				f->from_all |= c->from;
				f->to_all |= c->to;
				data = 1;
			}
		}
	}
	if (!data || f->stopped)
		goto out;
	/* Only the conditions whose both halves are here are followed. */
	f->slot = malloc(NAME_SLOTS * sizeof(*f->slot));
	f->fslot = malloc(FUNC_SLOTS * sizeof(*f->fslot));
	if (f->slot == NULL || f->fslot == NULL) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < NAME_SLOTS; i++)
		f->slot[i] = -1;
	for (i = 0; i < FUNC_SLOTS; i++)
		f->fslot[i] = -1;
	read_text(f);
	f->report = 1;
	read_text(f);
out:
	free(f->names);
	free(f->slot);
	free(f->funcs);
	free(f->fslot);
	free(f->nrep);
	free(f->last_rep_line);
	free(f);
	return rc;
}
