#!/usr/bin/env bash
# e2e_live.sh - end-to-end tests of GET /v1/changes, the long-poll the
# review UI keeps open on its queue, against a real `airlock serve`: a
# waiter is answered promptly when a submission arrives, its scan's result
# is recorded by a scan thread, it is approved and released; not for a
# read or a refused login; with the same cursor when its wait runs out;
# waiting holds no thread of the pool; the bounds (2 per token, a quarter
# of --max-connections in all: 429 with Retry-After); a waiter whose
# client goes frees its slot; a revoked or expired token is answered 401
# while it waits; the waiters are answered at a stop; roles and arguments.
#
# Run from the repository root:  bash tests/e2e_live.sh
# The binary is $AIRLOCK_BIN (default build/airlock). Conventions as in
# tests/e2e_scan.sh; the server helpers are those of tests/e2e_review.sh.
# Waits are short (`wait=1` to `wait=20`, the request's own argument), so
# that no test waits for the 25 s default. Background requests are curl
# processes, each waited for by its pid. Needs curl and python3.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

require curl
unset AIRLOCK_SOCKET AIRLOCK_URL AIRLOCK_TOKEN AIRLOCK_PUBKEY AIRLOCK_DATA

# ---- the server (from tests/e2e_review.sh) -----------------------------------------

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

alive() {
	[ -r "/proc/$1/stat" ] || return 1
	! awk '{ sub(/^.*\) /, ""); exit !($1 == "Z") }' "/proc/$1/stat" 2>/dev/null
}

# BG: the pids of the background requests still to be waited for.
BG=()

on_exit() {
	local rc=$? i p
	for p in "${BG[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	if [ -n "${SPID:-}" ] && alive "$SPID"; then
		kill -TERM "$SPID" 2>/dev/null
		for i in $(seq 1 30); do
			alive "$SPID" || break
			sleep 0.1
		done
		kill -KILL "$SPID" 2>/dev/null
		wait "$SPID" 2>/dev/null
	fi
	if [ "$rc" != 0 ] && [ -s serve.log ]; then
		echo "  --- serve.log (last 20 lines):"
		tail -n 20 serve.log | sed 's/^/  | /'
	fi
	return "$rc"
}

srv_init() {
	"$BIN" init --data "$PWD/data" >admin.tok 2>init.err ||
		fail "airlock init failed: $(cat init.err)"
	ADMIN=$(cat admin.tok)
	[ -n "$ADMIN" ] || fail "airlock init printed no admin token"
}

# srv_start [SERVE-OPTIONS...]: serves ./data on a free port, 2 scanners,
# the test rules; sets PORT, URL, SPID.
srv_start() {
	local i
	[ -e data/airlock.db ] || srv_init
	trap on_exit EXIT
	for _ in 1 2 3; do
		PORT=$(free_port)
		URL=http://127.0.0.1:$PORT
		echo "--- serve --listen 127.0.0.1:$PORT $*" >>serve.log
		"$BIN" serve --data "$PWD/data" --listen "127.0.0.1:$PORT" \
			--scanners 2 --rules "$RULES" "$@" >>serve.log 2>&1 &
		SPID=$!
		for i in $(seq 1 200); do
			curl -s --max-time 2 "$URL/healthz" >/dev/null 2>&1 && return 0
			alive "$SPID" || break
			sleep 0.05
		done
		alive "$SPID" && fail "airlock serve did not answer /healthz within 10 s"
		wait "$SPID"
		SPID=
		tail -n 1 serve.log | grep -q 'in use' || break
	done
	fail "airlock serve did not start: $(tail -n 5 serve.log)"
}

