/*
 * check_pickle.c - the pickle opcode walk (scanners/child/scan_pickle.c)
 * on pickles Python wrote and on hand-made ones: the callables named and
 * called, in every protocol, through the memo, without PROTO, after a
 * concatenation or a large BINBYTES, the same fed whole or a byte at a
 * time, and never a crash on cut or garbage input.
 *
 * Every literal was checked with python3 -m pickletools.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_pickle.h"

/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections,
 * datetime\nprint(pickle.dumps({"d": {"a": 1, "b": [1, 2.5, "x", b"y", None,
 * True]}, "s": {1, 2}, "o": collections.OrderedDict(a=1), "t":
 * datetime.datetime(2020, 1, 2, 3, 4, 5), "f": frozenset([3])},
 * protocol=0))'
 */
static const char benign0[] =
    "(dp0\012Vd\012p1\012(dp2\012Va\012p3\012I1\012sVb\012p4\012(l"
    "p5\012I1\012aF2.5\012aVx\012p6\012ac_codecs\012encode\012p7\012"
    "(Vy\012p8\012Vlatin1\012p9\012tp10\012Rp11\012aNaI01\012assVs"
    "\012p12\012c__builtin__\012set\012p13\012((lp14\012I1\012aI2\012"
    "atp15\012Rp16\012sVo\012p17\012ccollections\012OrderedDict\012"
    "p18\012(tRp19\012g3\012I1\012ssVt\012p20\012cdatetime\012date"
    "time\012p21\012(g7\012(V\007\344\001\002\003\004\005\\u0000\\"
    "u0000\\u0000\012p22\012g9\012tp23\012Rp24\012tp25\012Rp26\012"
    "sVf\012p27\012c__builtin__\012frozenset\012p28\012((lp29\012I"
    "3\012atp30\012Rp31\012s.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections,
 * datetime\nprint(pickle.dumps({"d": {"a": 1, "b": [1, 2.5, "x", b"y", None,
 * True]}, "s": {1, 2}, "o": collections.OrderedDict(a=1), "t":
 * datetime.datetime(2020, 1, 2, 3, 4, 5), "f": frozenset([3])},
 * protocol=1))'
 */
static const char benign1[] =
    "}q\000(X\001\000\000\000dq\001}q\002(X\001\000\000\000aq\003K"
    "\001X\001\000\000\000bq\004]q\005(K\001G@\004\000\000\000\000"
    "\000\000X\001\000\000\000xq\006c_codecs\012encode\012q\007(X\001"
    "\000\000\000yq\010X\006\000\000\000latin1q\011tq\012Rq\013NI0"
    "1\012euX\001\000\000\000sq\014c__builtin__\012set\012q\015(]q"
    "\016(K\001K\002etq\017Rq\020X\001\000\000\000oq\021ccollectio"
    "ns\012OrderedDict\012q\022)Rq\023h\003K\001sX\001\000\000\000"
    "tq\024cdatetime\012datetime\012q\025(h\007(X\013\000\000\000\007"
    "\303\244\001\002\003\004\005\000\000\000q\026h\011tq\027Rq\030"
    "tq\031Rq\032X\001\000\000\000fq\033c__builtin__\012frozenset\012"
    "q\034(]q\035K\003atq\036Rq\037u.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections,
 * datetime\nprint(pickle.dumps({"d": {"a": 1, "b": [1, 2.5, "x", b"y", None,
 * True]}, "s": {1, 2}, "o": collections.OrderedDict(a=1), "t":
 * datetime.datetime(2020, 1, 2, 3, 4, 5), "f": frozenset([3])},
 * protocol=2))'
 */
