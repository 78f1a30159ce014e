#!/usr/bin/env bash
# make fresh-check: the README's set-up commands on a bare Debian 12.
#
# Builds a minimal bookworm root with debootstrap (--variant=minbase: no
# make, no git, no compiler) in a temporary directory, copies a clean clone
# of this tree's HEAD into it, and runs the commands of the README's "Set up
# and test" block there, exactly as written, one after another as root:
# every command must exit 0, except `make run`, which serves until stopped:
# it must answer GET /healthz on 127.0.0.1:8420 within FRESH_RUN_WAIT
# seconds, and then stop cleanly on SIGINT (Ctrl-C).
#
# Root only; it downloads Debian packages (a few hundred MB) from
# FRESH_MIRROR. Uncommitted changes are not part of the check (the clone is
# of HEAD). The log is kept in $(BUILD)/fresh-check.log; the root is removed
# unless FRESH_KEEP=1. FRESH_CACHE=DIR keeps downloaded .deb files between
# runs (the packages are the same; only the download is saved).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
LOG=${FRESH_LOG:-$SRC/$BUILD/fresh-check.log}
MIRROR=${FRESH_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
RUN_WAIT=${FRESH_RUN_WAIT:-600}
PORT=8420

say() { echo "fresh-check: $*" >&2; }
die() { say "$*"; exit 2; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot); run: sudo make fresh-check"
# A private mount namespace: the root's /proc, /sys and /dev mounts can
# neither propagate to this machine's nor outlive the check.
if [ -z "${FRESH_IN_NS:-}" ]; then
	FRESH_IN_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q debootstrap >&2 ||
		{ apt-get update -q >&2 && apt-get install -y -q debootstrap >&2; } ||
		die "apt-get install debootstrap failed"
fi
command -v git >/dev/null || die "git is needed on this machine to clone the tree"
command -v curl >/dev/null || die "curl is needed on this machine to probe make run"
if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/"; then
	die "something already listens on 127.0.0.1:$PORT; make run inside the root would fail"
fi

# The README's commands: the first sh block after "## Set up and test",
# comments stripped, one command per line.
mapfile -t CMDS < <(awk '
	/^## Set up and test/ { sect = 1; next }
	sect && /^## / { exit }
	sect && /^```sh/ { inblk = 1; next }
	inblk && /^```/ { exit }
	inblk { sub(/[ \t]+#.*$/, ""); sub(/^[ \t]+/, ""); if ($0 != "") print }
' "$SRC/README.md")
[ ${#CMDS[@]} -gt 0 ] || die "no commands found under '## Set up and test' in README.md"

mkdir -p "$(dirname "$LOG")"
: > "$LOG"
TMP=$(mktemp -d "${TMPDIR:-/var/tmp}/airlock-fresh.XXXXXX")
ROOT=$TMP/root
RUN_PID=
# in_root CMD: CMD under /bin/sh in the root's clone, with a login-like,
# minimal environment (nothing of this machine's leaks in).
in_root() {
	chroot "$ROOT" /usr/bin/env -i HOME=/root USER=root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /root/airlock && $1"
}
# Processes whose root directory is the bare root.
root_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && echo "${p#/proc/}"
	done
	return 0
}

cleanup() {
	local rc=$?
	if [ -n "$RUN_PID" ] && kill -0 "$RUN_PID" 2>/dev/null; then
		kill -KILL -- -"$RUN_PID" 2>/dev/null || true
	fi
	# The chroot's processes (the gate, scan children) hold the mounts.
	local left
	left=$(root_pids)
	if [ -n "$left" ]; then
		kill -KILL $left 2>/dev/null || true
		sleep 1
	fi
	for m in dev sys proc var/cache/apt/archives; do
		if mountpoint -q "$ROOT/$m" 2>/dev/null; then umount -R -l "$ROOT/$m" || true; fi
	done
	if [ "${FRESH_KEEP:-0}" = 1 ]; then
		say "root kept in $ROOT"
	else
		rm -rf --one-file-system "$TMP"
	fi
	exit $rc
}
trap cleanup EXIT INT TERM

START=$SECONDS
step() { say "$*"; echo "### $*" >> "$LOG"; }

step "debootstrap --variant=minbase $SUITE into $ROOT ($MIRROR)"
cache_opt=()
if [ -n "${FRESH_CACHE:-}" ]; then
	mkdir -p "$FRESH_CACHE"
	cache_opt=(--cache-dir="$(cd "$FRESH_CACHE" && pwd)")
fi
debootstrap --variant=minbase "${cache_opt[@]}" "$SUITE" "$ROOT" "$MIRROR" >> "$LOG" 2>&1 ||
	die "debootstrap failed (log: $LOG)"

mount -t proc proc "$ROOT/proc"
mount -t sysfs sys "$ROOT/sys"
mount --rbind /dev "$ROOT/dev"
if [ -n "${FRESH_CACHE:-}" ]; then
	mount --bind "$(cd "$FRESH_CACHE" && pwd)" "$ROOT/var/cache/apt/archives"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$ROOT/etc/hosts"

# Fail early with a clear word when the root is not as bare as the README
# assumes: the check is worthless if make or git were already there.
for t in make git cc curl; do
	if chroot "$ROOT" /bin/sh -c "command -v $t" >/dev/null 2>&1; then
		die "the minimal root already has $t: not a bare machine"
	fi
done

step "clean clone of $(git -C "$SRC" rev-parse --short HEAD) into /root/airlock"
git clone -q --no-hardlinks "$SRC" "$ROOT/root/airlock" >> "$LOG" 2>&1 || die "git clone failed"

result=pass
for cmd in "${CMDS[@]}"; do
	t0=$SECONDS
	if [ "$cmd" = "make run" ]; then
		step "$cmd (in the background until GET /healthz answers, then SIGINT)"
		setsid bash -c "$(declare -f in_root); ROOT=\"\$1\"; in_root 'exec make run'" \
			fresh-run "$ROOT" >> "$LOG" 2>&1 &
		RUN_PID=$!
		up=0
		while [ $((SECONDS - t0)) -lt "$RUN_WAIT" ] && kill -0 "$RUN_PID" 2>/dev/null; do
			if curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/healthz"; then up=1; break; fi
			sleep 1
		done
		if [ $up = 1 ]; then
			kill -INT -- -"$RUN_PID"
			rc=0; wait "$RUN_PID" || rc=$?
			RUN_PID=
			# make reports the interrupted recipe; the gate itself must
			# have stopped on the signal, leaving nothing behind.
			sleep 1
			if [ -n "$(root_pids)" ]; then
				say "  $cmd: processes left after SIGINT"; result=fail
			else
				say "  $cmd: served /healthz, stopped on SIGINT (make exit $rc), $((SECONDS - t0)) s"
			fi
		else
			say "  $cmd: GET /healthz never answered within $RUN_WAIT s"; result=fail
		fi
	else
		step "$cmd"
		if in_root "$cmd" >> "$LOG" 2>&1; then
			say "  $cmd: ok, $((SECONDS - t0)) s"
		else
			say "  $cmd: FAILED after $((SECONDS - t0)) s"; result=fail
			break
		fi
	fi
done

say "$result in $((SECONDS - START)) s (log: $LOG)"
[ $result = pass ]
