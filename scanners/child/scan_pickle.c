/*
 * scan_pickle.c - the pickle opcode walk of scan_pickle.h.
 *
 * Trust: input is hostile; runs only in the scan child; never unpickles.
 *
 * The opcodes and their argument formats are those of Python 3.11's
 * pickletools and pickle.Unpickler (protocols 0 to 5). A small model of
 * the unpickler's stack follows them: each slot is a mark, a string (a
 * bounded copy in a ring of string cells), a global (an index into the
 * globals kept) or anything else; the memo maps keys to slots. That is
 * enough for STACK_GLOBAL to see the two strings a load would, memo gets
 * included, and for the call opcodes to see which global they call.
 *
 * Limits, each failing towards "?" (PICKLE_UNKNOWN) rather than silence:
 * the stack keeps its top STACK_MAX slots (a deeper push forgets the
 * bottom), the memo MEMO_MAX entries (a full probe run replaces an
 * entry), the string ring STR_CELLS strings (a string overwritten by
 * newer ones reads as unknown). A call on anything not a known global is
 * recorded as a call of "?"."?". The memo lives across concatenated
 * pickles, as it does in one Unpickler loading twice; the stack does not.
 * FRAME is read and its contents walked as ordinary opcodes. Stack
 * underflow and a missing MARK are tolerated (the walk goes on with an
 * empty stack): the walk reports more than a load would run, never less.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_pickle.h"

#define STACK_MAX 1024
#define MEMO_MAX 1024		/* a power of two */
#define MEMO_PROBE 8
#define STR_CELLS 448
#define ARG_KEEP 255
#define NAME_KEEP 127

/* Argument kinds: none, fixed bytes, a length then bytes, one or two
 * lines; 0 is no opcode. */
enum { K_BAD, K_NONE, K_FIX, K_LEN, K_LINE, K_LINE2 };
/* Flags: the length is signed (negative refused); pushes a string; the
 * line is a quoted escaped string (STRING) or raw-unicode-escape. */
#define F_SIGNED 1
#define F_STR 2
#define F_QUOTED 4
#define F_RAWU 8

struct op {
	unsigned char kind, n, flags;
};

