#!/usr/bin/env bash
# intake_bench.sh - airlock's intake under load on loopback: submissions per
# second and latency to the acknowledgement (201) at 32 concurrent clients,
# for 10 KiB and 1 MiB artifacts; the scanning that follows is reported
# separately; each load is measured against a peer in the same run.
#
# Run from the repository root:  make bench  (which builds the load tool
# build/bench/intake_load), or on its own after `make build/bench/intake_load`:
#   bash bench/intake_bench.sh
#
# What it does:
#   1. makes a data directory under build/bench (`airlock init`, whose
#      stdout is the admin token) and starts `airlock serve --scanners 2` on
#      a free loopback port; makes an agent token with POST /v1/tokens;
#   2. starts the peer: a minimal Python HTTP server (http.server's
#      ThreadingHTTPServer: a thread per connection, one interpreter lock,
#      HTTP/1.1 keep-alive) that stores each POSTed body durably the way
#      airlock's store does - written to a temporary file, fsynced, renamed,
#      the directory fsynced - then answers 201 with a short JSON. It does
#      NOT hash the bytes, keep a database, check a token, a Host or an
#      Origin, or queue anything for scanning;
#   3. for 10 KiB, then 1 MiB bodies, interleaved: airlock, then the peer,
#      each for BENCH_INTAKE_SECONDS with BENCH_INTAKE_CLIENTS clients of
#      intake_load (one keep-alive connection each, a distinct body per
#      request so that nothing is deduplicated; text from /usr/include);
#      after airlock's load, waits until no submission is `received` or
#      `scanning` (GET /metrics) before going on, so that the peer never
#      competes with airlock's scanners;
#   4. scanning, separately: how many artifacts the 2 scanners finished while
#      the load ran (sharing the 2 CPUs with intake and the clients), the
#      backlog left at its end, and how fast that backlog drained (the
#      scanners alone), as artifacts/s and MB/s; mean scan time from the
#      airlock_scan_seconds histogram;
#   5. memory: VmRSS of `airlock serve` before and after each load, its
#      VmHWM at the end, the launchers' VmHWM, and the peer's VmHWM;
#   6. prints the table and appends it to build/bench/results.txt.
#
# Target (from the issue): p99 acknowledgement under 50 ms for 10 KiB
# artifacts at 32 clients on a 2-core machine. Targets are printed as met /
# NOT met, never enforced: the exit status is 0 whatever the figures
# (non-zero only when something could not run).
#
# Tunables (environment): BENCH_INTAKE_SECONDS (10; 3 with BENCH_QUICK=1),
# BENCH_INTAKE_CLIENTS (32), BENCH_INTAKE_SCANNERS (2),
# BENCH_INTAKE_DRAIN_TIMEOUT (600 s to wait for the scans), BENCH_DIR
# (build/bench), AIRLOCK_BIN (build/airlock), INTAKE_LOAD
# (build/bench/intake_load). MB means 10^6 bytes; MiB means 2^20 bytes.