static const char benign2[] =
    "\200\002}q\000(X\001\000\000\000dq\001}q\002(X\001\000\000\000"
    "aq\003K\001X\001\000\000\000bq\004]q\005(K\001G@\004\000\000\000"
    "\000\000\000X\001\000\000\000xq\006c_codecs\012encode\012q\007"
    "X\001\000\000\000yq\010X\006\000\000\000latin1q\011\206q\012R"
    "q\013N\210euX\001\000\000\000sq\014c__builtin__\012set\012q\015"
    "]q\016(K\001K\002e\205q\017Rq\020X\001\000\000\000oq\021ccoll"
    "ections\012OrderedDict\012q\022)Rq\023h\003K\001sX\001\000\000"
    "\000tq\024cdatetime\012datetime\012q\025h\007X\013\000\000\000"
    "\007\303\244\001\002\003\004\005\000\000\000q\026h\011\206q\027"
    "Rq\030\205q\031Rq\032X\001\000\000\000fq\033c__builtin__\012f"
    "rozenset\012q\034]q\035K\003a\205q\036Rq\037u.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections,
 * datetime\nprint(pickle.dumps({"d": {"a": 1, "b": [1, 2.5, "x", b"y", None,
 * True]}, "s": {1, 2}, "o": collections.OrderedDict(a=1), "t":
 * datetime.datetime(2020, 1, 2, 3, 4, 5), "f": frozenset([3])},
 * protocol=3))'
 */
static const char benign3[] =
    "\200\003}q\000(X\001\000\000\000dq\001}q\002(X\001\000\000\000"
    "aq\003K\001X\001\000\000\000bq\004]q\005(K\001G@\004\000\000\000"
    "\000\000\000X\001\000\000\000xq\006C\001yq\007N\210euX\001\000"
    "\000\000sq\010cbuiltins\012set\012q\011]q\012(K\001K\002e\205"
    "q\013Rq\014X\001\000\000\000oq\015ccollections\012OrderedDict"
    "\012q\016)Rq\017h\003K\001sX\001\000\000\000tq\020cdatetime\012"
    "datetime\012q\021C\012\007\344\001\002\003\004\005\000\000\000"
    "q\022\205q\023Rq\024X\001\000\000\000fq\025cbuiltins\012froze"
    "nset\012q\026]q\027K\003a\205q\030Rq\031u.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections,
 * datetime\nprint(pickle.dumps({"d": {"a": 1, "b": [1, 2.5, "x", b"y", None,
 * True]}, "s": {1, 2}, "o": collections.OrderedDict(a=1), "t":
 * datetime.datetime(2020, 1, 2, 3, 4, 5), "f": frozenset([3])},
 * protocol=4))'
 */
static const char benign4[] =
    "\200\004\225\234\000\000\000\000\000\000\000}\224(\214\001d\224"
    "}\224(\214\001a\224K\001\214\001b\224]\224(K\001G@\004\000\000"
    "\000\000\000\000\214\001x\224C\001y\224N\210eu\214\001s\224\217"
    "\224(K\001K\002\220\214\001o\224\214\013collections\224\214\013"
    "OrderedDict\224\223\224)R\224h\003K\001s\214\001t\224\214\010"
    "datetime\224\214\010datetime\224\223\224C\012\007\344\001\002"
    "\003\004\005\000\000\000\224\205\224R\224\214\001f\224(K\003\221"
    "\224u.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections,
 * datetime\nprint(pickle.dumps({"d": {"a": 1, "b": [1, 2.5, "x", b"y", None,
 * True]}, "s": {1, 2}, "o": collections.OrderedDict(a=1), "t":
 * datetime.datetime(2020, 1, 2, 3, 4, 5), "f": frozenset([3])},
 * protocol=5))'
 */