static const struct op ops[256] = {
	['('] = {K_NONE, 0, 0},		/* MARK */
	['.'] = {K_NONE, 0, 0},		/* STOP */
	['0'] = {K_NONE, 0, 0},		/* POP */
	['1'] = {K_NONE, 0, 0},		/* POP_MARK */
	['2'] = {K_NONE, 0, 0},		/* DUP */
	['F'] = {K_LINE, 0, 0},		/* FLOAT */
	['I'] = {K_LINE, 0, 0},		/* INT */
	['J'] = {K_FIX, 4, 0},		/* BININT */
	['K'] = {K_FIX, 1, 0},		/* BININT1 */
	['L'] = {K_LINE, 0, 0},		/* LONG */
	['M'] = {K_FIX, 2, 0},		/* BININT2 */
	['N'] = {K_NONE, 0, 0},		/* NONE */
	['P'] = {K_LINE, 0, 0},		/* PERSID */
	['Q'] = {K_NONE, 0, 0},		/* BINPERSID */
	['R'] = {K_NONE, 0, 0},		/* REDUCE */
	['S'] = {K_LINE, 0, F_STR | F_QUOTED},	/* STRING */
	['T'] = {K_LEN, 4, F_STR | F_SIGNED},	/* BINSTRING */
	['U'] = {K_LEN, 1, F_STR},	/* SHORT_BINSTRING */
	['V'] = {K_LINE, 0, F_STR | F_RAWU},	/* UNICODE */
	['X'] = {K_LEN, 4, F_STR},	/* BINUNICODE */
	['a'] = {K_NONE, 0, 0},		/* APPEND */
	['b'] = {K_NONE, 0, 0},		/* BUILD */
	['c'] = {K_LINE2, 0, 0},	/* GLOBAL */
	['d'] = {K_NONE, 0, 0},		/* DICT */
	['}'] = {K_NONE, 0, 0},		/* EMPTY_DICT */
	['e'] = {K_NONE, 0, 0},		/* APPENDS */
	['g'] = {K_LINE, 0, 0},		/* GET */
	['h'] = {K_FIX, 1, 0},		/* BINGET */
	['i'] = {K_LINE2, 0, 0},	/* INST */
	['j'] = {K_FIX, 4, 0},		/* LONG_BINGET */
	['l'] = {K_NONE, 0, 0},		/* LIST */
	[']'] = {K_NONE, 0, 0},		/* EMPTY_LIST */
	['o'] = {K_NONE, 0, 0},		/* OBJ */
	['p'] = {K_LINE, 0, 0},		/* PUT */
	['q'] = {K_FIX, 1, 0},		/* BINPUT */
	['r'] = {K_FIX, 4, 0},		/* LONG_BINPUT */
	['s'] = {K_NONE, 0, 0},		/* SETITEM */
	['t'] = {K_NONE, 0, 0},		/* TUPLE */
	[')'] = {K_NONE, 0, 0},		/* EMPTY_TUPLE */
	['u'] = {K_NONE, 0, 0},		/* SETITEMS */
	['G'] = {K_FIX, 8, 0},		/* BINFLOAT */
	[0x80] = {K_FIX, 1, 0},		/* PROTO */
	[0x81] = {K_NONE, 0, 0},	/* NEWOBJ */
	[0x82] = {K_FIX, 1, 0},		/* EXT1 */
	[0x83] = {K_FIX, 2, 0},		/* EXT2 */
	[0x84] = {K_FIX, 4, 0},		/* EXT4 */
	[0x85] = {K_NONE, 0, 0},	/* TUPLE1 */
	[0x86] = {K_NONE, 0, 0},	/* TUPLE2 */
	[0x87] = {K_NONE, 0, 0},	/* TUPLE3 */
	[0x88] = {K_NONE, 0, 0},	/* NEWTRUE */
	[0x89] = {K_NONE, 0, 0},	/* NEWFALSE */
	[0x8a] = {K_LEN, 1, 0},		/* LONG1 */
	[0x8b] = {K_LEN, 4, F_SIGNED},	/* LONG4 */
	['B'] = {K_LEN, 4, F_STR},	/* BINBYTES */
	['C'] = {K_LEN, 1, F_STR},	/* SHORT_BINBYTES */
	[0x8c] = {K_LEN, 1, F_STR},	/* SHORT_BINUNICODE */
	[0x8d] = {K_LEN, 8, F_STR},	/* BINUNICODE8 */
	[0x8e] = {K_LEN, 8, F_STR},	/* BINBYTES8 */
	[0x8f] = {K_NONE, 0, 0},	/* EMPTY_SET */
	[0x90] = {K_NONE, 0, 0},	/* ADDITEMS */
	[0x91] = {K_NONE, 0, 0},	/* FROZENSET */
	[0x92] = {K_NONE, 0, 0},	/* NEWOBJ_EX */
	[0x93] = {K_NONE, 0, 0},	/* STACK_GLOBAL */
	[0x94] = {K_NONE, 0, 0},	/* MEMOIZE */
	[0x95] = {K_FIX, 8, 0},		/* FRAME */
	[0x96] = {K_LEN, 8, 0},		/* BYTEARRAY8 */
	[0x97] = {K_NONE, 0, 0},	/* NEXT_BUFFER */
	[0x98] = {K_NONE, 0, 0},	/* READONLY_BUFFER */
};

enum { SL_OTHER, SL_MARK, SL_STR, SL_GLOBAL };

struct slot {
	unsigned char kind;
	short ref;		/* string cell or global (-1: not kept) */
	uint32_t gen;		/* of the string cell */
};

struct memo_ent {
	uint64_t key;
	struct slot v;
};