# srv_stop: SIGTERM; the server must exit 0 within 10 s; its time in
# $STOP_SECS.
srv_stop() {
	local i rc=0 t0
	alive "$SPID" || fail "airlock serve died before the end of the test"
	t0=$(date +%s.%N)
	kill -TERM "$SPID"
	for i in $(seq 1 100); do
		alive "$SPID" || break
		sleep 0.05
	done
	alive "$SPID" && fail "airlock serve still runs 5 s after SIGTERM"
	wait "$SPID" || rc=$?
	STOP_SECS=$(python3 -c "import sys; print('%.2f' % ($(date +%s.%N) - $t0))")
	SPID=
	[ "$rc" = 0 ] || fail "airlock serve exited $rc after SIGTERM, expected 0"
}

# ---- requests ----------------------------------------------------------------------

# api METHOD PATH TOKEN [CURL-ARGS...]: the body in $OUT, the status in
# $CODE, the headers in $OUT.h.
api() {
	local m=$1 p=$2 t=$3 auth=()
	shift 3
	[ -z "$t" ] || auth=(-H "Authorization: Bearer $t")
	CODE=$(curl -sS --max-time 30 -o "$OUT" -D "$OUT.h" -w '%{http_code}' -X "$m" \
		"${auth[@]}" "$@" "$URL$p" 2>"$ERR") || true
}

expect_code() {
	[ "$CODE" = "$1" ] || fail "${2:-request}: HTTP $CODE, expected $1"
}

# expect_all EXPR WANT [EXPR WANT...] on the JSON in $OUT.
expect_all() {
	local msg
	msg=$(python3 - "$OUT" "$@" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1], "rb"))
a = sys.argv[2:]
for e, w in zip(a[0::2], a[1::2]):
    try:
        v = str(eval(e))
    except Exception as x:
        v = "error: %r" % x
    if v != w:
        print("%s: got '%s', expected '%s'" % (e, v, w))
        break
EOF
	) || fail "the answer is not JSON: $msg"
	[ -z "$msg" ] || fail "$msg"
}

# expect_error MESSAGE: $OUT is exactly {"error": MESSAGE}.
expect_error() {
	python3 - "$OUT" "$1" <<'EOF' || fail "the error body is not {\"error\": \"$1\"}: $(cat "$OUT")"
import json, sys
d = json.load(open(sys.argv[1], "rb"))
assert d == {"error": sys.argv[2]}, d
EOF
}

tok_of_out() { grep -o '"token": *"alk_[^"]*"' "$OUT" | grep -o 'alk_[^"]*'; }

