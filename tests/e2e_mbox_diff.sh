#!/usr/bin/env bash
# e2e_mbox_diff.sh - airlock's mailbox reader against real git am: runs
# tests/mbox_diff.py (a few hundred generated series, each applied with
# git am in a scratch repository, all scanned by airlock with a rule that
# matches the marker planted in every added line) and fails on any line
# git am wrote that airlock neither scanned nor called unscannable.
#
# Run from the repository root:  bash tests/e2e_mbox_diff.sh
# MBOX_DIFF_SERIES sets the number of series (default 200), MBOX_DIFF_SEED
# the generator's seed. Same conventions as tests/e2e_scan.sh.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

require git

t_mbox_matches_git_am() {
	# Every marker git am wrote (added lines, commit message, author) and
	# every file it made executable is a finding at the mail airlock
	# names, or that mail is unscannable.
	AIRLOCK_BIN=$BIN python3 "$ROOT/tests/mbox_diff.py" "$PWD/w" "${MBOX_DIFF_SERIES:-200}" \
		>"$WORK/mbox_diff.txt" 2>&1
	local rc=$?
	cat "$WORK/mbox_diff.txt"
	[ "$rc" = 0 ] || fail "airlock missed what git am applied (or too little was exercised)"
}

run_tests
rc=$?
grep '^mbox_diff:' "$WORK/mbox_diff.txt" 2>/dev/null
exit $rc