struct str_cell {
	uint32_t gen;
	unsigned char len;
	char s[ARG_KEEP];
};

enum { S_OP, S_FIX, S_DATA, S_LINE };

/* Made for every file that starts like a pickle (many text files do:
 * `c`, `i`, `(`): only the part up to `stack` is cleared; the stack, the
 * string cells and the globals are read only where written (sn, gen,
 * nglobals say how far), and the memo's slots only where its bitmap says
 * they are used. */
struct pickle_walk {
	int state, ended, proto;
	unsigned char op;
	uint64_t pos, op_off;
	unsigned long stops;
	/* The argument being read. */
	unsigned char fix[8];
	size_t fix_have, fix_need;
	uint64_t data_left;
	size_t arg_len, line1_len;
	uint64_t arg_total;
	unsigned char arg_last;
	int line;
	/* The model. */
	size_t sb, sn;
	uint64_t memo_len;
	uint64_t memo_used[MEMO_MAX / 64];
	size_t cell_next;
	uint32_t gen;
	size_t nglobals, more;
	/* Not cleared. */
	struct slot stack[STACK_MAX];
	struct memo_ent memo[MEMO_MAX];
	struct str_cell cells[STR_CELLS];
	struct pickle_global globals[PICKLE_GLOBALS_MAX];
	unsigned char arg[ARG_KEEP], line1[ARG_KEEP];
};

static const struct slot other = {SL_OTHER, -1, 0};

/* Classification. */

struct pair {
	const char *m, *n;
};

static const char *const bad_mods[] = {
	"os", "posix", "nt", "subprocess", "_posixsubprocess", "pty",
	"commands", "popen2", "runpy", "importlib", "code", "codeop", "pdb",
	"timeit", "cProfile", "profile", "trace", "ctypes", "shutil",
	"socket", "webbrowser", "multiprocessing", "marshal", "pickle",
	"_pickle", "sys", "asyncio", "platform", "distutils", "setuptools",
	"urllib", "http", "requests", "ftplib", "smtplib", "telnetlib",
};

static const struct pair bad_names[] = {
	{"builtins", "eval"}, {"builtins", "exec"}, {"builtins", "compile"},
	{"builtins", "open"}, {"builtins", "__import__"},
	{"builtins", "getattr"}, {"builtins", "setattr"},
	{"builtins", "delattr"}, {"builtins", "globals"},
	{"builtins", "locals"}, {"builtins", "vars"}, {"builtins", "input"},
	{"builtins", "breakpoint"}, {"builtins", "exit"},
	{"builtins", "quit"}, {"operator", "attrgetter"},
	{"operator", "methodcaller"}, {"types", "FunctionType"},
	{"types", "CodeType"}, {"functools", "partial"}, {"numpy", "load"},
	{"yaml", "load"}, {"yaml", "unsafe_load"}, {"yaml", "full_load"},
	{"torch.storage", "_load_from_bytes"},
};

static const struct pair safe_names[] = {
	{"builtins", "set"}, {"builtins", "frozenset"},
	{"builtins", "bytearray"}, {"builtins", "complex"},
	{"builtins", "slice"}, {"builtins", "range"}, {"builtins", "list"},
	{"builtins", "dict"}, {"builtins", "tuple"}, {"builtins", "bytes"},
	{"builtins", "str"}, {"builtins", "int"}, {"builtins", "float"},
	{"builtins", "bool"}, {"collections", "OrderedDict"},
	{"collections", "defaultdict"}, {"collections", "deque"},
	{"collections", "Counter"}, {"datetime", "date"},
	{"datetime", "time"}, {"datetime", "datetime"},
	{"datetime", "timedelta"}, {"datetime", "timezone"},
	{"decimal", "Decimal"}, {"fractions", "Fraction"},
	{"uuid", "UUID"}, {"copyreg", "_reconstructor"},
	{"_codecs", "encode"}, {"numpy.core.multiarray", "_reconstruct"},
	{"numpy.core.multiarray", "scalar"},
	{"numpy._core.multiarray", "_reconstruct"},
	{"numpy._core.multiarray", "scalar"}, {"numpy", "ndarray"},
	{"numpy", "dtype"}, {"torch._utils", "_rebuild_tensor_v2"},
	{"torch._utils", "_rebuild_parameter"}, {"torch", "FloatStorage"},
	{"torch", "LongStorage"}, {"torch", "HalfStorage"},
	{"torch", "IntStorage"}, {"torch", "ByteStorage"},
	{"torch", "BFloat16Storage"},
};