# mk_token ROLE NAME [ON_BEHALF_OF [TTL]]: the token in $TOK.
mk_token() {
	api POST /v1/persons "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary "{\"name\": \"${3:-$2}\"}"
	[ "$CODE" = 201 ] || [ "$CODE" = 409 ] || fail "POST /v1/persons ${3:-$2}: HTTP $CODE"
	local body="{\"role\": \"$1\", \"name\": \"$2\"${3:+, \"on_behalf_of\": \"$3\"}${4:+, \"ttl\": \"$4\"}}"
	api POST /v1/tokens "$ADMIN" -H 'Content-Type: application/json' --data-binary "$body"
	expect_code 201 "POST /v1/tokens $body"
	TOK=$(tok_of_out)
	[ -n "$TOK" ] || fail "no token in the answer"
}

# submit TOKEN FILE [QUERY]: 201 expected; the id in $SID.
submit() {
	api POST "/v1/submissions${3:+?$3}" "$1" --data-binary "@$2"
	expect_code 201 "submit $2"
	SID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$OUT")
}

# state_of ID: the submission's state (admin).
state_of() {
	api GET "/v1/submissions/$1" "$ADMIN"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"])' "$OUT"
}

# wait_state ID STATE: within 20 s.
wait_state() {
	local i
	for i in $(seq 1 400); do
		[ "$(state_of "$1")" = "$2" ] && return 0
		sleep 0.05
	done
	fail "submission $1: not '$2' after 20 s"
}

# last_event ID ACTION: the id of the submission's newest ACTION event.
last_event() {
	api GET "/v1/submissions/$1/events" "$ADMIN"
	expect_code 200 "events of $1"
	python3 -c '
import json, sys
v = [e["id"] for e in json.load(open(sys.argv[1]))["events"] if e["action"] == sys.argv[2]]
print(v[-1] if v else "none")' "$OUT" "$2"
}

# cursor TOKEN: the cursor now (GET /v1/changes without after) in $CUR.
cursor() {
	api GET /v1/changes "$1"
	expect_code 200 "GET /v1/changes"
	expect_all 'd["changed"]' True 'sorted(d)' "['changed', 'cursor']"
	CUR=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cursor"])' "$OUT")
}

# poll_bg NAME TOKEN QUERY: GET /v1/changes?QUERY in the background, its
# body in NAME.out, "STATUS SECONDS" in NAME.w; its pid in $PID (and BG).
poll_bg() {
	curl -sS --max-time 40 -o "$1.out" -w '%{http_code} %{time_total}' \
		-H "Authorization: Bearer $2" "$URL/v1/changes${3:+?$3}" >"$1.w" 2>"$1.err" &
	PID=$!
	BG+=("$PID")
}

# poll_join NAME PID: waits for that request; its status in $CODE, its
# time in $SECS, its body copied to $OUT, its cursor and changed in $ACUR
# and $ACHG.
poll_join() {
	local p keep=()
	wait "$2" || true
	for p in "${BG[@]}"; do [ "$p" = "$2" ] || keep+=("$p"); done
	BG=("${keep[@]}")
	CODE= SECS=
	read -r CODE SECS <"$1.w" # (no newline after it: read says 1)
	[ -n "$SECS" ] || fail "$1: no answer ($(cat "$1.err"))"
	cp "$1.out" "$OUT"
	# Its cursor and changed, if it has them (before $OUT is reused).
	ACUR=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("cursor", ""))' "$OUT" 2>/dev/null)
	ACHG=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("changed", ""))' "$OUT" 2>/dev/null)
}

# under SECS LIMIT WHAT / over SECS LIMIT WHAT
under() { python3 -c "import sys; sys.exit(not $1 < $2)" || fail "$3: $1 s, expected under $2 s"; }
over() { python3 -c "import sys; sys.exit(not $1 >= $2)" || fail "$3: $1 s, expected at least $2 s"; }

# metric NAME: its value on /metrics (admin), in $M.
metric() {
	api GET /metrics "$ADMIN"
	expect_code 200 "GET /metrics"
	M=$(awk -v n="$1" '$1 == n { print $2; exit }' "$OUT")
	[ -n "$M" ] || fail "no $1 on /metrics"
}

# waiting N: the gate holds exactly N waiters, within 5 s.
waiting() {
	local i
	for i in $(seq 1 100); do
		metric airlock_changes_waiting
		[ "$M" = "$1" ] && return 0
		sleep 0.05
	done
	fail "airlock_changes_waiting is $M, expected $1"
}

# ---- answered at once ---------------------------------------------------------------

# Without after, or with a cursor that is not the gate's, the answer comes
# at once with the gate's cursor.
t_answered_at_once() {
	srv_start
	mk_token reviewer rev-1
	cursor "$TOK"
	[ "$CUR" -gt 0 ] || fail "cursor $CUR: the new gate has events"
	local c=$CUR
	for after in $((c - 1)) $((c + 1000)) 0; do
		poll_bg p "$TOK" "after=$after&wait=20"
		poll_join p "$PID"
		expect_code 200 "after=$after"
		under "$SECS" 2 "after=$after (not the gate's cursor)"
		expect_all 'd["cursor"]' "$c" 'd["changed"]' True
	done
	srv_stop
}

# ---- woken --------------------------------------------------------------------------

