#!/usr/bin/env bash
# secrets_corpus.sh - measure the secret rules against the labelled corpus.
#
# Usage (from anywhere):  tests/secrets_corpus.sh [CORPUS.jsonl]
# The corpus defaults to ../shared/corpus/secrets-dev.jsonl relative to the
# repository root; if it is absent the script prints "SKIP: corpus not found"
# and exits 0. The corpus is written out with its own materialize.py into a
# private mktemp directory, and ${AIRLOCK_BIN:-build/airlock} scans the whole
# tree once with the shipped rules/.
#
#   recall            = positive cases with >= 1 finding of category "secret"
#                       in their folder / positive cases
#   false-alarm rate  = negative cases with >= 1 finding at medium or above
#                       / negative cases
#
# Prints both figures, the misses grouped by kind (top 30) and the false
# alarms grouped by rule. Exits 1 if recall < MIN_RECALL (default 0.95) or the
# false-alarm rate > MAX_FP (default 0.05). The last line is "N passed, M
# failed" for the two threshold checks. The figures are a development measure
# (see the corpus README), not the true recall of the rule set.

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CORPUS=${1:-$ROOT/../shared/corpus/secrets-dev.jsonl}
case $CORPUS in /*) ;; *) CORPUS=$PWD/$CORPUS ;; esac
BIN=${AIRLOCK_BIN:-build/airlock}
case $BIN in
/*) ;;
*) if [ -x "$PWD/$BIN" ]; then BIN=$PWD/$BIN; else BIN=$ROOT/$BIN; fi ;;
esac
MIN_RECALL=${MIN_RECALL:-0.95}
MAX_FP=${MAX_FP:-0.05}

if [ ! -f "$CORPUS" ]; then
	echo "secrets_corpus: $CORPUS does not exist" >&2
	echo "SKIP: corpus not found"
	exit 0
fi
MATERIALIZE=$(dirname "$CORPUS")/materialize.py
if [ ! -f "$MATERIALIZE" ]; then
	echo "secrets_corpus: $MATERIALIZE not found next to the corpus" >&2
	echo "0 passed, 2 failed"
	exit 1
fi
if [ ! -x "$BIN" ]; then
	echo "secrets_corpus: $BIN is not an executable (build it with make, or set AIRLOCK_BIN)" >&2
	echo "0 passed, 2 failed"
	exit 1
fi
command -v python3 >/dev/null || { echo "secrets_corpus: python3 is required" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/airlock-secrets.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if ! python3 "$MATERIALIZE" "$CORPUS" "$WORK/corpus" >"$WORK/materialize.log" 2>&1; then
	echo "secrets_corpus: materialize.py failed:" >&2
	cat "$WORK/materialize.log" >&2
	echo "0 passed, 2 failed"
	exit 1
fi

# One process over the whole tree.
"$BIN" scan --format json --fail-on never --rules "$ROOT/rules" "$WORK/corpus" \
	>"$WORK/scan.json" 2>"$WORK/scan.err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "secrets_corpus: scan exited $rc:" >&2
	head -20 "$WORK/scan.err" >&2
	echo "0 passed, 2 failed"
	exit 1
fi

python3 - "$WORK/corpus" "$WORK/scan.json" "$MIN_RECALL" "$MAX_FP" <<'EOF'
import collections, json, os, sys

root, scan, min_recall, max_fp = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
RANK = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}

labels = {}
with open(os.path.join(root, "labels.tsv"), encoding="utf-8") as fh:
    next(fh)
    for line in fh:
        case, label, kind = line.rstrip("\n").split("\t")
        labels[case] = (label, kind)

with open(scan, encoding="utf-8") as fh:
    report = json.load(fh)

secret_cases = set()
alarms = collections.defaultdict(set)   # case -> rules at medium or above
prefix = os.path.realpath(root) + os.sep
for f in report.get("findings", []):
    path = os.path.realpath(f["path"]) if os.path.isabs(f["path"]) else f["path"]
    if path.startswith(prefix):
        path = path[len(prefix):]
    case = path.split(os.sep, 1)[0]
    if case not in labels:
        continue
    if f.get("category") == "secret":
        secret_cases.add(case)
    if RANK.get(f.get("severity"), 0) >= RANK["medium"]:
        alarms[case].add(f["rule"])

pos = [c for c, (l, _) in labels.items() if l == "positive"]
neg = [c for c, (l, _) in labels.items() if l == "negative"]
found = [c for c in pos if c in secret_cases]
false = [c for c in neg if alarms.get(c)]
recall = len(found) / len(pos) if pos else 1.0
fp = len(false) / len(neg) if neg else 0.0

print("positives: %d, found: %d, recall: %.4f (min %.2f)" % (len(pos), len(found), recall, min_recall))
print("negatives: %d, false alarms: %d, false-alarm rate: %.4f (max %.2f)" % (len(neg), len(false), fp, max_fp))

misses = collections.Counter(labels[c][1] for c in pos if c not in secret_cases)
total = collections.Counter(labels[c][1] for c in pos)
if misses:
    print("\nmisses by kind (top 30 of %d kinds):" % len(misses))
    for kind, n in misses.most_common(30):
        print("  %5d / %-5d %s" % (n, total[kind], kind))
by_rule = collections.Counter(r for c in false for r in alarms[c])
if by_rule:
    print("\nfalse alarms by rule (negative cases):")
    for rule, n in by_rule.most_common():
        kinds = collections.Counter(labels[c][1] for c in false if rule in alarms[c])
        print("  %5d  %-40s %s" % (n, rule, ", ".join("%s:%d" % kv for kv in kinds.most_common(5))))

passed = failed = 0
print()
if recall >= min_recall:
    passed += 1; print("ok: recall %.4f >= %.2f" % (recall, min_recall))
else:
    failed += 1; print("FAIL: recall %.4f < %.2f" % (recall, min_recall))
if fp <= max_fp:
    passed += 1; print("ok: false-alarm rate %.4f <= %.2f" % (fp, max_fp))
else:
    failed += 1; print("FAIL: false-alarm rate %.4f > %.2f" % (fp, max_fp))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
EOF
