#!/usr/bin/env bash
# detection.sh - regression guards for the shipped rule packs.
#
#   1. benign: tests/data/benign (ordinary code written for this purpose) must
#      give no finding at medium or above with the shipped rules;
#   2. secrets: the labelled corpus (tests/secrets_corpus.sh) must keep recall
#      >= 95% and false alarms <= 5% (skipped, visibly, without the corpus).
#
# The binary is $AIRLOCK_BIN (default build/airlock). Last line: "N passed,
# M failed"; exit status 1 if anything failed.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${AIRLOCK_BIN:-build/airlock}
case $BIN in /*) ;; *) BIN=$ROOT/$BIN ;; esac
passed=0
failed=0

out=$(mktemp)
trap 'rm -f "$out"' EXIT
if "$BIN" scan --rules "$ROOT/rules" --color never --fail-on medium \
	"$ROOT/tests/data/benign" >"$out" 2>&1; then
	echo "ok   benign corpus: $(tail -n 1 "$out")"
	passed=$((passed + 1))
else
	echo "FAIL benign corpus gives findings at medium or above:"
	sed 's/^/    /' "$out"
	failed=$((failed + 1))
fi

if AIRLOCK_BIN=$BIN bash "$ROOT/tests/secrets_corpus.sh" >"$out" 2>&1; then
	if grep -q '^SKIP' "$out"; then
		echo "skip secrets corpus: $(grep '^SKIP' "$out")"
	else
		echo "ok   secrets corpus: $(grep -iE 'recall|false' "$out" | head -n 2 | tr '\n' ' ')"
		passed=$((passed + 1))
	fi
else
	echo "FAIL secrets corpus:"
	sed 's/^/    /' "$out" | tail -n 40
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