# A submission arriving wakes a waiter at once: its cursor is the submit
# event's (or a later one of that submission), its changed true.
t_woken_by_a_submission() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token reviewer rev-1
	local REV=$TOK
	cursor "$REV"
	poll_bg w "$REV" "after=$CUR&wait=20"
	waiting 1
	printf 'hello\n' >a.txt
	submit "$AG" a.txt name=a.txt
	poll_join w "$PID"
	expect_code 200 "the waiter"
	under "$SECS" 5 "woken by a submission (wait=20)"
	expect_all 'd["changed"]' True
	local got sub
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cursor"])' "$OUT")
	sub=$(last_event "$SID" submit)
	[ "$got" -ge "$sub" ] || fail "cursor $got is before the submit event $sub"
	waiting 0
	metric 'airlock_changes_answered_total{why="change"}'
	[ "$M" = 1 ] || fail "answered for a change: $M, expected 1"
	srv_stop
}

# The scan thread's result wakes a waiter: started while the submission
# is being scanned (a tar whose 400 members are each kept: seconds), it is
# answered before its wait, with the scan.finish event's id.
t_woken_by_a_scan_result() {
	# The scan child hangs on purpose (the test fault) until --timeout ends
	# it: the scan lasts 8 s whatever the machine's speed or load, so the
	# readings around the cursor happen inside it, and its result (the
	# timeout, recorded as unscannable) comes well inside the longest
	# wait (25 s).
	AIRLOCK_TEST_CHILD_FAULT=hang:slow srv_start --scanners 1 --timeout 8
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token reviewer rev-1
	local REV=$TOK st
	printf 'a harmless file\n' >slow.txt
	submit "$AG" slow.txt name=slow.txt
	wait_state "$SID" scanning 10
	# The cursor is read between two readings of "scanning": it holds the
	# scan's start and not its end, so the waiter is woken by the result.
	cursor "$REV"
	st=$(state_of "$SID")
	[ "$st" = scanning ] || fail "submission $SID is $st right after its cursor, expected scanning"
	poll_bg w "$REV" "after=$CUR&wait=25"
	poll_join w "$PID"
	expect_code 200 "the waiter"
	under "$SECS" 24 "woken by the scan's result (wait=25)"
	[ "$ACHG" = True ] || fail "changed: $ACHG"
	[ "$(state_of "$SID")" = held ] || fail "the waiter was answered before the scan was recorded"
	[ "$ACUR" = "$(last_event "$SID" scan.finish)" ] ||
		fail "cursor $ACUR, expected the scan.finish event's id $(last_event "$SID" scan.finish)"
	api GET "/v1/submissions/$SID" "$ADMIN"
	expect_all 'd["verdict"]' unscannable
	srv_stop
}

# Approvals and the release wake it, each with its own event's id.
t_woken_by_approvals_and_release() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token reviewer rev-1
	local R1=$TOK
	mk_token reviewer rev-2
	local R2=$TOK
	mk_token ci ci-1
	local CI=$TOK sha rs ap
	printf 'GITHUB_TOKEN=%s\n' "$PAT1" >secret.env # critical: two approvals
	submit "$AG" secret.env name=secret.env
	wait_state "$SID" held
	api GET "/v1/submissions/$SID" "$ADMIN"
	sha=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sha256"])' "$OUT")
	rs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["scan"]["ruleset"])' "$OUT")
	for who in "$R1" "$R2"; do
		api GET "/v1/submissions/$SID/content" "$who"
		expect_code 200 "content"
		cursor "$CI"
		poll_bg w "$CI" "after=$CUR&wait=20"
		waiting 1
		api POST "/v1/submissions/$SID/approve" "$who" -H 'Content-Type: application/json' \
			--data-binary "{\"sha256\": \"$sha\", \"ruleset\": \"$rs\"}"
		expect_code 200 "approve"
		poll_join w "$PID"
		expect_code 200 "the waiter"
		under "$SECS" 5 "woken by an approval"
		[ "$ACHG" = True ] || fail "changed: $ACHG"
		ap=$(last_event "$SID" approve)
		[ "$ACUR" -ge "$ap" ] || fail "cursor $ACUR is before the approve event $ap"
	done
	[ "$(state_of "$SID")" = approved ] || fail "not approved after two approvals"
	cursor "$R1"
	poll_bg w "$R1" "after=$CUR&wait=20"
	waiting 1
	api POST "/v1/submissions/$SID/release" "$CI" --data-binary '{}'
	expect_code 200 "release by ci"
	poll_join w "$PID"
	expect_code 200 "the waiter"
	under "$SECS" 5 "woken by the release"
	[ "$ACHG" = True ] || fail "changed: $ACHG"
	[ "$ACUR" = "$(last_event "$SID" release)" ] ||
		fail "cursor $ACUR, expected the release event's id $(last_event "$SID" release)"
	srv_stop
}

