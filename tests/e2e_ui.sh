#!/usr/bin/env bash
# e2e_ui.sh - end-to-end tests of the review UI's files as `airlock serve`
# serves them (gate/serve/ui.c, docs/review-ui.md) and of the security
# headers of every answer: the exact Content-Type and headers of each file,
# the ETag and 304, the redirect of /, HEAD without a body, 404 for every
# name that is not exactly one read at start (a symbolic link, a bad name,
# a subdirectory, .., %-escapes, //, a trailing slash, a query), 405 for
# other methods, nothing on the intake socket, the Host check, the API's
# own headers (and Content-Disposition on artifact content), the limits
# that stop the start, a gate without a UI, --check-config, a reload.
#
# Run from the repository root:  bash tests/e2e_ui.sh
# The binary is $AIRLOCK_BIN (default build/airlock). Conventions as in
# tests/e2e_scan.sh: one t_* function per test, each in its own empty
# directory; every test makes its own data directory and UI directory and
# serves them on a free loopback port (an EXIT trap stops the gate when a
# test fails half-way). The server helpers are copied from
# tests/e2e_review.sh. Needs curl, python3, sha256sum, cmp, dd, mkfifo.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

require curl pgrep sha256sum cmp dd mkfifo
unset AIRLOCK_SOCKET AIRLOCK_URL AIRLOCK_TOKEN AIRLOCK_DATA AIRLOCK_UI_DIR

UI_CSP="default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
API_CSP="default-src 'none'; frame-ancestors 'none'"

# ---- the server (from tests/e2e_review.sh) ------------------------------------

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

alive() {
	[ -r "/proc/$1/stat" ] || return 1
	! awk '{ sub(/^.*\) /, ""); exit !($1 == "Z") }' "/proc/$1/stat" 2>/dev/null
}

gate_procs() {
	pgrep -f -- "--data $PWD/data " || true
}

kill_leftovers() {
	local p
	for p in $(gate_procs); do
		kill -KILL "$p" 2>/dev/null
	done
}

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
	kill_leftovers
	if [ "$rc" != 0 ] && [ -s serve.log ]; then
		echo "  --- serve.log (last 20 lines):"
		tail -n 20 serve.log | sed 's/^/  | /'
	fi
	wait 2>/dev/null
	return "$rc"
}

srv_init() {
	"$BIN" init --data "$PWD/data" >admin.tok 2>init.err ||
		fail "airlock init failed: $(cat init.err)"
	ADMIN=$(cat admin.tok)
	[ -n "$ADMIN" ] || fail "airlock init printed no admin token"
}

# srv_start [SERVE-OPTIONS...]: serves ./data on a free port, 2 scanners,
# the test rules, the UI of ./ui unless the options name another (--ui
# given twice: the last one counts); sets PORT, URL, SPID.
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
			--scanners 2 --rules "$RULES" --ui "$PWD/ui" "$@" >>serve.log 2>&1 &
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
}

# ---- requests ----------------------------------------------------------------------

# req METHOD PATH [CURL-ARGS...]: a request to the TCP listener, the path
# sent as it is (no .. or // resolved by curl); the body in $OUT, the
# headers in $HDR (CR removed), the status in $CODE ("000": no answer).
HDR=headers
req() {
	local m=$1 p=$2
	shift 2
	CODE=$(curl -sS --max-time 30 --path-as-is -o "$OUT" -D "$HDR.raw" \
		-w '%{http_code}' -X "$m" "$@" "$URL$p" 2>"$ERR") || true
	tr -d '\r' <"$HDR.raw" >"$HDR" 2>/dev/null || : >"$HDR"
}

# head_req PATH: HEAD (curl -I: no body is waited for); headers in $HDR.
head_req() {
	CODE=$(curl -sS --max-time 30 --path-as-is -I -o "$HDR.raw" \
		-w '%{http_code}' "$URL$1" 2>"$ERR") || true
	tr -d '\r' <"$HDR.raw" >"$HDR"
}

# api METHOD PATH TOKEN [CURL-ARGS...]: req with a bearer token.
api() {
	local m=$1 p=$2 t=$3
	shift 3
	req "$m" "$p" -H "Authorization: Bearer $t" "$@"
}

