#!/usr/bin/env bash
# detection.sh - regression guards for the shipped rule packs.
#
#   1. benign: tests/data/benign (ordinary code written for this purpose) must
#      give no finding at medium or above with the shipped rules;
#   2. secrets: the labelled corpus (tests/secrets_corpus.sh) must keep recall
#      >= 95% and false alarms <= 5% (skipped, visibly, without the corpus);
#   3. evasion: every line of tests/data/evasion/pos/* (a spelling of a
#      behaviour, one a line) gives a finding at high or above on that line,
#      and no line of tests/data/evasion/neg/* one at medium or above.
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
# 3. The evasion corpus, line by line.
if "$BIN" scan --rules "$ROOT/rules" --format json --fail-on never \
	"$ROOT/tests/data/evasion" >"$out" 2>/dev/null &&
	python3 - "$out" "$ROOT/tests/data/evasion" >"$out.r" 2>&1 <<'PY'; then
import json, os, sys
report, root = sys.argv[1], sys.argv[2]
worst = {}
for f in json.load(open(report))["findings"]:
    rank = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}[f["severity"]]
    key = (os.path.relpath(os.path.join(root, f["path"]), root), f["line"])
    worst[key] = max(worst.get(key, 0), rank)
bad, n = [], 0
for kind, need in (("pos", 3), ("neg", 2)):
    for name in sorted(os.listdir(os.path.join(root, kind))):
        rel = os.path.join(kind, name)
        for i, line in enumerate(open(os.path.join(root, rel), encoding="utf-8"), 1):
            if not line.strip():
                continue
            n += 1
            w = worst.get((rel, i), 0)
            if (kind == "pos" and w < need) or (kind == "neg" and w >= need):
                bad.append("%s:%d: %s %s" % (rel, i, "missed:" if kind == "pos" else "false alarm:", line.strip()))
print("\n".join(bad) if bad else "%d lines" % n)
sys.exit(1 if bad else 0)
PY
	echo "ok   evasion corpus: $(tail -n 1 "$out.r")"
	passed=$((passed + 1))
else
	echo "FAIL evasion corpus:"
	sed 's/^/    /' "$out.r" | tail -n 40
	failed=$((failed + 1))
fi
rm -f "$out.r"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