/* Python 2 module names a protocol 0-2 load maps (_compat_pickle). */
static const char *
py2_module(const char *m)
{
	if (strcmp(m, "__builtin__") == 0 || strcmp(m, "exceptions") == 0)
		return "builtins";
	if (strcmp(m, "copy_reg") == 0)
		return "copyreg";
	return m;
}

enum pickle_class
pickle_global_class(const char *module, const char *name)
{
	const char *m = py2_module(module);
	size_t i, top = strcspn(m, ".");

	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		if (strcmp(m, bad_names[i].m) == 0 &&
		    strcmp(name, bad_names[i].n) == 0)
			return PICKLE_DANGEROUS;
	for (i = 0; i < sizeof(bad_mods) / sizeof(bad_mods[0]); i++)
		if (strlen(bad_mods[i]) == top &&
		    strncmp(m, bad_mods[i], top) == 0)
			return PICKLE_DANGEROUS;
	for (i = 0; i < sizeof(safe_names) / sizeof(safe_names[0]); i++)
		if (strcmp(m, safe_names[i].m) == 0 &&
		    strcmp(name, safe_names[i].n) == 0)
			return PICKLE_SAFE;
	return PICKLE_UNKNOWN;
}

/* The walk's own state. */

struct pickle_walk *
pickle_walk_new(void)
{
	struct pickle_walk *w = malloc(sizeof(*w));

	if (w != NULL)
		pickle_walk_reset(w);
	return w;
}

void
pickle_walk_reset(struct pickle_walk *w)
{
	memset(w, 0, offsetof(struct pickle_walk, stack));
	w->proto = -1;
}

void
pickle_walk_free(struct pickle_walk *w)
{
	free(w);
}

int
pickle_walk_proto(const struct pickle_walk *w)
{
	return w->proto;
}

unsigned long
pickle_walk_stops(const struct pickle_walk *w)
{
	return w->stops;
}

const struct pickle_global *
pickle_walk_globals(const struct pickle_walk *w, size_t *n, size_t *more)
{
	*n = w->nglobals;
	*more = w->more;
	return w->globals;
}

void
pickle_walk_end(struct pickle_walk *w)
{
	w->ended = 1;
}

static void
push(struct pickle_walk *w, struct slot s)
{
	if (w->sn == STACK_MAX) {
		w->sb = (w->sb + 1) % STACK_MAX;
		w->sn--;
	}
	w->stack[(w->sb + w->sn) % STACK_MAX] = s;
	w->sn++;
}

static struct slot
pop(struct pickle_walk *w)
{
	if (w->sn == 0)
		return other;
	w->sn--;
	return w->stack[(w->sb + w->sn) % STACK_MAX];
}

static struct slot
top(const struct pickle_walk *w)
{
	if (w->sn == 0)
		return other;
	return w->stack[(w->sb + w->sn - 1) % STACK_MAX];
}

/* Pops down to and including the topmost mark (all, if none); returns the
 * slot just above the mark. */
static struct slot
pop_mark(struct pickle_walk *w)
{
	struct slot first = other;
	size_t i = w->sn;

	while (i > 0 &&
	    w->stack[(w->sb + i - 1) % STACK_MAX].kind != SL_MARK)
		i--;
	if (i < w->sn)
		first = w->stack[(w->sb + i) % STACK_MAX];
	w->sn = i > 0 ? i - 1 : 0;
	return first;
}