expect_code() { # CODE WHAT
	[ "$CODE" = "$1" ] || fail "${2:-request}: HTTP $CODE, expected $1"
}

# expect_header NAME VALUE: the answer has that header exactly once, with
# exactly that value.
expect_header() {
	local n v
	n=$(grep -ci "^$1:" "$HDR")
	[ "$n" = 1 ] || fail "$1: $n times in the headers of the answer, expected once: $(cat "$HDR")"
	v=$(grep -i "^$1:" "$HDR" | sed 's/^[^:]*: *//')
	[ "$v" = "$2" ] || fail "$1: got '$v', expected '$2'"
}
expect_no_header() {
	! grep -qi "^$1:" "$HDR" || fail "the answer has a $1 header: $(grep -i "^$1:" "$HDR")"
}

# The headers of every answer on a UI route.
expect_ui_headers() {
	expect_header Content-Security-Policy "$UI_CSP"
	expect_header X-Content-Type-Options nosniff
	expect_header Referrer-Policy no-referrer
	expect_header X-Frame-Options DENY
	expect_header Cross-Origin-Opener-Policy same-origin
	expect_header Cross-Origin-Resource-Policy same-origin
	expect_header Cache-Control no-cache
}

# The headers of every API answer.
expect_api_headers() {
	expect_header Content-Security-Policy "$API_CSP"
	expect_header X-Content-Type-Options nosniff
	expect_header Referrer-Policy no-referrer
	expect_header Cache-Control no-store
}

expect_error() { # MESSAGE-PART: the body is {"error": "...MESSAGE-PART..."}
	python3 - "$OUT" "$1" <<'EOF' || fail "the body is not {\"error\": \"...$1...\"}: $(head -c 300 "$OUT")"
import json, sys
d = json.load(open(sys.argv[1], "rb"))
assert isinstance(d, dict) and list(d) == ["error"] and sys.argv[2] in d["error"]
EOF
}

# etag_of FILE: the ETag the gate gives the bytes of FILE.
etag_of() {
	echo "\"sha256:$(sha256sum "$1" | cut -c1-32)\""
}

