#!/usr/bin/env bash
# reading_corpus.sh - measure whether the scan reads every text a consumer
# reads (issue 16, item 4): UTF-16 files, lone-CR line ends, strings inside
# binaries, pickles, and text with NUL bytes (which sh drops).
#
# Usage (from anywhere):  tests/reading_corpus.sh
#
# tests/data/reading/gen.py writes the labelled corpus into a private mktemp
# directory; ${AIRLOCK_BIN:-build/airlock} then scans every case file on its
# own (`scan --rules rules --format json --fail-on never FILE`, run from the
# corpus directory so the paths are relative). Per class:
#
#   detected      a positive with at least one finding at medium or above
#   false alarm   a negative with at least one finding at medium or above
#   recall        detected / positives
#
# A class fails when its recall is below MIN_RECALL_<class> (percent, default
# 90) or its false alarms are above MAX_FA_<class> (a count, default 0), or
# when a scan of one of its files failed; <class> is utf16, lone_cr,
# binary_strings, pickle or nul_text (upper case works too). Every missed positive and
# every false alarm is printed with its technique, and with what the plain
# control says: the same payload as UTF-8 text with LF line ends (for a
# binary, its strings), scanned too, tells a reading miss ("plain form
# found") from a rule that would miss the payload anyway ("plain form missed
# too"). READING_CONTROLS=0 skips the controls; READING_JOBS sets the number
# of scans at once (default 2); READING_VERBOSE=1 lists every case with the
# rules it hit.
#
# The last line is "N passed, M failed" over the five classes; the exit
# status is 1 if a class failed, unless AIRLOCK_READING_REPORT_ONLY=1, which
# prints the same figures and exits 0. A corpus that cannot be generated or a
# missing binary exits 1 in either mode: there are no figures to report.