static size_t
memo_hash(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 54) & (MEMO_MAX - 1);
}

static int
memo_in(const struct pickle_walk *w, size_t k)
{
	return (w->memo_used[k / 64] >> (k % 64)) & 1;
}

static void
memo_put(struct pickle_walk *w, uint64_t key, struct slot v)
{
	size_t h = memo_hash(key), i, at = h;

	for (i = 0; i < MEMO_PROBE; i++) {
		size_t k = (h + i) & (MEMO_MAX - 1);

		if (memo_in(w, k) && w->memo[k].key == key) {
			w->memo[k].v = v;
			return;
		}
		if (!memo_in(w, k)) {
			at = k;
			break;
		}
	}
	w->memo_used[at / 64] |= 1ull << (at % 64);
	w->memo[at].key = key;
	w->memo[at].v = v;
	w->memo_len++;
}

static struct slot
memo_get(const struct pickle_walk *w, uint64_t key)
{
	size_t h = memo_hash(key), i;

	for (i = 0; i < MEMO_PROBE; i++) {
		size_t k = (h + i) & (MEMO_MAX - 1);

		if (!memo_in(w, k))
			break;
		if (w->memo[k].key == key)
			return w->memo[k].v;
	}
	return other;
}

static struct slot
new_str(struct pickle_walk *w, const unsigned char *s, size_t n)
{
	struct str_cell *c = &w->cells[w->cell_next];
	struct slot v;

	if (n > ARG_KEEP)
		n = ARG_KEEP;
	c->gen = ++w->gen;
	c->len = (unsigned char)n;
	memcpy(c->s, s, n);
	v.kind = SL_STR;
	v.ref = (short)w->cell_next;
	v.gen = c->gen;
	w->cell_next = (w->cell_next + 1) % STR_CELLS;
	return v;
}

/* The string a slot holds, or NULL. */
static const struct str_cell *
slot_str(const struct pickle_walk *w, struct slot v)
{
	if (v.kind != SL_STR || v.gen == 0 || w->cells[v.ref].gen != v.gen)
		return NULL;
	return &w->cells[v.ref];
}

static void
copy_name(char *out, const char *s, size_t n)
{
	size_t i;

	if (s == NULL) {
		out[0] = '?';
		out[1] = '\0';
		return;
	}
	if (n > NAME_KEEP)
		n = NAME_KEEP;
	for (i = 0; i < n; i++)
		out[i] = s[i] == '\0' ? '?' : s[i];
	out[n] = '\0';
}

/* Records module.name (NULL: unknown); returns its slot. */
static struct slot
add_global(struct pickle_walk *w, const char *m, size_t mn, const char *nm,
    size_t nn)
{
	struct pickle_global g;
	struct slot v = {SL_GLOBAL, -1, 0};
	size_t i;

	copy_name(g.module, m, mn);
	copy_name(g.name, nm, nn);
	if (strcmp(py2_module(g.module), g.module) != 0)
		snprintf(g.module, sizeof(g.module), "%s",
		    py2_module(g.module));
	for (i = 0; i < w->nglobals; i++)
		if (strcmp(w->globals[i].module, g.module) == 0 &&
		    strcmp(w->globals[i].name, g.name) == 0) {
			v.ref = (short)i;
			return v;
		}
	if (w->nglobals == PICKLE_GLOBALS_MAX) {
		w->more++;
		return v;
	}
	g.offset = w->op_off;
	g.called = 0;
	g.cls = pickle_global_class(g.module, g.name);
	w->globals[w->nglobals] = g;
	v.ref = (short)w->nglobals++;
	return v;
}