mk_token() { # ROLE NAME [ON_BEHALF_OF]: the token in $TOK
	api POST /v1/persons "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary "{\"name\": \"${3:-$2}\"}"
	[ "$CODE" = 201 ] || [ "$CODE" = 409 ] || fail "POST /v1/persons ${3:-$2}: HTTP $CODE"
	api POST /v1/tokens "$ADMIN" -H 'Content-Type: application/json' \
		--data-binary "{\"role\": \"$1\", \"name\": \"$2\"${3:+, \"on_behalf_of\": \"$3\"}}"
	expect_code 201 "POST /v1/tokens $1 $2"
	TOK=$(grep -o '"token": *"alk_[^"]*"' "$OUT" | grep -o 'alk_[^"]*')
	[ -n "$TOK" ] || fail "no token in the answer"
}

# ---- fixtures ------------------------------------------------------------------------

# ui_fixture: ./ui with a file of every served type (two in img/), and what
# must be skipped: a symbolic link (to a file outside, and to one inside),
# bad names, an unknown or no extension, a subdirectory (and one in img/),
# a FIFO.
ui_fixture() {
	mkdir -p ui/img ui/sub ui/img/deep || fail "mkdir"
	printf '<!doctype html>\n<title>t</title>\n<link rel="stylesheet" href="app.css">\n' >ui/index.html
	printf 'body { color: #123; }\n' >ui/app.css
	printf 'document.title = "x";\n' >ui/app.js
	printf '{"a": 1}\n' >ui/data.json
	printf 'plain text\n' >ui/notes.txt
	printf '\0\0\1\0\1\0\20\20' >ui/favicon.ico
	printf 'wOF2\0\1\0\0' >ui/font.woff2
	printf '<svg xmlns="http://www.w3.org/2000/svg"/>\n' >ui/img/logo.svg
	printf '\211PNG\r\n\032\n\0\0\0\rIHDR' >ui/img/pic.png
	printf 'secret\n' >outside.txt
	ln -s "$PWD/outside.txt" ui/link.txt
	ln -s app.css ui/alias.css
	ln -s logo.svg ui/img/alias.svg
	printf 'x\n' >ui/Bad.css
	printf 'x\n' >'ui/a b.css'
	printf 'x\n' >"ui/$LONG_NAME"
	printf 'x\n' >ui/readme.md
	printf 'x\n' >ui/plain
	printf 'x\n' >ui/sub/ok.css
	printf 'x\n' >ui/img/deep/x.svg
	mkfifo ui/fifo.txt || fail "mkfifo"
}

# 65 bytes: one more than a name may have.
LONG_NAME=$(printf 'a%.0s' $(seq 1 61)).css

# The files ui_fixture serves, and their Content-Types.
UI_FILES="index.html=text/html; charset=utf-8
app.css=text/css; charset=utf-8
app.js=text/javascript; charset=utf-8
data.json=application/json
notes.txt=text/plain; charset=utf-8
favicon.ico=image/x-icon
font.woff2=font/woff2
img/logo.svg=image/svg+xml
img/pic.png=image/png"

# ---- 1. the files ------------------------------------------------------------------

t_files_types_and_headers() {
	local line name type
	ui_fixture
	srv_start
	grep -q "review UI $PWD/ui (9 files)" serve.log || fail "the log does not say 9 files were read: $(grep 'review UI' serve.log)"
	while IFS= read -r line; do
		name=${line%%=*}
		type=${line#*=}
		req GET "/ui/$name"
		expect_code 200 "GET /ui/$name"
		cmp -s "$OUT" "ui/$name" || fail "GET /ui/$name: not the file's bytes"
		expect_header Content-Type "$type"
		expect_header ETag "$(etag_of "ui/$name")"
		expect_header Content-Length "$(wc -c <"ui/$name")"
		expect_ui_headers
		expect_no_header Set-Cookie
	done <<<"$UI_FILES"
	# The index, at /ui/ itself.
	req GET /ui/
	expect_code 200 "GET /ui/"
	cmp -s "$OUT" ui/index.html || fail "GET /ui/: not index.html"
	expect_header Content-Type "text/html; charset=utf-8"
	expect_header ETag "$(etag_of ui/index.html)"
	expect_ui_headers
	srv_stop
}

t_skipped_entries_are_named() {
	local w
	ui_fixture
	srv_start
	for w in "ui/link.txt: skipped: a symbolic link" \
		"ui/alias.css: skipped: a symbolic link" \
		"ui/img/alias.svg: skipped: a symbolic link" \
		"ui/Bad.css: skipped: a name not of [a-z0-9._-]" \
		"ui/a?b.css: skipped: a name not of [a-z0-9._-]" \
		"ui/$LONG_NAME: skipped: a name not of [a-z0-9._-], or longer than 64 bytes" \
		"ui/readme.md: skipped: not a type the UI serves" \
		"ui/plain: skipped: not a type the UI serves" \
		"ui/sub: skipped: a directory" \
		"ui/img/deep: skipped: a directory" \
		"ui/fifo.txt: skipped: not a regular file"; do
		grep -qF -- "airlock serve: review UI: $PWD/$w" serve.log ||
			fail "the log does not say '$w': $(grep 'review UI' serve.log)"
	done
	[ "$(grep -c 'skipped:' serve.log)" = 11 ] || fail "not 11 warnings: $(grep 'skipped:' serve.log)"
	srv_stop
}

t_etag_and_304() {
	local tag
	ui_fixture
	srv_start
	tag=$(etag_of ui/app.css)
	req GET /ui/app.css -H "If-None-Match: $tag"
	expect_code 304 "If-None-Match with the ETag"
	[ ! -s "$OUT" ] || fail "the 304 has a body"
	expect_header ETag "$tag"
	expect_ui_headers
	# RFC 9110 8.6: a 304's Content-Length, if any, is the file's.
	if grep -qi '^Content-Length:' "$HDR"; then
		expect_header Content-Length "$(wc -c <ui/app.css)"
	fi
	req GET /ui/app.css -H "If-None-Match: \"x\", W/$tag"
	expect_code 304 "a weak form of the ETag in a list"
	req GET /ui/app.css -H 'If-None-Match: *'
	expect_code 304 "If-None-Match: *"
	req GET /ui/app.css -H "If-None-Match: $(etag_of ui/app.js)"
	expect_code 200 "another file's ETag"
	cmp -s "$OUT" ui/app.css || fail "not the file's bytes after a foreign ETag"
	req GET /ui/app.css -H "If-None-Match: ${tag%?}"
	expect_code 200 "an ETag cut short"
	req GET /ui/ -H "If-None-Match: $(etag_of ui/index.html)"
	expect_code 304 "/ui/ with index.html's ETag"
	srv_stop
}

t_root_redirects_and_head_has_no_body() {
	ui_fixture
	srv_start
	req GET /
	expect_code 302 "GET /"
	expect_header Location /ui/
	expect_ui_headers
	[ ! -s "$OUT" ] || fail "the redirect has a body"
	head_req /
	expect_code 302 "HEAD /"
	head_req /ui/app.css
	expect_code 200 "HEAD /ui/app.css"
	expect_header Content-Type "text/css; charset=utf-8"
	expect_header Content-Length "$(wc -c <ui/app.css)"
	expect_header ETag "$(etag_of ui/app.css)"
	expect_ui_headers
	# On the wire: the answer ends with its headers (the gate closes the
	# connection after each answer, so whatever follows would be read).
	python3 - "$PORT" <<'EOF' || fail "HEAD /ui/app.css is followed by bytes"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"HEAD /ui/app.css HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n" % sys.argv[1].encode())
d = b""
while True:
    c = s.recv(65536)
    if not c:
        break
    d += c
assert d.startswith(b"HTTP/1.1 200 "), d[:40]
head, sep, rest = d.partition(b"\r\n\r\n")
assert sep and rest == b"", rest[:40]
EOF
	srv_stop
}

# ---- 2. what is refused ----------------------------------------------------------

t_only_exact_names() {
	local p
	ui_fixture
	srv_start
	for p in /ui/nope.css /ui/link.txt /ui/alias.css /ui/img/alias.svg /ui/Bad.css \
		'/ui/a%20b.css' /ui/readme.md /ui/plain /ui/fifo.txt /ui/sub /ui/sub/ \
		/ui/sub/ok.css /ui/img/deep /ui/img/deep/x.svg /ui/../airlock.db \
		/ui/../data/airlock.db /ui/%2e%2e/x /ui/%2e%2e/airlock.db /ui/%61pp.css \
		/ui/img%2flogo.svg /ui//index.html /ui//app.css /ui/index.html/ \
		/ui/img/ /ui/img /ui/img/logo.svg/ /ui/./app.css /ui/img/../app.css \
		/ui/App.css /ui/IMG/logo.svg '/ui/app.css?v=1' '/ui/?x' '/?x' \
		/ui/img/img/logo.svg /ui/logo.svg /ui/outside.txt "/ui/$LONG_NAME"; do
		req GET "$p"
		expect_code 404 "GET $p"
		expect_error "no such file"
		expect_ui_headers
		! grep -q secret "$OUT" || fail "GET $p: the body holds the linked file"
	done
	# Not UI paths at all: the API's 404.
	for p in /ui /index.html /app.css /img/logo.svg; do
		req GET "$p"
		expect_code 404 "GET $p"
		expect_error "no such endpoint"
		expect_api_headers
	done
	srv_stop
}

t_other_methods_405() {
	local m p
	ui_fixture
	srv_start
	for m in POST PUT DELETE PATCH OPTIONS; do
		for p in / /ui/ /ui/app.css /ui/img/logo.svg /ui/nope; do
			req "$m" "$p"
			expect_code 405 "$m $p"
			expect_header Allow "GET, HEAD"
			expect_error "GET or HEAD"
			expect_ui_headers
		done
	done
	# A POST with a body, and one from another origin (refused before).
	req POST /ui/ --data-binary 'x=1'
	expect_code 405 "POST /ui/ with a body"
	req POST /ui/ -H 'Origin: http://evil.example' --data-binary 'x=1'
	expect_code 403 "POST /ui/ from another origin"
	expect_api_headers
	srv_stop
}

t_not_on_the_intake_socket() {
	local p
	ui_fixture
	srv_start
	for p in / /ui/ /ui/app.css /ui/img/logo.svg; do
		CODE=$(curl -sS --max-time 30 --path-as-is -o "$OUT" -D "$HDR.raw" \
			-w '%{http_code}' --unix-socket data/intake.sock \
			"http://localhost$p" 2>"$ERR") || true
		tr -d '\r' <"$HDR.raw" >"$HDR"
		expect_code 404 "GET $p on the intake socket"
		expect_error "no such endpoint"
		expect_api_headers
	done
	srv_stop
}

t_foreign_host_refused() {
	local h p
	ui_fixture
	srv_start
	for h in "evil.example" "evil.example:$PORT" "127.0.0.1:1" "localhost"; do
		for p in / /ui/ /ui/app.css; do
			req GET "$p" -H "Host: $h"
			expect_code 403 "GET $p with Host: $h"
			expect_error "the Host header does not name this listener"
			expect_api_headers
		done
	done
	req GET /ui/app.css -H "Host: localhost:$PORT"
	expect_code 200 "Host: localhost:PORT"
	srv_stop
}

# ---- 3. the API's headers -------------------------------------------------------

t_api_answers_carry_their_headers() {
	local SID i
	ui_fixture
	srv_start
	req GET /healthz
	expect_code 200 /healthz
	expect_header Content-Type application/json
	expect_api_headers
	api GET /v1/submissions "$ADMIN"
	expect_code 200 "GET /v1/submissions"
	expect_api_headers
	expect_no_header Content-Disposition
	req GET /v1/submissions
	expect_code 401 "no token"
	expect_api_headers
	api GET /metrics "$ADMIN"
	expect_code 200 /metrics
	expect_api_headers
	# The artifact's bytes, and a member's: attachments, never rendered.
	mk_token agent agent-1 alice
	python3 - <<'EOF' || fail "cannot write the tar"
import io, tarfile
with tarfile.open("page.tar", "w", format=tarfile.USTAR_FORMAT) as t:
    b = b"<html><script>alert(1)</script></html>\n" * 4
    ti = tarfile.TarInfo("page.html")
    ti.size = len(b)
    t.addfile(ti, io.BytesIO(b))
EOF
	api POST '/v1/submissions?name=page.tar' "$TOK" --data-binary @page.tar
	expect_code 201 "submit page.tar"
	SID=$(grep -o '"id": *[0-9]*' "$OUT" | head -n 1 | grep -o '[0-9]*$')
	for i in $(seq 1 400); do
		api GET "/v1/submissions/$SID" "$ADMIN"
		grep -q '^  "state": "held"' "$OUT" && break
		sleep 0.05
	done
	grep -q '"content": "kept"' "$OUT" || fail "submission $SID: no kept item: $(head -c 600 "$OUT")"
	api GET "/v1/submissions/$SID/content" "$ADMIN"
	expect_code 200 "GET content"
	cmp -s "$OUT" page.tar || fail "the content is not the artifact"
	expect_header Content-Type application/octet-stream
	expect_header Content-Disposition attachment
	expect_api_headers
	api GET "/v1/submissions/$SID/content" "$ADMIN" -H 'Range: bytes=0-9'
	expect_code 206 "GET content, a range"
	expect_header Content-Disposition attachment
	expect_api_headers
	api GET "/v1/submissions/$SID/items/0/content" "$ADMIN"
	expect_code 200 "GET item 0"
	grep -q '<script>' "$OUT" || fail "item 0 is not the member"
	expect_header Content-Type application/octet-stream
	expect_header Content-Disposition attachment
	expect_api_headers
	srv_stop
}

# ---- 4. limits, no UI, the configuration ---------------------------------------

t_file_over_2mib_stops_the_start() {
	local port
	ui_fixture
	dd if=/dev/zero of=ui/img/big.png bs=1024 count=2048 status=none || fail dd
	printf 'x' >>ui/img/big.png
	port=$(free_port)
	srv_init
	al serve --data "$PWD/data" --listen "127.0.0.1:$port" --rules "$RULES" --ui "$PWD/ui"
	expect_rc 2 "a UI file of 2 MiB + 1 byte"
	expect_err_has "airlock serve: the review UI's file $PWD/ui/img/big.png is 2097153 bytes: over the 2 MiB a UI file may be"
	! curl -s --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 || fail "something answers on the port"
	al serve --data "$PWD/data" --check-config --rules "$RULES" --ui "$PWD/ui"
	expect_rc 1 "--check-config with the file"
	expect_err_has "is 2097153 bytes: over the 2 MiB a UI file may be"
	# 2 MiB exactly is allowed.
	truncate -s 2097152 ui/img/big.png || fail truncate
	srv_start
	req GET /ui/img/big.png
	expect_code 200 "a file of 2 MiB"
	cmp -s "$OUT" ui/img/big.png || fail "not the 2 MiB file's bytes"
	srv_stop
}

t_over_32mib_in_all_stops_the_start() {
	local i
	mkdir -p ui || fail mkdir
	for i in $(seq 1 16); do
		dd if=/dev/zero of="ui/f$i.png" bs=1024 count=2048 status=none || fail dd
	done
	srv_init
	al serve --data "$PWD/data" --check-config --rules "$RULES" --ui "$PWD/ui"
	expect_rc 0 "16 files of 2 MiB: 32 MiB in all"
	expect_out_has "review UI $PWD/ui (16 files)"
	printf 'x' >ui/one.txt
	al serve --data "$PWD/data" --listen "127.0.0.1:$(free_port)" --rules "$RULES" --ui "$PWD/ui"
	expect_rc 2 "32 MiB and a byte"
	expect_err_has "airlock serve: the review UI in $PWD/ui is over the 32 MiB it may be in all"
}

t_more_than_512_files_stop_the_start() {
	local i
	mkdir -p ui || fail mkdir
	for i in $(seq 1 512); do
		: >"ui/f$i.txt"
	done
	srv_init
	al serve --data "$PWD/data" --check-config --rules "$RULES" --ui "$PWD/ui"
	expect_rc 0 "512 files"
	expect_out_has "review UI $PWD/ui (512 files)"
	: >ui/f513.txt
	al serve --data "$PWD/data" --listen "127.0.0.1:$(free_port)" --rules "$RULES" --ui "$PWD/ui"
	expect_rc 2 "513 files"
	expect_err_has "airlock serve: the review UI in $PWD/ui has more than 512 files"
}

t_no_ui_directory() {
	srv_start --ui "$PWD/none"
	grep -q "no review UI ($PWD/none does not exist: the API is served alone)" serve.log ||
		fail "the log does not say there is no UI: $(tail -n 3 serve.log)"
	req GET /ui/
	expect_code 404 "GET /ui/ without a UI"
	expect_error "the review UI is not installed on this gate"
	expect_error "--ui DIR"
	expect_ui_headers
	req GET /ui/app.css
	expect_code 404 "GET /ui/app.css without a UI"
	expect_error "not installed"
	req GET /
	expect_code 302 "GET / without a UI"
	# The API goes on.
	req GET /healthz
	expect_code 200 /healthz
	api GET /v1/submissions "$ADMIN"
	expect_code 200 "GET /v1/submissions without a UI"
	mk_token reviewer rev-1
	srv_stop
}

t_ui_without_index() {
	mkdir -p ui || fail mkdir
	printf 'x\n' >ui/app.css
	srv_start
	req GET /ui/
	expect_code 404 "GET /ui/ without index.html"
	expect_error "has no index.html"
	req GET /ui/app.css
	expect_code 200 "GET /ui/app.css"
	srv_stop
}

t_ui_directory_not_readable_stops_the_start() {
	printf 'x\n' >ui
	srv_init
	al serve --data "$PWD/data" --listen "127.0.0.1:$(free_port)" --rules "$RULES" --ui "$PWD/ui"
	expect_rc 2 "--ui naming a file"
	expect_err_has "the review UI's directory $PWD/ui: Not a directory"
}

t_check_config_reports_the_ui() {
	ui_fixture
	srv_init
	al serve --data "$PWD/data" --check-config --rules "$RULES" --ui "$PWD/ui"
	expect_rc 0 "--check-config"
	expect_out_has "review UI $PWD/ui (9 files)"
	expect_err_has "ui/link.txt: skipped: a symbolic link"
	al serve --data "$PWD/data" --check-config --rules "$RULES" --ui "$PWD/none"
	expect_rc 0 "--check-config without a UI"
	expect_out_has "no review UI ($PWD/none does not exist"
	# $AIRLOCK_UI_DIR when there is no --ui.
	AIRLOCK_UI_DIR=$PWD/ui al serve --data "$PWD/data" --check-config --rules "$RULES"
	expect_rc 0 "--check-config with AIRLOCK_UI_DIR"
	expect_out_has "review UI $PWD/ui (9 files)"
	# Neither: review-ui/ beside the build directory, when there is one.
	if [ -d "$(dirname "$BIN")/../review-ui" ]; then
		al serve --data "$PWD/data" --check-config --rules "$RULES"
		expect_rc 0 "--check-config, the default UI"
		expect_out_has "review UI $(dirname "$BIN")/../review-ui ("
	fi
}

# A reload restarts the gate, which reads the UI again; a UI that would not
# load refuses the reload, and the gate goes on with the files it has.
t_reload_rereads_the_ui() {
	local old new i
	ui_fixture
	srv_start
	old=$(etag_of ui/app.css)
	printf 'body { color: #456; }\n' >ui/app.css
	new=$(etag_of ui/app.css)
	req GET /ui/app.css
	expect_header ETag "$old"
	kill -HUP "$SPID"
	for i in $(seq 1 200); do
		sleep 0.05
		req GET /ui/app.css
		[ "$CODE" = 200 ] && grep -qF "$new" "$HDR" && break
	done
	expect_header ETag "$new"
	cmp -s "$OUT" ui/app.css || fail "not the new bytes after the reload"
	dd if=/dev/zero of=ui/huge.png bs=1024 count=3000 status=none || fail dd
	kill -HUP "$SPID"
	for i in $(seq 1 100); do
		grep -q 'reload refused' serve.log && break
		sleep 0.05
	done
	grep -q "reload refused.*ui/huge.png is 3072000 bytes" serve.log ||
		fail "the reload was not refused for the UI: $(tail -n 3 serve.log)"
	req GET /ui/app.css
	expect_code 200 "after the refused reload"
	expect_header ETag "$new"
	srv_stop
}

# ---- 5. the page shipped in review-ui/ --------------------------------------------

# The placeholder passes its own CSP (no inline script, style or handler)
# and every file it refers to is served.
t_shipped_page_fits_its_csp() {
	local ref
	srv_start --ui "$ROOT/review-ui"
	req GET /ui/
	expect_code 200 "GET /ui/ of review-ui/"
	cmp -s "$OUT" "$ROOT/review-ui/index.html" || fail "not review-ui/index.html"
	python3 - "$OUT" <<'EOF' || fail "review-ui/index.html has inline script or style"
import html.parser, sys
class P(html.parser.HTMLParser):
    bad = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and "src" not in a:
            self.bad.append("inline <script>")
        if tag == "style":
            self.bad.append("<style>")
        for k, v in attrs:
            if k == "style" or k.startswith("on"):
                self.bad.append("%s=" % k)
            # Relative names of its own files only (checked below).
            if k in ("href", "src") and v and (":" in v or v.startswith("/")):
                self.bad.append("%s=%s, not a name relative to /ui/" % (k, v))
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
if p.bad:
    print(p.bad)
    sys.exit(1)
EOF
	for ref in $(grep -o '\(href\|src\)="[^"]*"' "$OUT" | sed 's/^[a-z]*="//; s/"$//' | sort -u); do
		req GET "/ui/$ref"
		expect_code 200 "GET /ui/$ref (named by index.html)"
		cmp -s "$OUT" "$ROOT/review-ui/$ref" || fail "/ui/$ref is not review-ui/$ref"
	done
	# The directory's README.md is not served, and not warned about.
	req GET /ui/README.md
	expect_code 404 "GET /ui/README.md"
	grep -q "README.md" serve.log && fail "the gate warns about review-ui/README.md: $(grep README.md serve.log)"
	srv_stop
}

run_tests