# ---- not woken ----------------------------------------------------------------------

# Its wait over, a waiter is answered with the cursor it came with. A read
# (the content viewed) and refused logins meanwhile do not wake it.
t_timeout_keeps_the_cursor() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token reviewer rev-1
	local REV=$TOK c
	printf 'hello\n' >a.txt
	submit "$AG" a.txt name=a.txt
	wait_state "$SID" held
	cursor "$REV"
	c=$CUR
	poll_bg w "$REV" "after=$c&wait=1"
	poll_join w "$PID"
	expect_code 200 "wait=1"
	over "$SECS" 0.95 "wait=1"
	under "$SECS" 3 "wait=1"
	expect_all 'd["cursor"]' "$c" 'd["changed"]' False
	poll_bg w "$REV" "after=$c&wait=2"
	waiting 1
	api GET "/v1/submissions/$SID/content" "$REV"
	expect_code 200 "content (a view is recorded)"
	[ "$(last_event "$SID" view)" != none ] || fail "no view event"
	api GET /v1/submissions "alk_not-a-token"
	expect_code 401 "a refused login"
	api GET /v1/changes "$AG"
	expect_code 403 "an agent (a refused login too)"
	poll_join w "$PID"
	expect_code 200 "wait=2"
	over "$SECS" 1.95 "a read and refused logins woke the waiter"
	expect_all 'd["cursor"]' "$c" 'd["changed"]' False
	metric 'airlock_changes_answered_total{why="timeout"}'
	[ "$M" = 2 ] || fail "answered at their deadline: $M, expected 2"
	srv_stop
}

# Waiting holds no thread of the pool (8 a listener): with 12 requests
# waiting, other requests are answered at once, and all 12 are woken by
# one submission.
t_waiting_holds_no_thread() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK i t p=() n=0
	cursor "$ADMIN"
	for i in 1 2 3 4 5 6; do
		mk_token reviewer "rev-$i"
		t=$TOK
		poll_bg "w$i-a" "$t" "after=$CUR&wait=20"
		p+=("w$i-a:$PID")
		poll_bg "w$i-b" "$t" "after=$CUR&wait=20"
		p+=("w$i-b:$PID")
	done
	waiting 12
	for i in 1 2 3; do
		api GET /healthz ""
		expect_code 200 "/healthz with 12 waiting"
		api GET /v1/submissions "$ADMIN"
		expect_code 200 "the list with 12 waiting"
	done
	printf 'hello\n' >a.txt
	submit "$AG" a.txt name=a.txt
	for i in "${p[@]}"; do
		poll_join "${i%%:*}" "${i##*:}"
		expect_code 200 "${i%%:*}"
		under "$SECS" 10 "${i%%:*}, woken by a submission"
		expect_all 'd["changed"]' True
		n=$((n + 1))
	done
	[ "$n" = 12 ] || fail "$n answered"
	waiting 0
	srv_stop
}

# ---- bounds -------------------------------------------------------------------------