static void
call(struct pickle_walk *w, struct slot f)
{
	if (f.kind != SL_GLOBAL)
		f = add_global(w, NULL, 0, NULL, 0);
	if (f.ref >= 0)
		w->globals[f.ref].called = 1;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* STRING's argument without its quotes, escapes decoded as
 * codecs.escape_decode does; returns the length (at most 2 n). */
static size_t
unescape(const unsigned char *s, size_t n, unsigned char *out)
{
	size_t i = 0, k = 0;

	while (i < n) {
		unsigned char c = s[i++];
		int v, d;

		if (c != '\\' || i == n) {
			out[k++] = c;
			continue;
		}
		c = s[i++];
		switch (c) {
		case '\n': continue;
		case 'n': out[k++] = '\n'; continue;
		case 't': out[k++] = '\t'; continue;
		case 'r': out[k++] = '\r'; continue;
		case 'a': out[k++] = '\a'; continue;
		case 'b': out[k++] = '\b'; continue;
		case 'f': out[k++] = '\f'; continue;
		case 'v': out[k++] = '\v'; continue;
		case '\\': case '\'': case '"': out[k++] = c; continue;
		case 'x':
			if (i + 1 < n && hexval(s[i]) >= 0 &&
			    hexval(s[i + 1]) >= 0) {
				out[k++] = (unsigned char)(hexval(s[i]) * 16 +
				    hexval(s[i + 1]));
				i += 2;
				continue;
			}
			break;
		default:
			if (c >= '0' && c <= '7') {
				v = c - '0';
				for (d = 0; d < 2 && i < n && s[i] >= '0' &&
				    s[i] <= '7'; d++)
					v = v * 8 + (s[i++] - '0');
				out[k++] = (unsigned char)v;
				continue;
			}
			break;
		}
		out[k++] = '\\';
		out[k++] = c;
	}
	return k;
}

/* Writes code point cp as UTF-8 at out; returns its length. */
static size_t
utf8(uint32_t cp, unsigned char *out)
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | cp >> 6);
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | cp >> 12);
		out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | cp >> 18);
	out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* UNICODE's argument, raw-unicode-escape decoded (\uXXXX, \UXXXXXXXX
 * after an odd run of backslashes) to UTF-8; returns the length, at most
 * cap. */
static size_t
unraw(const unsigned char *s, size_t n, unsigned char *out, size_t cap)
{
	size_t i = 0, k = 0, run = 0, len, j;
	uint32_t cp;

	while (i < n && k + 4 <= cap) {
		unsigned char c = s[i];

		if (run % 2 == 1 && (c == 'u' || c == 'U')) {
			len = c == 'u' ? 4 : 8;
			cp = 0;
			for (j = 0; j < len && i + 1 + j < n &&
			    hexval(s[i + 1 + j]) >= 0; j++)
				cp = cp << 4 | (uint32_t)hexval(s[i + 1 + j]);
			if (j == len && cp <= 0x10ffff) {
				k--;	/* the backslash */
				k += utf8(cp, out + k);
				i += 1 + len;
				run = 0;
				continue;
			}
		}
		run = c == '\\' ? run + 1 : 0;
		out[k++] = c;
		i++;
	}
	return k;
}

/* A decimal line argument (PUT, GET): 0 and *out, or -1. */
static int
line_key(const struct pickle_walk *w, uint64_t *out)
{
	size_t i = 0, d = 0;
	uint64_t v = 0;

	if (w->arg_total != w->arg_len)
		return -1;
	while (i < w->arg_len && w->arg[i] == ' ')
		i++;
	if (i < w->arg_len && w->arg[i] == '+')
		i++;
	for (; i < w->arg_len && w->arg[i] >= '0' && w->arg[i] <= '9'; i++) {
		v = v > UINT64_MAX / 10 - 1 ? UINT64_MAX : v * 10 +
		    (uint64_t)(w->arg[i] - '0');
		d++;
	}
	while (i < w->arg_len && (w->arg[i] == ' ' || w->arg[i] == '\r'))
		i++;
	if (d == 0 || i != w->arg_len)
		return -1;
	*out = v;
	return 0;
}

