#!/usr/bin/env bash
# flow_corpus.sh - measure the second stage (behaviour that spans several
# statements: data flow from a source to a sink, co-occurrence of operations)
# on the labelled corpus in tests/data/flow. Not part of make test: run it by
# hand.
#
# Usage (from anywhere):  tests/flow_corpus.sh
#
# Every row of tests/data/flow/manifest.tsv (path, label, class, language,
# technique) is scanned on its own with ${AIRLOCK_BIN:-build/airlock}
# (`scan --rules RULES --format json --fail-on never PATH`, run from inside
# tests/data/flow so the paths are relative; RULES is the repository's rules/
# directory, or FLOW_RULES). Per class:
#
#   detected      a positive with at least one finding at medium or above
#   false alarm   a negative with at least one finding at medium or above
#   recall        detected / positives
#
# Every missed positive and every false alarm is printed with its technique
# and the rule ids that fired (at any severity for a miss, at medium or above
# for a false alarm). FLOW_VERBOSE=1 lists every file with its rule ids at
# medium or above; FLOW_JOBS sets the number of scans at once (default 2).
#
# The last line is "recall R% (d/p), false alarms F/n". The exit status is 1
# if the overall recall is below MIN_RECALL (percent, default 0), the false
# alarms are more than MAX_FA (a count, default 1000), a scan failed, or there
# is nothing to measure (no binary, no manifest); AIRLOCK_FLOW_REPORT_ONLY=1
# prints the same figures and always exits 0.

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CORPUS=$ROOT/tests/data/flow
RULES=${FLOW_RULES:-$ROOT/rules}
BIN=${AIRLOCK_BIN:-build/airlock}
case $BIN in
/*) ;;
*) if [ -x "$PWD/$BIN" ]; then BIN=$PWD/$BIN; else BIN=$ROOT/$BIN; fi ;;
esac
case $RULES in
/*) ;;
*) RULES=$PWD/$RULES ;;
esac

report_only() { [ "${AIRLOCK_FLOW_REPORT_ONLY:-0}" = 1 ]; }

give_up() {
	echo "flow_corpus: $1" >&2
	echo "recall 0.0% (0/0), false alarms 0/0"
	if report_only; then exit 0; fi
	exit 1
}

[ -x "$BIN" ] || give_up "$BIN is not an executable (build it with make, or set AIRLOCK_BIN)"
[ -f "$CORPUS/manifest.tsv" ] || give_up "$CORPUS/manifest.tsv is missing"
[ -e "$RULES" ] || give_up "the rules $RULES do not exist (set FLOW_RULES)"
command -v python3 >/dev/null || give_up "python3 is required"

python3 - "$BIN" "$RULES" "$CORPUS" <<'EOF'
import concurrent.futures
import json
import os
import subprocess
import sys

BIN, RULES, CORPUS = sys.argv[1:4]
RANK = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
MEDIUM = RANK["medium"]
env = os.environ


def number(name, default):
    raw = env.get(name, "")
    if raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        sys.exit("flow_corpus: %s=%r is not a number" % (name, raw))


def read_manifest():
    rows = []
    with open(os.path.join(CORPUS, "manifest.tsv"), encoding="utf-8") as fh:
        header = next(fh).rstrip("\n").split("\t")
        if header[:5] != ["path", "label", "class", "language", "technique"]:
            sys.exit("flow_corpus: manifest.tsv has an unexpected header: %r"
                     % header)
        for n, line in enumerate(fh, 2):
            line = line.rstrip("\n")
            if not line:
                continue
            cols = line.split("\t")
            if len(cols) != 5 or cols[1] not in ("pos", "neg"):
                sys.exit("flow_corpus: manifest.tsv line %d is malformed" % n)
            rows.append(dict(zip(header, cols)))
    return rows


def scan(rel):
    """(rules at medium or above, rules at any severity) for one file, or an
    error message (a string) when the scan did not give a report."""
    if not os.path.isfile(os.path.join(CORPUS, rel)):
        return "no such file"
    try:
        p = subprocess.run(
            [BIN, "scan", "--rules", RULES, "--format", "json",
             "--fail-on", "never", rel],
            cwd=CORPUS, capture_output=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "the scan took longer than 600 s"
    except OSError as e:
        return "cannot run the scan: %s" % e
    if p.returncode != 0:
        return "scan exited %d: %s" % (
            p.returncode, p.stderr.decode("utf-8", "replace").strip()[:200])
    try:
        report = json.loads(p.stdout)
    except ValueError as e:
        return "the scan's output is not JSON: %s" % e
    findings = report.get("findings", []) if isinstance(report, dict) else []
    hi, every = set(), set()
    for f in findings:
        if not isinstance(f, dict):
            continue
        rule = str(f.get("rule", "?"))
        every.add(rule)
        if RANK.get(str(f.get("severity", "")).lower(), 0) >= MEDIUM:
            hi.add(rule)
    return sorted(hi), sorted(every)


rows = read_manifest()
jobs = max(1, int(number("FLOW_JOBS", 2)))
with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
    result = dict(zip([r["path"] for r in rows],
                      ex.map(scan, [r["path"] for r in rows])))


def failed(r):
    return isinstance(result[r["path"]], str)


def fired(r):
    return not failed(r) and bool(result[r["path"]][0])


classes = []
for r in rows:
    if r["class"] not in classes:
        classes.append(r["class"])

print("%-15s %9s %8s %7s %9s %12s %6s" % (
    "class", "positives", "detected", "recall", "negatives", "false-alarms",
    "errors"))
details = []
tot_p = tot_d = tot_n = tot_f = tot_e = 0
for cls in classes:
    mine = [r for r in rows if r["class"] == cls]
    pos = [r for r in mine if r["label"] == "pos"]
    neg = [r for r in mine if r["label"] == "neg"]
    hit = [r for r in pos if fired(r)]
    fa = [r for r in neg if fired(r)]
    errors = [r for r in mine if failed(r)]
    recall = 100.0 * len(hit) / len(pos) if pos else 100.0
    print("%-15s %9d %8d %6.1f%% %9d %12d %6d" % (
        cls, len(pos), len(hit), recall, len(neg), len(fa), len(errors)))
    tot_p += len(pos)
    tot_d += len(hit)
    tot_n += len(neg)
    tot_f += len(fa)
    tot_e += len(errors)
    for r in pos:
        if not fired(r) and not failed(r):
            low = result[r["path"]][1]
            details.append("missed      %s  (%s) %s  below medium: %s" % (
                r["path"], r["language"], r["technique"],
                ",".join(low) or "-"))
    for r in fa:
        details.append("false alarm %s  (%s) %s  rules: %s" % (
            r["path"], r["language"], r["technique"],
            ",".join(result[r["path"]][0])))
    for r in errors:
        details.append("scan error  %s  %s" % (r["path"], result[r["path"]]))

if env.get("FLOW_VERBOSE", "") == "1":
    for r in rows:
        res = result[r["path"]]
        details.append("file        %s %-60s %s" % (
            r["label"], r["path"],
            res if isinstance(res, str) else ",".join(res[0]) or "-"))

overall = 100.0 * tot_d / tot_p if tot_p else 100.0
print("%-15s %9d %8d %6.1f%% %9d %12d %6d" % (
    "all", tot_p, tot_d, overall, tot_n, tot_f, tot_e))
if details:
    print()
    print("\n".join(details))

min_recall = number("MIN_RECALL", 0.0)
max_fa = number("MAX_FA", 1000.0)
verdict = []
if overall < min_recall:
    verdict.append("recall %.1f%% < MIN_RECALL %g%%" % (overall, min_recall))
if tot_f > max_fa:
    verdict.append("%d false alarms > MAX_FA %g" % (tot_f, max_fa))
if tot_e:
    verdict.append("%d scans failed" % tot_e)
print()
if verdict:
    print("FAIL: " + "; ".join(verdict))
print("recall %.1f%% (%d/%d), false alarms %d/%d" % (
    overall, tot_d, tot_p, tot_f, tot_n))
sys.exit(1 if verdict else 0)
EOF
rc=$?
if report_only; then exit 0; fi
exit $rc