# Two waiting per token: the third is 429 with Retry-After (when the first
# is due, at the latest) and the gate's reason; another token still waits.
# A waiting client that goes away frees its slot at once.
t_per_token_limit_and_client_gone() {
	srv_start
	mk_token reviewer rev-1
	local R1=$TOK
	mk_token reviewer rev-2
	local R2=$TOK p1 p2 p3 p4 ra
	cursor "$R1"
	poll_bg a "$R1" "after=$CUR&wait=20"
	p1=$PID
	poll_bg b "$R1" "after=$CUR&wait=20"
	p2=$PID
	waiting 2
	api GET "/v1/changes?after=$CUR&wait=20" "$R1"
	expect_code 429 "a third waiter of one token"
	expect_error "this token has 2 requests waiting for changes already, the most it may: wait for one to be answered"
	ra=$(grep -i '^retry-after:' "$OUT.h" | tr -d '\r' | awk '{print $2}')
	[ -n "$ra" ] && [ "$ra" -ge 1 ] && [ "$ra" -le 21 ] || fail "Retry-After: '$ra', expected 1 to 21"
	metric 'airlock_changes_refused_total{limit="token"}'
	[ "$M" = 1 ] || fail "refused per token: $M"
	poll_bg c "$R2" "after=$CUR&wait=20"
	p3=$PID
	waiting 3
	# The first client goes: its slot is free again within a moment.
	kill -TERM "$p1"
	wait "$p1" 2>/dev/null
	BG=("$p2" "$p3")
	waiting 2
	metric 'airlock_changes_answered_total{why="client_gone"}'
	[ "$M" = 1 ] || fail "answered as gone: $M, expected 1"
	poll_bg d "$R1" "after=$CUR&wait=20"
	p4=$PID
	waiting 3
	srv_stop
	for p in b:$p2 c:$p3 d:$p4; do
		poll_join "${p%%:*}" "${p##*:}"
		expect_code 200 "${p%%:*} at the stop"
	done
}

# In all, a quarter of --max-connections (16: 4); the fifth is 429 with
# the gate's reason, whatever its token.
t_gate_limit() {
	srv_start --max-connections 16
	local i t toks=() c
	for i in 1 2 3; do
		mk_token reviewer "rev-$i"
		toks+=("$TOK")
	done
	metric airlock_changes_waiting_limit
	[ "$M" = 4 ] || fail "the limit with --max-connections 16: $M, expected 4"
	cursor "${toks[0]}"
	c=$CUR
	for t in "${toks[0]}" "${toks[0]}" "${toks[1]}" "${toks[1]}"; do
		poll_bg "w${#BG[@]}" "$t" "after=$c&wait=20"
	done
	waiting 4
	api GET "/v1/changes?after=$c&wait=20" "${toks[2]}"
	expect_code 429 "a fifth waiter"
	expect_error "the gate has 4 requests waiting for changes already, the most it holds: try again later"
	grep -qi '^retry-after: [0-9]' "$OUT.h" || fail "no Retry-After"
	api GET /healthz ""
	expect_code 200 "/healthz with the waiters at their limit"
	srv_stop
	under "$STOP_SECS" 3 "a stop with 4 waiters"
}

# ---- tokens -------------------------------------------------------------------------

# A token revoked while it waits is answered 401 at once; another token's
# waiter is not answered by it (it checks its token and waits on).
t_revoked_while_waiting() {
	srv_start
	mk_token reviewer rev-1
	local R1=$TOK
	mk_token reviewer rev-2
	local R2=$TOK pa pb
	cursor "$R1"
	poll_bg a "$R1" "after=$CUR&wait=20"
	pa=$PID
	poll_bg b "$R2" "after=$CUR&wait=3"
	pb=$PID
	waiting 2
	api DELETE /v1/tokens/rev-1 "$ADMIN"
	expect_code 200 "revoke rev-1"
	poll_join a "$pa"
	expect_code 401 "the revoked token's waiter"
	under "$SECS" 5 "answered at the revocation"
	python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["error"]; sys.exit(not e.startswith("token revoked at "))' "$OUT" ||
		fail "not 'token revoked at': $(cat "$OUT")"
	poll_join b "$pb"
	expect_code 200 "the other token's waiter"
	over "$SECS" 2.9 "rev-2's waiter, answered by rev-1's revocation"
	expect_all 'd["changed"]' False
	metric 'airlock_changes_answered_total{why="unauthenticated"}'
	[ "$M" = 1 ] || fail "answered 401: $M, expected 1"
	srv_stop
}