set -euo pipefail
export LC_ALL=C

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
AIRLOCK=${AIRLOCK_BIN:-$ROOT/build/airlock}
LOAD=${INTAKE_LOAD:-$ROOT/build/bench/intake_load}
case $AIRLOCK in /*) ;; *) AIRLOCK=$ROOT/$AIRLOCK ;; esac
case $LOAD in /*) ;; *) LOAD=$ROOT/$LOAD ;; esac
BENCH=${BENCH_DIR:-$ROOT/build/bench}
QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then D_SECONDS=3; else D_SECONDS=10; fi
SECONDS_LOAD=${BENCH_INTAKE_SECONDS:-$D_SECONDS}
CLIENTS=${BENCH_INTAKE_CLIENTS:-32}
SCANNERS=${BENCH_INTAKE_SCANNERS:-2}
DRAIN_TIMEOUT=${BENCH_INTAKE_DRAIN_TIMEOUT:-600}
RESULTS=$BENCH/results.txt
P99_TARGET_MS=50
SIZES=(10240 1048576)
declare -A SIZE_NAME=([10240]="10 KiB" [1048576]="1 MiB")
# Keep airlock's compiled-database cache inside build/bench.
export AIRLOCK_CACHE_DIR=$BENCH/hscache
# Scratch space on the same file system for airlock and the peer (fsync
# costs what the disk costs: never a tmpfs for one and a disk for the
# other), deleted at exit.
S=$BENCH/intake-tmp

say() { printf '%s\n' "$*" >&2; }
die() { say "intake_bench: $*"; exit 1; }

SERVE_PID=
PEER_PID=
stop_pid() { # pid: SIGTERM, then SIGKILL after 10 s
	local pid=$1 _
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
}
cleanup() {
	stop_pid "$SERVE_PID"
	stop_pid "$PEER_PID"
	rm -rf "$S"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- tools ----

[ -x "$AIRLOCK" ] || die "$AIRLOCK not built; run 'make' first"
[ -x "$LOAD" ] || die "$LOAD not built; run 'make build/bench/intake_load'"
command -v curl >/dev/null 2>&1 || die "curl missing; 'make deps' installs it"
command -v python3 >/dev/null 2>&1 || die "python3 missing; 'make deps' installs it"
# The interpreter itself (not a wrapper such as a pyenv shim), so that the
# peer's pid is the server's.
PY=$(python3 -c 'import sys; print(sys.executable)')
[ -x "$PY" ] || die "cannot find python3's executable"

rm -rf "$S"
mkdir -p "$S" "$AIRLOCK_CACHE_DIR"

now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { if (b + 0 > 0) printf f, a / b; else printf "n/a" }'; }
met() { [ "$1" = 1 ] && echo "met" || echo "NOT met"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
mib() { awk -v k="$1" 'BEGIN { if (k + 0 > 0) printf "%.1f", k / 1024; else printf "n/a" }'; }

busy() { # percentage of CPU time used (by anything) over 1 second
	local a b
	a=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8, $5 }' /proc/stat)
	sleep 1
	b=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8, $5 }' /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ")
		u = y[1] - x[1]; i = y[2] - x[2]; printf "%.0f", (u + i) ? 100 * u / (u + i) : 0 }'
}

free_port() {
	"$PY" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

status_kib() { # pid field: VmRSS / VmHWM in KiB, 0 when gone
	local t
	t=$(cat "/proc/$1/status" 2>/dev/null) || t=
	printf '%s\n' "$t" | awk -v f="$2:" '$1 == f { v = $2 } END { print v + 0 }'
}

CLK_TCK=$(getconf CLK_TCK)
cpu_s() { # pids...: user + system CPU seconds, reaped children included
	local p t=0 v
	for p in "$@"; do
		# Fields after the ")" that ends the command name: 12-15 are
		# utime, stime, cutime, cstime (14-17 of the whole line).
		v=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null |
			awk '{ print $12 + $13 + $14 + $15 }') || v=0
		t=$((t + ${v:-0}))
	done
	awk -v t="$t" -v h="$CLK_TCK" 'BEGIN { printf "%.2f", t / h }'
}
serve_tree() { # the serve process and its direct children (the launchers)
	echo "$SERVE_PID"
	ps -o pid= --ppid "$SERVE_PID" 2>/dev/null || true
}
serve_cpu() { # CPU seconds of serve_tree
	local pids
	mapfile -t pids < <(serve_tree)
	cpu_s "${pids[@]}"
}

wait_http() { # url pid: until GET answers 200, the process alive
	local _
	for _ in $(seq 200); do
		kill -0 "$2" 2>/dev/null || return 1
		curl -sf -o /dev/null --noproxy '*' "$1" && return 0
		sleep 0.05
	done
	return 1
}

# ---------------------------------------------------- the body template ----
# Ordinary text (C headers of this machine), > 1 MiB, so that a 1 MiB body
# is text all through; each body's first bytes are made unique by the tool.

TEMPLATE=$S/template.txt
: >"$TEMPLATE"
while read -r f; do
	cat "$f" >>"$TEMPLATE"
	[ "$(stat -c %s "$TEMPLATE")" -lt 2000000 ] || break
done < <(find /usr/include -maxdepth 2 -name '*.h' -type f 2>/dev/null | sort)
[ "$(stat -c %s "$TEMPLATE")" -ge 1048576 ] ||
	say "note: /usr/include gave only $(stat -c %s "$TEMPLATE") bytes of text; bodies repeat it"
[ -s "$TEMPLATE" ] || TEMPLATE=

# ---------------------------------------------------------------- airlock ----

DATA=$S/airlock-data
ADMIN=$("$AIRLOCK" init --data "$DATA" 2>"$S/init.err") ||
	die "airlock init failed: $(cat "$S/init.err")"
[ -n "$ADMIN" ] || die "airlock init printed no admin token"

for _ in 1 2 3; do
	PORT=$(free_port)
	"$AIRLOCK" serve --data "$DATA" --listen "127.0.0.1:$PORT" \
		--scanners "$SCANNERS" 2>"$S/serve.log" &
	SERVE_PID=$!
	wait_http "http://127.0.0.1:$PORT/healthz" "$SERVE_PID" && break
	stop_pid "$SERVE_PID"
	SERVE_PID=
done
[ -n "$SERVE_PID" ] || die "airlock serve did not start: $(tail -n 5 "$S/serve.log")"
BASE=http://127.0.0.1:$PORT

api() { # token method path [curl args...]: body on stdout, fails on >= 400
	local tok=$1 m=$2 p=$3
	shift 3
	curl -sS --fail-with-body --noproxy '*' -X "$m" \
		-H @<(printf 'Authorization: Bearer %s\n' "$tok") "$@" "$BASE$p"
}

AGENT=$(api "$ADMIN" POST /v1/tokens -H 'Content-Type: application/json' \
	--data '{"role":"agent","name":"bench-1","on_behalf_of":"bench","ttl":"8h"}' |
	"$PY" -c 'import json, sys; print(json.load(sys.stdin)["token"])') ||
	die "cannot make an agent token"

metrics() { # prints "received scanning held scans scan_seconds_sum"
	api "$ADMIN" GET /metrics | awk '
		/^airlock_submissions\{state="received"\}/ { r = $2 }
		/^airlock_submissions\{state="scanning"\}/ { s = $2 }
		/^airlock_submissions\{state="held"\}/ { h = $2 }
		/^airlock_scans_total\{/ { n += $2 }
		/^airlock_scan_seconds_sum / { t = $2 }
		END { printf "%d %d %d %d %s\n", r, s, h, n, t + 0 }'
}

# ------------------------------------------------------------------- peer ----

cat >"$S/peer.py" <<'EOF'
# The peer: a minimal HTTP server that stores each POSTed body durably
# (temporary file, fsync, rename, fsync of the directory) and answers 201.
# No hashing, no database, no authentication, no scanning.
import json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

store, portfile = sys.argv[1], sys.argv[2]
dirfd = os.open(store, os.O_RDONLY | os.O_DIRECTORY)
lock = threading.Lock()
counter = [0]

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"    # keep-alive, as airlock
    disable_nagle_algorithm = True   # as libmicrohttpd: no 40 ms stalls

    def log_message(self, *args):
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(200, {"status": "ok"})

    def do_POST(self):
        try:
            left = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.close_connection = True
            return self.reply(411, {"error": "length required"})
        with lock:
            counter[0] += 1
            n = counter[0]
        tmp = os.path.join(store, ".tmp-%d" % n)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        size = 0
        try:
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 16))
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
                left -= len(chunk)
                size += len(chunk)
            if left > 0:
                raise ConnectionError("body cut short")
            os.fsync(fd)
        except Exception:
            os.close(fd)
            os.unlink(tmp)
            self.close_connection = True
            return
        os.close(fd)
        os.rename(tmp, os.path.join(store, "%d" % n))
        os.fsync(dirfd)
        self.reply(201, {"id": n, "size": size, "state": "received"})

class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

srv = Server(("127.0.0.1", 0), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
EOF
mkdir -p "$S/peer-store"
"$PY" "$S/peer.py" "$S/peer-store" "$S/peer.port" 2>"$S/peer.log" &
PEER_PID=$!
for _ in $(seq 100); do
	[ -s "$S/peer.port" ] && break
	kill -0 "$PEER_PID" 2>/dev/null || break
	sleep 0.05
done
[ -s "$S/peer.port" ] || die "the peer did not start: $(tail -n 5 "$S/peer.log")"
PEER_PORT=$(cat "$S/peer.port")
wait_http "http://127.0.0.1:$PEER_PORT/healthz" "$PEER_PID" || die "the peer does not answer"

# ------------------------------------------------------------------- load ----

declare -A R   # R[who-size-key] from the tool's RESULT line, and more

run_load() { # who size url token
	local who=$1 size=$2 url=$3 tok=$4 out=$S/load-$1-$2.txt k v kv kvs
	say "  $who, ${SIZE_NAME[$size]}: $CLIENTS clients, $SECONDS_LOAD s ..."
	INTAKE_LOAD_TOKEN=$tok "$LOAD" -u "$url" -c "$CLIENTS" -s "$size" \
		-d "$SECONDS_LOAD" ${TEMPLATE:+-f "$TEMPLATE"} >"$out" 2>"$out.err" ||
		die "intake_load failed: $(cat "$out.err")"
	grep -v '^RESULT ' "$out" | sed 's/^/    /' >&2
	read -ra kvs < <(sed -n 's/^RESULT //p' "$out") || kvs=()
	for kv in "${kvs[@]}"; do
		k=${kv%%=*}
		v=${kv#*=}
		R[$who-$size-$k]=$v
	done
	[ -n "${R[$who-$size-rps]:-}" ] || die "no RESULT line from intake_load ($out)"
	R[$who-$size-first_err]=$(sed -n 's/^intake_load: first error: //p' "$out")
}

BUSY_BEFORE=$(busy)
[ "$BUSY_BEFORE" -le 10 ] ||
	say "warning: the machine is already ${BUSY_BEFORE}% busy; timings will be noisy"
R[rss0]=$(status_kib "$SERVE_PID" VmRSS)

for size in "${SIZES[@]}"; do
	# ---- airlock: the load, then the drain.
	read -r _ _ h0 n0 t0 < <(metrics)
	c0=$(serve_cpu)
	ts=$(now)
	run_load airlock "$size" "$BASE/v1/submissions?name=bench-$size.txt" "$AGENT"
	te=$(now)
	c1=$(serve_cpu)
	read -r r1 s1 _ n1 _ < <(metrics)
	R[airlock-$size-cpu]=$(sub "$c1" "$c0")
	R[airlock-$size-backlog]=$((r1 + s1))
	R[airlock-$size-scanned_load]=$((n1 - n0))
	R[airlock-$size-load_s]=$(sub "$te" "$ts")
	say "  airlock, ${SIZE_NAME[$size]}: $((r1 + s1)) waiting for a scan at the end of the load; draining ..."
	drained=0
	while :; do
		read -r r2 s2 h2 n2 t2 < <(metrics)
		td=$(now)
		if [ $((r2 + s2)) -eq 0 ]; then drained=1; break; fi
		lt "$(sub "$td" "$te")" "$DRAIN_TIMEOUT" || break
		kill -0 "$SERVE_PID" 2>/dev/null || die "airlock serve died: $(tail -n 5 "$S/serve.log")"
		sleep 0.2
	done
	c2=$(serve_cpu)
	R[airlock-$size-drained]=$drained
	R[airlock-$size-drain_s]=$(sub "$td" "$te")
	R[airlock-$size-drain_cpu]=$(sub "$c2" "$c1")
	R[airlock-$size-scanned_drain]=$((n2 - n1))
	R[airlock-$size-scanned]=$((n2 - n0))
	R[airlock-$size-held]=$((h2 - h0))
	R[airlock-$size-all_s]=$(sub "$td" "$ts")
	R[airlock-$size-scan_mean_ms]=$(awk -v a="$t2" -v b="$t0" -v n="$((n2 - n0))" \
		'BEGIN { if (n > 0) printf "%.1f", (a - b) * 1000 / n; else printf "n/a" }')
	R[rss-$size]=$(status_kib "$SERVE_PID" VmRSS)

	# ---- the peer, the same load.
	c0=$(cpu_s "$PEER_PID")
	run_load peer "$size" "http://127.0.0.1:$PEER_PORT/v1/submissions?name=bench-$size.txt" "$AGENT"
	c1=$(cpu_s "$PEER_PID")
	R[peer-$size-cpu]=$(sub "$c1" "$c0")
	# (The stored bodies stay until the end: deleting thousands of files
	# here would slow the next run's file creation on some file systems.)
done

BUSY_AFTER=$(busy)
SERVE_HWM=$(status_kib "$SERVE_PID" VmHWM)
LAUNCHER_HWM=0
for p in $(ps -o pid= --ppid "$SERVE_PID" 2>/dev/null || true); do
	v=$(status_kib "$p" VmHWM)
	[ "$v" -le "$LAUNCHER_HWM" ] || LAUNCHER_HWM=$v
done
PEER_HWM=$(status_kib "$PEER_PID" VmHWM)
SERVE_THREADS=$(status_kib "$SERVE_PID" Threads)
SERVE_FDS=$(find "/proc/$SERVE_PID/fd" -mindepth 1 2>/dev/null | wc -l)
stop_pid "$SERVE_PID"
SERVE_PID=
# What airlock serve said besides its start and stop lines.
SERVE_COMPLAINTS=$(grep -v -e 'airlock serve: listening on' -e 'airlock serve: stopping' \
	"$S/serve.log" | head -n 5 || true)

# ----------------------------------------------------------------- report ----

row() { # who size
	local k=$1-$2
	printf '| %-16s | %7s | %6s | %8s | %7s | %7s | %7s | %7s | %8s | %6s | %7s |\n' \
		"$1, ${SIZE_NAME[$2]}" "${R[$k-ok]}" "${R[$k-errors]}" \
		"$(printf '%.1f' "${R[$k-rps]}")" "$(printf '%.1f' "${R[$k-mbps]}")" \
		"$(printf '%.2f' "${R[$k-p50_ms]}")" "$(printf '%.2f' "${R[$k-p90_ms]}")" \
		"$(printf '%.2f' "${R[$k-p99_ms]}")" "$(printf '%.2f' "${R[$k-max_ms]}")" \
		"${R[$k-cpu]}" "$(printf '%.2f' "${R[$k-client_cpu_s]}")"
}
srow() { # size
	local k=airlock-$1 bytes=$1
	printf '| %-8s | %9s | %7s | %6s | %7s | %7s | %6s | %7s | %6s | %8s | %8s |\n' \
		"${SIZE_NAME[$1]}" "${R[$k-ok]}" "${R[$k-scanned_load]}" \
		"$(div "${R[$k-scanned_load]}" "${R[$k-load_s]}" %.1f)" "${R[$k-backlog]}" \
		"$(printf '%.2f' "${R[$k-drain_s]}")" \
		"$(div "${R[$k-scanned_drain]}" "${R[$k-drain_s]}" %.1f)" \
		"$(div "$((${R[$k-scanned_drain]} * bytes))" "$(awk -v t="${R[$k-drain_s]}" 'BEGIN { print t * 1e6 }')" %.1f)" \
		"$(printf '%.2f' "${R[$k-all_s]}")" "${R[$k-scan_mean_ms]}" "${R[$k-drain_cpu]}"
}

P99_10K=${R[airlock-10240-p99_ms]}
TARGET_OK=0
lt "$P99_10K" "$P99_TARGET_MS" && [ "${R[airlock-10240-errors]}" = 0 ] && TARGET_OK=1

{
	echo
	echo "airlock intake benchmark - $(date -u '+%Y-%m-%d %H:%M UTC')$([ "$QUICK" = 1 ] && echo "  (BENCH_QUICK=1)")"
	echo "machine: $(nproc) CPUs, $(awk -F: '/model name/ { sub(/^ /, "", $2); print $2; exit }' /proc/cpuinfo), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM;" \
		"store: $(findmnt -n -o FSTYPE -T "$S" 2>/dev/null || echo '?') ($S)"
	echo "airlock: $("$AIRLOCK" version 2>/dev/null | sed -n 1p), serve --scanners $SCANNERS;" \
		"peer: Python $("$PY" -c 'import platform; print(platform.python_version())') http.server"
	echo "load: build/bench/intake_load, $CLIENTS clients (libcurl, one keep-alive connection each," \
		"no Expect: 100-continue), $SECONDS_LOAD s per run, bodies of distinct text; all on this machine"
	echo "machine busy before / after (other processes included): ${BUSY_BEFORE}% / ${BUSY_AFTER}%"
	echo
	echo "1. intake: POST /v1/submissions, latency = request start to the whole 201 response"
	echo
	printf '| %-16s | %7s | %6s | %8s | %7s | %7s | %7s | %7s | %8s | %6s | %7s |\n' \
		"run" "acked" "errors" "subm/s" "MB/s" "p50 ms" "p90 ms" "p99 ms" "max ms" "srv s" "cli s"
	printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..18})" \
		"--------:" "-------:" "---------:" "--------:" "--------:" "--------:" "--------:" \
		"---------:" "-------:" "--------:"
	for size in "${SIZES[@]}"; do
		row airlock "$size"
		row peer "$size"
	done
	echo "(srv s: CPU seconds of the server during the load - airlock's includes the scans that"
	echo " ran meanwhile; cli s: CPU seconds of the load tool, which shares the 2 CPUs)"
	echo
	for size in "${SIZES[@]}"; do
		k=$size
		echo "airlock vs peer, ${SIZE_NAME[$size]}: throughput $(div "${R[airlock-$k-rps]}" "${R[peer-$k-rps]}")" \
			"(airlock subm/s / peer's), p99 $(div "${R[peer-$k-p99_ms]}" "${R[airlock-$k-p99_ms]}")" \
			"(peer p99 / airlock's); > 1 is better for airlock"
	done
	echo "(the peer, Python's ThreadingHTTPServer, writes each body to a file, fsyncs it, renames it"
	echo " and fsyncs the directory, as airlock's store does; it does NOT hash, keep a database, check"
	echo " tokens, Host or Origin, or queue a scan. airlock does all of that before its 201.)"
	for who in airlock peer; do
		for size in "${SIZES[@]}"; do
			[ -z "${R[$who-$size-first_err]}" ] ||
				echo "*** $who, ${SIZE_NAME[$size]}: errors; first: ${R[$who-$size-first_err]}"
		done
	done
	echo
	echo "(each client waits for its answer before the next request, so the mean latency is"
	echo " $CLIENTS / throughput: a p99 under $P99_TARGET_MS ms needs well over $((CLIENTS * 1000 / P99_TARGET_MS)) submissions/s)"
	echo
	echo "p99 acknowledgement < $P99_TARGET_MS ms for 10 KiB at $CLIENTS clients: $(printf '%.2f' "$P99_10K") ms: $(met "$TARGET_OK")"
	echo
	echo "2. scanning the submissions ($SCANNERS scanners, shipped rules), reported apart from intake"
	echo
	printf '| %-8s | %9s | %7s | %6s | %7s | %7s | %6s | %7s | %6s | %8s | %8s |\n' \
		"size" "submitted" "scanned" "/s" "backlog" "drain s" "art/s" "MB/s" "held s" "mean ms" "CPU s"
	printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "----------" "----------:" "--------:" \
		"-------:" "--------:" "--------:" "-------:" "--------:" "-------:" "---------:" "---------:"
	for size in "${SIZES[@]}"; do
		srow "$size"
	done
	echo "(scanned, /s: finished during the load, sharing the CPUs with intake and the clients;"
	echo " backlog: received or scanning when the load ended; drain s, art/s, MB/s: the backlog"
	echo " scanned with nothing else running - the scanners' own throughput; held s: from the start"
	echo " of the load until every submission was held; mean ms: airlock_scan_seconds_sum / count;"
	echo " CPU s: the gate and its scan children during the drain)"
	for size in "${SIZES[@]}"; do
		[ "${R[airlock-$size-drained]}" = 1 ] ||
			echo "*** ${SIZE_NAME[$size]}: the backlog had not drained after $DRAIN_TIMEOUT s"
		[ "${R[airlock-$size-held]}" = "${R[airlock-$size-ok]}" ] ||
			echo "*** ${SIZE_NAME[$size]}: ${R[airlock-$size-ok]} acknowledged but ${R[airlock-$size-held]} became held"
		[ "${R[airlock-$size-backlog]}" -ge $((4 * SCANNERS)) ] ||
			echo "(${SIZE_NAME[$size]}: the scanners kept up with intake; the drain figures rest on a small backlog)"
	done
	echo
	echo "3. memory: airlock serve VmRSS $(mib "${R[rss0]}") MiB before the loads," \
		"$(mib "${R[rss-10240]}") after 10 KiB, $(mib "${R[rss-1048576]}") after 1 MiB;" \
		"VmHWM $(mib "$SERVE_HWM") MiB; launchers' VmHWM $(mib "$LAUNCHER_HWM") MiB;" \
		"peer VmHWM $(mib "$PEER_HWM") MiB"
	echo "   at the end: $SERVE_THREADS threads, $SERVE_FDS open fds"
	[ -z "$SERVE_COMPLAINTS" ] || {
		echo "*** airlock serve logged:"
		printf '%s\n' "$SERVE_COMPLAINTS" | sed 's/^/    /'
	}
} | tee -a "$RESULTS"
say "results appended to $RESULTS"