set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${AIRLOCK_BIN:-build/airlock}
case $BIN in
/*) ;;
*) if [ -x "$PWD/$BIN" ]; then BIN=$PWD/$BIN; else BIN=$ROOT/$BIN; fi ;;
esac

if [ ! -x "$BIN" ]; then
	echo "reading_corpus: $BIN is not an executable (build it with make, or set AIRLOCK_BIN)" >&2
	echo "0 passed, 5 failed"
	exit 1
fi
for tool in python3 gcc; do
	if ! command -v $tool >/dev/null; then
		echo "reading_corpus: $tool is required to generate the corpus" >&2
		echo "0 passed, 5 failed"
		exit 1
	fi
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/airlock-reading.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if ! python3 "$ROOT/tests/data/reading/gen.py" "$WORK/corpus" \
	>"$WORK/gen.log" 2>&1; then
	echo "reading_corpus: gen.py failed:" >&2
	cat "$WORK/gen.log" >&2
	echo "0 passed, 5 failed"
	exit 1
fi

python3 - "$BIN" "$ROOT/rules" "$WORK/corpus" <<'EOF'
import concurrent.futures
import json
import os
import subprocess
import sys

BIN, RULES, CORPUS = sys.argv[1:4]
CLASSES = ("utf16", "lone-cr", "binary-strings", "pickle", "nul-text")
RANK = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
env = os.environ


def setting(prefix, cls, default):
    key = prefix + cls.replace("-", "_")
    for k in (key, key.upper()):
        if env.get(k, "") != "":
            try:
                return float(env[k])
            except ValueError:
                sys.exit("reading_corpus: %s=%r is not a number" % (k, env[k]))
    return default


def read_tsv(name):
    with open(os.path.join(CORPUS, name), encoding="utf-8") as fh:
        next(fh)
        return [line.rstrip("\n").split("\t") for line in fh]


def scan(rel):
    """Rules at medium or above that the scan of one file reports, or an
    error message (a string) when the scan did not give a report."""
    try:
        p = subprocess.run(
            [BIN, "scan", "--rules", RULES, "--format", "json",
             "--fail-on", "never", rel],
            cwd=CORPUS, capture_output=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "the scan took longer than 600 s"
    if p.returncode != 0:
        return "scan exited %d: %s" % (
            p.returncode, p.stderr.decode("utf-8", "replace").strip()[:200])
    try:
        report = json.loads(p.stdout)
    except ValueError as e:
        return "the scan's output is not JSON: %s" % e
    return sorted({f["rule"] for f in report.get("findings", [])
                   if RANK.get(f.get("severity"), 0) >= RANK["medium"]})


labels = read_tsv("labels.tsv")
controls = {case: ctl for ctl, case in read_tsv("controls.tsv")}
use_controls = env.get("READING_CONTROLS", "1") != "0"
jobs = max(1, int(env.get("READING_JOBS", "2") or "2"))

paths = [row[0] for row in labels]
if use_controls:
    paths += [controls[p] for p in paths if p in controls]
with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
    result = dict(zip(paths, ex.map(scan, paths)))

hdr = "%-15s %9s %8s %7s %9s %12s %6s" % (
    "class", "positives", "detected", "recall", "negatives", "false-alarms",
    "errors")
print(hdr)
passed = failed = 0
verdicts, details = [], []
for cls in CLASSES:
    rows = [r for r in labels if r[1] == cls]
    pos = [r for r in rows if r[2] == "pos"]
    neg = [r for r in rows if r[2] == "neg"]
    errors = [r for r in rows if isinstance(result[r[0]], str)]
    hit = [r for r in pos if isinstance(result[r[0]], list) and result[r[0]]]
    fa = [r for r in neg if isinstance(result[r[0]], list) and result[r[0]]]
    recall = 100.0 * len(hit) / len(pos) if pos else 100.0
    print("%-15s %9d %8d %6.1f%% %9d %12d %6d" % (
        cls, len(pos), len(hit), recall, len(neg), len(fa), len(errors)))
    min_recall = setting("MIN_RECALL_", cls, 90.0)
    max_fa = setting("MAX_FA_", cls, 0.0)
    why = []
    if recall < min_recall:
        why.append("recall %.1f%% < %g%%" % (recall, min_recall))
    if len(fa) > max_fa:
        why.append("%d false alarms > %g" % (len(fa), max_fa))
    if errors:
        why.append("%d scans failed" % len(errors))
    if why:
        failed += 1
        verdicts.append("FAIL %s: %s" % (cls, "; ".join(why)))
    else:
        passed += 1
        verdicts.append("ok   %s: recall %.1f%% >= %g%%, false alarms %d <= %g"
                        % (cls, recall, min_recall, len(fa), max_fa))

    def plain(rel, want_hit):
        ctl = controls.get(rel)
        if not use_controls or ctl is None:
            return ""
        r = result[ctl]
        if isinstance(r, str):
            return " [plain form: scan error]"
        if want_hit:
            return (" [plain form found: %s]" % ",".join(r) if r
                    else " [plain form missed too: the rules miss it]")
        return (" [plain form alarms too: %s]" % ",".join(r) if r
                else " [plain form is quiet]")

    for r in pos:
        if r not in hit and r not in errors:
            details.append("missed      %s  %s%s" % (r[0], r[3],
                                                     plain(r[0], True)))
    for r in fa:
        details.append("false alarm %s  %s  rules: %s%s" % (
            r[0], r[3], ",".join(result[r[0]]), plain(r[0], False)))
    for r in errors:
        details.append("scan error  %s  %s" % (r[0], result[r[0]]))
    if env.get("READING_VERBOSE", "") == "1":
        for r in rows:
            res = result[r[0]]
            details.append("case        %s %s  %s" % (
                r[2], r[0], res if isinstance(res, str)
                else ",".join(res) or "-"))

if use_controls:
    print()
    print("plain controls (the payload as UTF-8 text with LF line ends):")
    for cls in CLASSES:
        rows = [r for r in labels if r[1] == cls and r[0] in controls]
        if not rows:
            print("  %-15s none (no plain form)" % cls)
            continue
        p = [r for r in rows if r[2] == "pos"]
        n = [r for r in rows if r[2] == "neg"]
        ph = [r for r in p if isinstance(result[controls[r[0]]], list)
              and result[controls[r[0]]]]
        nh = [r for r in n if isinstance(result[controls[r[0]]], list)
              and result[controls[r[0]]]]
        print("  %-15s positives found %d / %d, negatives alarming %d / %d"
              % (cls, len(ph), len(p), len(nh), len(n)))
if details:
    print()
    for d in details:
        print(d)
print()
for v in verdicts:
    print(v)
print("%d passed, %d failed" % (passed, failed))
if failed and env.get("AIRLOCK_READING_REPORT_ONLY", "") != "1":
    sys.exit(1)
EOF