# A token that expires while it waits is answered 401 at its expiry.
t_expired_while_waiting() {
	srv_start
	mk_token reviewer rev-1 "" 3s
	local T=$TOK
	cursor "$T"
	poll_bg a "$T" "after=$CUR&wait=20"
	poll_join a "$PID"
	expect_code 401 "the expired token's waiter"
	under "$SECS" 6 "answered at the token's expiry (3 s; wait=20)"
	python3 -c 'import json,sys; e = json.load(open(sys.argv[1]))["error"]; sys.exit(not e.startswith("token expired at "))' "$OUT" ||
		fail "not 'token expired at': $(cat "$OUT")"
	srv_stop
}

# ---- the stop -----------------------------------------------------------------------

# SIGTERM answers every waiter at once (200, the cursor unchanged, the
# connection closed), and the gate exits 0 without waiting for them.
t_stop_answers_waiters() {
	srv_start
	mk_token reviewer rev-1
	local R1=$TOK pa pb
	cursor "$R1"
	poll_bg a "$R1" "after=$CUR&wait=20"
	pa=$PID
	poll_bg b "$ADMIN" "after=$CUR&wait=20"
	pb=$PID
	waiting 2
	srv_stop
	under "$STOP_SECS" 3 "a stop with 2 waiters"
	for p in a:$pa b:$pb; do
		poll_join "${p%%:*}" "${p##*:}"
		expect_code 200 "${p%%:*} at the stop"
		under "$SECS" 5 "${p%%:*} at the stop"
		expect_all "d[\"cursor\"]" "$CUR" 'd["changed"]' False
	done
}

# ---- roles and arguments ------------------------------------------------------------------

t_roles_and_arguments() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	local role
	for role in reviewer ci auditor; do
		mk_token "$role" "$role-1"
		api GET /v1/changes "$TOK"
		expect_code 200 "$role"
	done
	api GET /v1/changes "$ADMIN"
	expect_code 200 "admin"
	api GET /v1/changes "$AG"
	expect_code 403 "an agent"
	expect_error "this token's role may not do that"
	api GET "/v1/changes?after=1&wait=1" "$AG"
	expect_code 403 "an agent, waiting"
	api GET /v1/changes ""
	expect_code 401 "no token"
	# The intake socket serves no such route.
	CODE=$(curl -sS --max-time 10 -o "$OUT" -w '%{http_code}' --unix-socket data/intake.sock \
		-H "Authorization: Bearer $AG" http://localhost/v1/changes 2>"$ERR") || true
	expect_code 404 "on the intake socket"
	expect_error "no such endpoint"
	api POST /v1/changes "$ADMIN" --data-binary '{}'
	expect_code 404 "POST"
	local q want
	while IFS='|' read -r q want; do
		api GET "/v1/changes?$q" "$ADMIN"
		expect_code 400 "?$q"
		expect_error "$want"
	done <<'EOF'
after=abc|after is the cursor of an earlier answer: a decimal from 0
after=-1|after is the cursor of an earlier answer: a decimal from 0
after=1234567890123456789|after is the cursor of an earlier answer: a decimal from 0
wait=0|wait is 1 to 25 seconds
wait=26|wait is 1 to 25 seconds
wait=x|wait is 1 to 25 seconds
after=1&after=2|after is given twice
after=|after has no value
since=1|unknown query argument (this endpoint takes after and wait)
EOF
	api GET "/v1/changes?wait=25" "$ADMIN"
	expect_code 200 "wait=25, no after: at once"
	srv_stop
}

run_tests