static const char benign5[] =
    "\200\005\225\234\000\000\000\000\000\000\000}\224(\214\001d\224"
    "}\224(\214\001a\224K\001\214\001b\224]\224(K\001G@\004\000\000"
    "\000\000\000\000\214\001x\224C\001y\224N\210eu\214\001s\224\217"
    "\224(K\001K\002\220\214\001o\224\214\013collections\224\214\013"
    "OrderedDict\224\223\224)R\224h\003K\001s\214\001t\224\214\010"
    "datetime\224\214\010datetime\224\223\224C\012\007\344\001\002"
    "\003\004\005\000\000\000\224\205\224R\224\214\001f\224(K\003\221"
    "\224u.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections, datetime\nclass R:\n
 * __reduce__ = lambda self: (os.system, ("echo
 * hi",))\nprint(pickle.dumps(R(), protocol=0))'
 */
static const char system0[] =
    "cposix\012system\012p0\012(Vecho hi\012p1\012tp2\012Rp3\012.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections, datetime\nclass R:\n
 * __reduce__ = lambda self: (os.system, ("echo
 * hi",))\nprint(pickle.dumps(R(), protocol=2))'
 */
static const char system2[] =
    "\200\002cposix\012system\012q\000X\007\000\000\000echo hiq\001"
    "\205q\002Rq\003.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections, datetime\nclass R:\n
 * __reduce__ = lambda self: (os.system, ("echo
 * hi",))\nprint(pickle.dumps(R(), protocol=4))'
 */
static const char system4[] =
    "\200\004\225\"\000\000\000\000\000\000\000\214\005posix\224\214"
    "\006system\224\223\224\214\007echo hi\224\205\224R\224.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections, datetime\nclass R:\n
 * __reduce__ = lambda self: (os.system, ("echo
 * hi",))\nprint(pickle.dumps(R(), protocol=5))'
 */
static const char system5[] =
    "\200\005\225\"\000\000\000\000\000\000\000\214\005posix\224\214"
    "\006system\224\223\224\214\007echo hi\224\205\224R\224.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections, datetime\nclass R:\n
 * __reduce__ = lambda self: (os.system, ("echo
 * hi",))\nprint(pickle.dumps([1, "a"], protocol=2) + pickle.dumps(R(),
 * protocol=2))'
 */
static const char concat[] =
    "\200\002]q\000(K\001X\001\000\000\000aq\001e.\200\002cposix\012"
    "system\012q\000X\007\000\000\000echo hiq\001\205q\002Rq\003.";
/*
 * The bytes of (one command, wrapped here):
 * python3 -c $'import pickle, os, collections, datetime\nclass E:\n
 * __reduce__ = lambda self: (eval, ("1+1",))\nprint(pickle.dumps(E(),
 * protocol=2))'
 */
static const char eval2[] =
    "\200\002c__builtin__\012eval\012q\000X\003\000\000\0001+1q\001"
    "\205q\002Rq\003.";
/* hand-made; python3 -m pickletools reads it */
static const char os0[] =
    "cos\012system\012(S'echo hi'\012tR.";
/* hand-made; python3 -m pickletools reads it */
static const char memo4[] =
    "\200\004\225+\000\000\000\000\000\000\000\214\002os\2240\214\006"
    "systemr\007\000\000\0000\214\003foo\2240h\000j\007\000\000\000"
    "\223\224\214\002id\205R.";
/* hand-made; python3 -m pickletools reads it */
static const char noproto[] =
    "\214\005posix\214\006system\223\214\002id\205R.";
/* hand-made; python3 -m pickletools reads it */
static const char getattr0[] =
    "cbuiltins\012getattr\012(cbuiltins\012__import__\012(S'os'\012"
    "tRS'system'\012tR(S'id'\012tR.";
/* hand-made; python3 -m pickletools reads it */
static const char unknown4[] =
    "\200\004\214\005mymod\224\214\002fn\224\223)R.";
/* hand-made; python3 -m pickletools reads it */
static const char torch2[] =
    "\200\002ctorch._utils\012_rebuild_tensor_v2\012)R.";
/* hand-made; python3 -m pickletools reads it */
static const char escaped0[] =
    "S'\\x6fs'\012S'sys\\164em'\012\223(S'id'\012tR.";

#define LEN(a) (sizeof(a) - 1)

struct res {
	struct pickle_global g[PICKLE_GLOBALS_MAX];
	size_t n, more;
	int proto, ended;
	unsigned long stops;
};

/* Walks p[0..n) in pieces of step bytes (0: whole). */
static void
walk(const void *p, size_t n, size_t step, struct res *r)
{
	struct pickle_walk *w = pickle_walk_new();
	const unsigned char *b = p;
	const struct pickle_global *g;
	size_t at = 0;

	ck_assert_ptr_nonnull(w);
	memset(r, 0, sizeof(*r));
	if (step == 0)
		step = n ? n : 1;
	while (at < n) {
		size_t k = n - at < step ? n - at : step;

		r->ended = pickle_walk_feed(w, b + at, k);
		at += k;
	}
	pickle_walk_end(w);
	g = pickle_walk_globals(w, &r->n, &r->more);
	ck_assert_uint_le(r->n, PICKLE_GLOBALS_MAX);
	memcpy(r->g, g, r->n * sizeof(*g));
	r->proto = pickle_walk_proto(w);
	r->stops = pickle_walk_stops(w);
	pickle_walk_free(w);
}

static const struct pickle_global *
find(const struct res *r, const char *m, const char *n)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->g[i].module, m) == 0 &&
		    strcmp(r->g[i].name, n) == 0)
			return &r->g[i];
	return NULL;
}

static void
same(const struct res *a, const struct res *b)
{
	size_t i;

	ck_assert_uint_eq(a->n, b->n);
	ck_assert_uint_eq(a->more, b->more);
	ck_assert_int_eq(a->proto, b->proto);
	ck_assert_uint_eq(a->stops, b->stops);
	for (i = 0; i < a->n; i++) {
		ck_assert_str_eq(a->g[i].module, b->g[i].module);
		ck_assert_str_eq(a->g[i].name, b->g[i].name);
		ck_assert_uint_eq(a->g[i].offset, b->g[i].offset);
		ck_assert_int_eq(a->g[i].called, b->g[i].called);
	}
}

/* Fed whole and a byte at a time: the same; returns the whole walk. */
static void
walk2(const void *p, size_t n, struct res *r)
{
	struct res one;

	walk(p, n, 0, r);
	walk(p, n, 1, &one);
	same(r, &one);
	walk(p, n, 7, &one);
	same(r, &one);
}

static void
dangerous_call(const struct res *r, const char *m, const char *n)
{
	const struct pickle_global *g = find(r, m, n);

	ck_assert_msg(g != NULL, "%s.%s not found", m, n);
	ck_assert_int_eq(g->cls, PICKLE_DANGEROUS);
	ck_assert_int_eq(g->called, 1);
}

static const struct {
	const char *p;
	size_t n;
	int proto;
} benign[] = {
	{benign0, LEN(benign0), -1}, {benign1, LEN(benign1), -1},
	{benign2, LEN(benign2), 2}, {benign3, LEN(benign3), 3},
	{benign4, LEN(benign4), 4}, {benign5, LEN(benign5), 5},
};

START_TEST(benign_protocols)
{
	struct res r;
	size_t i;

	walk2(benign[_i].p, benign[_i].n, &r);
	ck_assert_int_eq(r.proto, benign[_i].proto);
	ck_assert_uint_eq(r.stops, 1);
	ck_assert_int_eq(r.ended, 0);
	ck_assert_uint_ge(r.n, 2);	/* OrderedDict, datetime at least */
	for (i = 0; i < r.n; i++)
		ck_assert_msg(r.g[i].cls == PICKLE_SAFE, "%s.%s is %d",
		    r.g[i].module, r.g[i].name, r.g[i].cls);
	ck_assert_ptr_nonnull(find(&r, "collections", "OrderedDict"));
	ck_assert_ptr_nonnull(find(&r, "datetime", "datetime"));
}
END_TEST

static const struct {
	const char *p;
	size_t n;
} sys_calls[] = {
	{system0, LEN(system0)}, {system2, LEN(system2)},
	{system4, LEN(system4)}, {system5, LEN(system5)},
	{noproto, LEN(noproto)},
};

START_TEST(reduce_system)
{
	struct res r;

	walk2(sys_calls[_i].p, sys_calls[_i].n, &r);
	dangerous_call(&r, "posix", "system");
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.stops, 1);
}
END_TEST

START_TEST(os_system_protocol0)
{
	struct res r;

	walk2(os0, LEN(os0), &r);
	dangerous_call(&r, "os", "system");
	ck_assert_uint_eq(r.g[0].offset, 0);
	ck_assert_int_eq(r.proto, -1);
}
END_TEST

START_TEST(stack_global_through_memo)
{
	struct res r;

	walk2(memo4, LEN(memo4), &r);
	ck_assert_uint_eq(r.n, 1);
	dangerous_call(&r, "os", "system");
	ck_assert_int_eq(r.proto, 4);
	/* Escaped protocol 0 strings fed to STACK_GLOBAL. */
	walk2(escaped0, LEN(escaped0), &r);
	ck_assert_uint_eq(r.n, 1);
	dangerous_call(&r, "os", "system");
}
END_TEST

START_TEST(concatenated)
{
	struct res r;

	walk2(concat, LEN(concat), &r);
	ck_assert_uint_eq(r.stops, 2);
	ck_assert_int_eq(r.ended, 0);
	dangerous_call(&r, "posix", "system");
	ck_assert_uint_gt(r.g[0].offset, 10);
}
END_TEST

START_TEST(trailing_garbage_ends)
{
	char buf[sizeof(os0) + 8];
	struct res r;

	memcpy(buf, os0, LEN(os0));
	memcpy(buf + LEN(os0), "\nxyz", 4);
	walk2(buf, LEN(os0) + 4, &r);
	ck_assert_int_eq(r.ended, 1);
	ck_assert_uint_eq(r.stops, 1);
	dangerous_call(&r, "os", "system");
}
END_TEST

START_TEST(large_binbytes_first)
{
	size_t big = 1 << 20, n = 0, i;
	unsigned char *b = malloc(big + 64);
	struct res r, one;

	ck_assert_ptr_nonnull(b);
	b[n++] = 0x80;
	b[n++] = 4;
	b[n++] = 'B';
	for (i = 0; i < 4; i++)
		b[n++] = (unsigned char)(big >> (8 * i));
	memset(b + n, 'c', big);	/* looks like GLOBAL: it is not */
	n += big;
	b[n++] = '0';
	memcpy(b + n, os0, LEN(os0));
	n += LEN(os0);
	walk(b, n, 0, &r);
	dangerous_call(&r, "os", "system");
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.g[0].offset, big + 8);
	walk(b, n, 1, &one);
	same(&r, &one);
	free(b);
}
END_TEST

START_TEST(getattr_reduce)
{
	struct res r;

	walk2(getattr0, LEN(getattr0), &r);
	dangerous_call(&r, "builtins", "getattr");
	dangerous_call(&r, "builtins", "__import__");
	/* The call of what getattr returned: unknown, but called. */
	ck_assert_ptr_nonnull(find(&r, "?", "?"));
	ck_assert_int_eq(find(&r, "?", "?")->called, 1);
	ck_assert_int_eq(find(&r, "?", "?")->cls, PICKLE_UNKNOWN);
}
END_TEST

START_TEST(python2_builtin)
{
	struct res r;

	ck_assert_ptr_nonnull(strstr(eval2, "__builtin__"));
	walk2(eval2, LEN(eval2), &r);
	dangerous_call(&r, "builtins", "eval");
	ck_assert_int_eq(pickle_global_class("__builtin__", "exec"),
	    PICKLE_DANGEROUS);
	ck_assert_int_eq(pickle_global_class("copy_reg", "_reconstructor"),
	    PICKLE_SAFE);
}
END_TEST

START_TEST(unknown_and_torch)
{
	struct res r;
	const struct pickle_global *g;

	walk2(unknown4, LEN(unknown4), &r);
	g = find(&r, "mymod", "fn");
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->cls, PICKLE_UNKNOWN);
	ck_assert_int_eq(g->called, 1);
	walk2(torch2, LEN(torch2), &r);
	g = find(&r, "torch._utils", "_rebuild_tensor_v2");
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->cls, PICKLE_SAFE);
	ck_assert_int_eq(g->called, 1);
}
END_TEST

START_TEST(classes)
{
	ck_assert_int_eq(pickle_global_class("os.path", "join"),
	    PICKLE_DANGEROUS);
	ck_assert_int_eq(pickle_global_class("subprocess", "Popen"),
	    PICKLE_DANGEROUS);
	ck_assert_int_eq(pickle_global_class("torch.storage",
	    "_load_from_bytes"), PICKLE_DANGEROUS);
	ck_assert_int_eq(pickle_global_class("numpy", "load"),
	    PICKLE_DANGEROUS);
	ck_assert_int_eq(pickle_global_class("operator", "itemgetter"),
	    PICKLE_UNKNOWN);
	ck_assert_int_eq(pickle_global_class("osx", "system"),
	    PICKLE_UNKNOWN);
	ck_assert_int_eq(pickle_global_class("builtins", "set"), PICKLE_SAFE);
	ck_assert_int_eq(pickle_global_class("builtins", "setx"),
	    PICKLE_UNKNOWN);
}
END_TEST

START_TEST(cut_and_garbage)
{
	unsigned char g[4096];
	unsigned int seed = 12345;
	struct res r, one;
	size_t i, k;

	/* Every prefix of a pickle: no crash, same cut or not. */
	for (k = 0; k <= LEN(system4); k++) {
		walk(system4, k, 0, &r);
		walk(system4, k, 1, &one);
		same(&r, &one);
	}
	walk(system4, LEN(system4) - 1, 0, &r);
	ck_assert_uint_eq(r.stops, 0);
	dangerous_call(&r, "posix", "system");	/* it ran before the cut */
	for (k = 0; k < 200; k++) {
		for (i = 0; i < sizeof(g); i++) {
			seed = seed * 1103515245 + 12345;
			g[i] = (unsigned char)(seed >> 16);
		}
		g[0] = 0x80;
		g[1] = 4;
		walk(g, sizeof(g), 0, &r);
		walk(g, sizeof(g), 3, &one);
		same(&r, &one);
	}
	/* A bad opcode ends the walk. */
	walk("\377", 1, 0, &r);
	ck_assert_int_eq(r.ended, 1);
	/* An unsupported protocol does too. */
	walk("\200\006N.", 4, 0, &r);
	ck_assert_int_eq(r.ended, 1);
	ck_assert_uint_eq(r.stops, 0);
}
END_TEST

START_TEST(many_globals)
{
	char buf[64 * 24];
	size_t n = 0, i;
	struct res r;

	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
		    "cm%zu\nf\n0", i);
	buf[n++] = 'N';
	buf[n++] = '.';
	walk2(buf, n, &r);
	ck_assert_uint_eq(r.n, PICKLE_GLOBALS_MAX);
	ck_assert_uint_eq(r.more, 40 - PICKLE_GLOBALS_MAX);
	ck_assert_uint_eq(r.stops, 1);
}
END_TEST

static Suite *
pickle_suite(void)
{
	Suite *s = suite_create("pickle");
	TCase *tc = tcase_create("walk");

	tcase_add_loop_test(tc, benign_protocols, 0, 6);
	tcase_add_loop_test(tc, reduce_system, 0, 5);
	tcase_add_test(tc, os_system_protocol0);
	tcase_add_test(tc, stack_global_through_memo);
	tcase_add_test(tc, concatenated);
	tcase_add_test(tc, trailing_garbage_ends);
	tcase_add_test(tc, large_binbytes_first);
	tcase_add_test(tc, getattr_reduce);
	tcase_add_test(tc, python2_builtin);
	tcase_add_test(tc, unknown_and_torch);
	tcase_add_test(tc, classes);
	tcase_add_test(tc, cut_and_garbage);
	tcase_add_test(tc, many_globals);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pickle_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