static uint64_t
le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* Pushes the string argument just read. */
static int
push_str(struct pickle_walk *w, const struct op *o)
{
	unsigned char buf[4 * ARG_KEEP];
	size_t n;

	if (o->flags & F_QUOTED) {
		/* Quoted alike at both ends, as pickle.py insists. */
		if (w->arg_total < 2 || w->arg[0] != w->arg_last ||
		    (w->arg[0] != '"' && w->arg[0] != '\''))
			return 1;
		n = w->arg_len - (w->arg_total == w->arg_len ? 1 : 0);
		n = unescape(w->arg + 1, n - 1, buf);
		push(w, new_str(w, buf, n));
	} else if (o->flags & F_RAWU) {
		n = unraw(w->arg, w->arg_len, buf, sizeof(buf));
		push(w, new_str(w, buf, n));
	} else
		push(w, new_str(w, w->arg, w->arg_len));
	return 0;
}

static void
stack_global(struct pickle_walk *w)
{
	struct slot b = pop(w), a = pop(w);
	const struct str_cell *m = slot_str(w, a), *nm = slot_str(w, b);

	push(w, add_global(w, m ? m->s : NULL, m ? m->len : 0,
	    nm ? nm->s : NULL, nm ? nm->len : 0));
}

/* Runs the opcode whose argument is complete; 1 ends the walk. */
static int
run_op(struct pickle_walk *w)
{
	const struct op *o = &ops[w->op];
	struct slot a;
	uint64_t key;

	if (o->flags & F_STR)
		return push_str(w, o);
	switch (w->op) {
	case '.':
		w->stops++;
		w->sn = 0;
		w->sb = 0;
		break;
	case '(':
		a.kind = SL_MARK;
		a.ref = -1;
		a.gen = 0;
		push(w, a);
		break;
	case '0': case 'a':
		(void)pop(w);
		break;
	case '1': case 'e': case 'u': case 0x90:
		(void)pop_mark(w);
		break;
	case '2':
		push(w, top(w));
		break;
	case 'Q': case 0x85:
		(void)pop(w);
		push(w, other);
		break;
	case 0x86:
		(void)pop(w);
		(void)pop(w);
		push(w, other);
		break;
	case 0x87:
		(void)pop(w);
		(void)pop(w);
		(void)pop(w);
		push(w, other);
		break;
	case 's':
		(void)pop(w);
		(void)pop(w);
		break;
	case 'd': case 'l': case 't': case 0x91:
		(void)pop_mark(w);
		push(w, other);
		break;
	case 'R': case 0x81:
		(void)pop(w);
		call(w, pop(w));
		push(w, other);
		break;
	case 0x92:
		(void)pop(w);
		(void)pop(w);
		call(w, pop(w));
		push(w, other);
		break;
	case 'o':
		call(w, pop_mark(w));
		push(w, other);
		break;
	case 'b':
		(void)pop(w);
		/* BUILD on a class or function itself sets its attributes. */
		if (top(w).kind == SL_GLOBAL)
			call(w, top(w));
		break;
	case 'c': case 'i':
		a = add_global(w, (const char *)w->line1, w->line1_len,
		    (const char *)w->arg, w->arg_len);
		if (w->op == 'i') {
			(void)pop_mark(w);
			call(w, a);
			a = other;
		}
		push(w, a);
		break;
	case 0x93:
		stack_global(w);
		break;
	case 0x82: case 0x83: case 0x84:
		push(w, add_global(w, NULL, 0, NULL, 0));
		break;
	case 'p':
		if (line_key(w, &key) != 0)
			return 1;
		memo_put(w, key, top(w));
		break;
	case 'q': case 'r':
		memo_put(w, le(w->fix, w->fix_need), top(w));
		break;
	case 0x94:
		memo_put(w, w->memo_len, top(w));
		break;
	case 'g':
		if (line_key(w, &key) != 0)
			return 1;
		push(w, memo_get(w, key));
		break;
	case 'h': case 'j':
		push(w, memo_get(w, le(w->fix, w->fix_need)));
		break;
	case 0x80:
		if (w->fix[0] > 5)
			return 1;
		if ((int)w->fix[0] > w->proto)
			w->proto = w->fix[0];
		break;
	case 0x95: case 0x98:
		break;
	default:
		/* Everything else pushes one value. */
		push(w, other);
		break;
	}
	return 0;
}

/* The opcode byte is read: sets up its argument. */
static void
start_arg(struct pickle_walk *w)
{
	const struct op *o = &ops[w->op];

	w->arg_len = 0;
	w->arg_total = 0;
	w->line = 0;
	w->fix_have = 0;
	switch (o->kind) {
	case K_FIX:
	case K_LEN:
		w->fix_need = o->n;
		w->state = S_FIX;
		break;
	case K_LINE:
	case K_LINE2:
		w->state = S_LINE;
		break;
	default:
		w->state = S_OP;
		break;
	}
}

static void
keep(struct pickle_walk *w, const unsigned char *p, size_t n)
{
	size_t room = ARG_KEEP - w->arg_len;

	if (n > 0)
		w->arg_last = p[n - 1];
	memcpy(w->arg + w->arg_len, p, n < room ? n : room);
	w->arg_len += n < room ? n : room;
	w->arg_total += n;
}

/* The fixed bytes are read: a length to read data for, or the opcode. */
static int
fix_done(struct pickle_walk *w)
{
	const struct op *o = &ops[w->op];

	w->state = S_OP;
	if (o->kind == K_LEN) {
		w->data_left = le(w->fix, w->fix_need);
		if (((o->flags & F_SIGNED) &&
		    (w->data_left & 0x80000000U)) ||
		    w->data_left > (uint64_t)INT64_MAX)
			return 1;
		if (w->data_left > 0) {
			w->state = S_DATA;
			return 0;
		}
	}
	return run_op(w);
}

int
pickle_walk_feed(struct pickle_walk *w, const unsigned char *p, size_t n)
{
	const unsigned char *q;
	size_t take;

	while (n > 0 && !w->ended) {
		switch (w->state) {
		case S_OP:
			w->op = *p;
			w->op_off = w->pos;
			if (ops[w->op].kind == K_BAD) {
				w->ended = 1;
				break;
			}
			p++, n--, w->pos++;
			start_arg(w);
			if (w->state == S_OP && run_op(w))
				w->ended = 1;
			break;
		case S_FIX:
			take = w->fix_need - w->fix_have;
			take = take < n ? take : n;
			memcpy(w->fix + w->fix_have, p, take);
			w->fix_have += take;
			p += take, n -= take, w->pos += take;
			if (w->fix_have == w->fix_need && fix_done(w))
				w->ended = 1;
			break;
		case S_DATA:
			take = w->data_left < n ? (size_t)w->data_left : n;
			keep(w, p, take);
			p += take, n -= take, w->pos += take;
			w->data_left -= take;
			if (w->data_left > 0)
				break;
			w->state = S_OP;
			if (run_op(w))
				w->ended = 1;
			break;
		case S_LINE:
			q = memchr(p, '\n', n);
			take = q != NULL ? (size_t)(q - p) : n;
			keep(w, p, take);
			p += take, n -= take, w->pos += take;
			if (q == NULL)
				break;
			p++, n--, w->pos++;
			if (ops[w->op].kind == K_LINE2 && w->line == 0) {
				memcpy(w->line1, w->arg, w->arg_len);
				w->line1_len = w->arg_len;
				w->arg_len = 0;
				w->arg_total = 0;
				w->line = 1;
				break;
			}
			w->state = S_OP;
			if (run_op(w))
				w->ended = 1;
			break;
		}
	}
	return w->ended;
}
