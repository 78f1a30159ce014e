#!/usr/bin/env python3
"""hostile.py - hostile clients against a real `airlock serve`, on loopback
and on its intake socket: slow-loris floods on each listener while a fresh
client must be served, header and body deadlines, connections all busy,
oversized headers and URLs, too many query arguments, chunked bodies that
never end, request smuggling forms (CL+TE, CL CL, TE with a space, obs-fold,
NUL, bare LF), invalid UTF-8, deep JSON, path traversal and SQL-ish strings
in every id and name of the route table, Host and Origin games. Every check
asserts the exact status (or behaviour) and the gate must end it all alive,
exit 0 on SIGTERM, with no file left in tmp/ and no sanitizer report (under
`make asan` LeakSanitizer turns a leak into a non-zero exit).

usage: hostile.py [--long] [--bin build/airlock]
  default (make test): 32 connections per listener, 96-connection floods,
  2 s header and 3 s body timeouts; --long (make hostile): the gate as
  shipped (256 per listener, 10 s, 60 s) under an open-file limit of 1024
  as systemd gives (the gate lowers its limit to fit), floods of 1,100.
Loopback and the gate's own socket only; every loop is bounded; the gate
is stopped by its pid. Prints "N passed, M failed"; exits 1 on a failure.
"""
import argparse
import http.client
import json
import os
import re
import resource
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("--long", action="store_true")
ap.add_argument("--bin", default=os.environ.get("AIRLOCK_BIN", "build/airlock"))
ap.add_argument("--only", default="", help="comma-separated check names")
args = ap.parse_args()
BIN = os.path.abspath(args.bin)
RULES = os.path.join(ROOT, "tests", "data", "rules")
if args.long:
    MAXC, HDR_T, BODY_T, FLOOD, NOFILE = None, 10, 60, 1100, (1024, 1024)
else:
    MAXC, HDR_T, BODY_T, FLOOD, NOFILE = 32, 2, 3, 96, None
MAX_BODY = 1 << 20
# Our own descriptors: two floods at once, and then some.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < 2 * FLOOD + 256 and hard != soft:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * FLOOD + 512), hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
if soft < 2 * FLOOD + 256:
    FLOOD = max(16, (soft - 256) // 2)

WORK = tempfile.mkdtemp(prefix="airlock-hostile.")
DATA = os.path.join(WORK, "data")
SOCK = os.path.join(DATA, "intake.sock")
LOG = os.path.join(WORK, "serve.log")
PASSED, FAILED, FIGURES = [], [], {}


class Fail(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Fail(what)


def expect_eq(got, want, what):
    if got != want:
        raise Fail("%s: got %r, expected %r" % (what, got, want))


# ---- the gate -----------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Gate:
    def __init__(self):
        self.proc = None
        self.port = free_port()

    def start(self):
        r = subprocess.run([BIN, "init", "--data", DATA], capture_output=True,
                           timeout=60)
        if r.returncode != 0:
            sys.exit("hostile: airlock init failed: %s" % r.stderr.decode())
        self.admin = r.stdout.decode().strip()
        cmd = [BIN, "serve", "--data", DATA, "--listen", "127.0.0.1:%d" % self.port,
               "--scanners", "1", "--rules", RULES, "--max-body", str(MAX_BODY)]
        if not args.long:
            cmd += ["--max-connections", str(MAXC), "--header-timeout", str(HDR_T),
                    "--body-timeout", str(BODY_T)]

        def limits():
            if NOFILE:
                resource.setrlimit(resource.RLIMIT_NOFILE, NOFILE)
            else:   # the soft limit systemd gives; the gate raises it
                h = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
                resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, h), h))
        self.log = open(LOG, "ab")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log,
                                     preexec_fn=limits)
        for _ in range(200):
            try:
                if self.req("GET", "/healthz", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        sys.exit("hostile: the gate did not start:\n" + open(LOG).read()[-2000:])

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        """SIGTERM by pid; the exit status, or None if it did not stop."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None

    def nfds(self):
        """Its sockets: the listeners, the launchers' and the clients'
        (database files come as threads first use them)."""
        d = "/proc/%d/fd" % self.proc.pid
        n = 0
        for f in os.listdir(d):
            try:
                n += os.readlink(os.path.join(d, f)).startswith("socket:")
            except OSError:
                pass
        return n

    def req(self, method, path, token=None, body=None, headers=None, via="tcp",
            timeout=20):
        if via == "tcp":
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        else:
            c = UConn(SOCK, timeout)
        h = dict(headers or {})
        if token:
            h["Authorization"] = "Bearer " + token
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            return r.status, r.read(), r
        finally:
            c.close()

    def jreq(self, method, path, token=None, body=None, **kw):
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        st, data, _ = self.req(method, path, token, body, **kw)
        try:
            return st, json.loads(data)
        except ValueError:
            return st, data

    def metrics(self):
        st, data, _ = self.req("GET", "/metrics", self.admin)
        expect_eq(st, 200, "GET /metrics")
        m = {}
        for line in data.decode().splitlines():
            if line and not line.startswith("#"):
                k, v = line.rsplit(" ", 1)
                m[k] = float(v)
        return m


class UConn(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


G = Gate()


def connect(via="tcp", timeout=10):
    if via == "tcp":
        return socket.create_connection(("127.0.0.1", G.port), timeout=timeout)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(SOCK)
    return s


def host(via="tcp"):
    return b"127.0.0.1:%d" % G.port if via == "tcp" else b"localhost"


def raw(data, via="tcp", timeout=10):
    """Sends raw bytes, returns all that comes back until the gate closes
    (or timeout seconds pass: then b"<open>" is appended)."""
    s = connect(via, timeout)
    out = b""
    try:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        t0 = time.time()
        while time.time() - t0 < timeout:
            try:
                b = s.recv(65536)
            except socket.timeout:
                out += b"<open>"
                break
            except ConnectionResetError:
                out += b"<reset>"
                break
            if not b:
                break
            out += b
    finally:
        s.close()
    return out


def statuses(resp):
    return [int(m) for m in re.findall(rb"HTTP/1\.[01] (\d{3}) ", resp)]


def error_of(resp):
    """The "error" of the (first) JSON error answer in resp."""
    head, _, body = resp.partition(b"\r\n\r\n")
    m = re.search(rb"(?i)content-length: *(\d+)", head)
    expect(m is not None, "an answer with a Content-Length: %r" % resp[:200])
    try:
        return json.loads(body[:int(m.group(1))])["error"]
    except (ValueError, KeyError):
        raise Fail("not a JSON error body: %r" % body[:200])


class Watch:
    """What the gate sends on a client socket, kept across looks (a look
    that ends with part of it read must not lose that part), and how the
    connection ended: None while open, "close" (a FIN) or "reset" (an RST)."""
    # The gate closes right after an answer it sends on a cut (conn.c):
    # once a byte has come, the close is waited for this much longer.
    SETTLE = 10

    def __init__(self, s):
        s.setblocking(False)
        self.s, self.got, self.end = s, b"", None

    def look(self, wait):
        """Reads for up to wait seconds, until the gate has sent something
        or closed; True if it has (and then, if it sent, until it closed
        too, or SETTLE more seconds passed)."""
        deadline, settling = time.monotonic() + wait, False
        while self.end is None:
            now = time.monotonic()
            if self.got and not settling:
                settling = True
                deadline = max(deadline, now + self.SETTLE)
            left = deadline - now
            if left <= 0:
                break
            r, _, _ = select.select([self.s], [], [], min(left, 0.2))
            if not r:
                continue
            try:
                b = self.s.recv(65536)
            except ConnectionResetError:
                self.end = "reset"
                break
            except BlockingIOError:
                continue
            if not b:
                self.end = "close"
                break
            self.got += b
        return self.end is not None or self.got != b""

    def result(self):
        """What came, with b"<reset>" after it for an RST and b"<open>"
        when the connection is still open."""
        return self.got + {"reset": b"<reset>", "close": b""}.get(self.end, b"<open>")


def closed_by_gate(s, wait):
    """Waits up to wait seconds for the gate to close s: what it sent
    before (b"" for nothing; see Watch.result), or None if nothing came
    and s is still open."""
    w = Watch(s)
    return w.result() if w.look(wait) else None


def tmp_files():
    return os.listdir(os.path.join(DATA, "tmp"))


def wait_tmp_empty(wait=10):
    t0 = time.time()
    while tmp_files() and time.time() - t0 < wait:
        time.sleep(0.1)
    return tmp_files()


def gate_conns(name):
    """The client connections the gate's process holds on a listener ("api":
    its TCP port, "intake": its socket), read from /proc: unlike /metrics,
    looking takes no connection, and it counts those conn.c closed that
    libmicrohttpd has not yet let go."""
    fds = "/proc/%d/fd" % G.proc.pid
    inodes = set()
    for f in os.listdir(fds):
        try:
            m = re.match(r"socket:\[(\d+)\]$", os.readlink(os.path.join(fds, f)))
        except OSError:
            continue
        if m:
            inodes.add(int(m.group(1)))
    n = 0
    if name == "api":
        for line in open("/proc/net/tcp").readlines()[1:]:
            f = line.split()
            # local address, state (0A: listening), inode
            if int(f[9]) in inodes and int(f[1].split(":")[1], 16) == G.port and f[3] != "0A":
                n += 1
    else:
        # flags 0x10000: listening; an accepted socket has the listener's path
        mine = [f for f in (line.split() for line in open("/proc/net/unix").readlines()[1:])
                if len(f) >= 8 and int(f[6]) in inodes]
        paths = set(f[7] for f in mine if int(f[3], 16) & 0x10000)
        expect_eq(len(paths), 1, "the gate's listening unix sockets")
        n = sum(1 for f in mine if f[7] in paths and not int(f[3], 16) & 0x10000)
    return n


def wait_gone(name="api", wait=30):
    """Until the gate holds no client connection on the listener (what was
    left is gone: closed by its client and let go by the gate), bounded."""
    t0 = time.monotonic()
    while gate_conns(name) > 0:
        if time.monotonic() - t0 > wait:
            raise Fail("the %s listener still holds %d connections after %d s" % (
                name, gate_conns(name), wait))
        time.sleep(0.1)


def wait_quiet(name="api"):
    """wait_gone, and then the listener's open-connection gauge must be
    back to its baseline (on the API the one asking, on the intake none);
    that one asking is gone too when this returns."""
    wait_gone(name)
    gauge = G.metrics()['airlock_http_connections{listener="%s"}' % name]
    expect_eq(gauge, 1 if name == "api" else 0, "open %s connections when none is left" % name)
    wait_gone("api")


def db_counts():
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(DATA, "airlock.db"), uri=True)
    r = {t: db.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
         for t in ("principals", "persons", "submissions", "approvals", "rejections",
                   "releases")}
    r["revoked"] = db.execute("SELECT count(*) FROM principals WHERE revoked_at "
                              "IS NOT NULL").fetchone()[0]
    r["disabled"] = db.execute("SELECT count(*) FROM persons WHERE disabled_at "
                               "IS NOT NULL").fetchone()[0]
    db.close()
    return r


CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


# ---- connections --------------------------------------------------------------

def flood(via, n):
    """n connections that each sent a request line and one header, slowly."""
    conns = []
    for _ in range(n):
        try:
            s = connect(via, 5)
            s.sendall(b"GET /v1/submissions HTTP/1.1\r\nHost: %s\r\n" % host(via))
            conns.append(s)
        except OSError:
            pass
    return conns


def feed(conns, k):
    for s in conns:
        try:
            s.sendall(b"X-Slow-%d: x\r\n" % k)
        except OSError:
            pass


def count_closed(conns, want, wait=15):
    """How many of conns the gate has closed (a close, a reset, or its 503
    or 408 first), looking again until want of them are, bounded."""
    closed, t0 = set(), time.monotonic()
    while True:
        for i, s in enumerate(conns):
            if i in closed:
                continue
            s.setblocking(False)
            try:
                b = s.recv(4096)
                if b == b"" or b.startswith(b"HTTP/1.1 503") or b.startswith(b"HTTP/1.1 408"):
                    closed.add(i)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i)
        if len(closed) >= want or time.monotonic() - t0 > wait:
            return len(closed)
        time.sleep(0.1)


def start_limits():
    log = open(LOG).read()
    m = re.search(r"(\d+) connections per listener \(open-file limit (\d+)\), "
                  r"headers within (\d+) s", log)
    expect(m is not None, "the start line tells the limits")
    maxc, nofile, ht = (int(x) for x in m.groups())
    FIGURES["max connections per listener"] = maxc
    FIGURES["open-file limit"] = nofile
    expect_eq(ht, HDR_T, "header timeout")
    if NOFILE:
        # 1024 fits fewer than 256: lowered, and said so.
        expect_eq(nofile, 1024, "open-file limit")
        expect(maxc < 256, "--max-connections lowered under 1024 descriptors")
        expect("lowered to %d" % maxc in log, "the lowering is logged")
    else:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        expect_eq(nofile, min(hard, 65536), "the soft limit of 1024 raised to")
        expect_eq(maxc, MAXC, "--max-connections")
    return maxc


@check
def limits_at_start():
    start_limits()


def fresh_clients(n, via_ok=True):
    """n fresh reviewer requests on TCP and n agent requests on the intake
    socket; every one must be answered 200."""
    lat = []
    for i in range(n):
        t0 = time.time()
        st, _, _ = G.req("GET", "/v1/submissions?limit=1", G.rv, timeout=20)
        lat.append(time.time() - t0)
        expect_eq(st, 200, "a fresh reviewer's GET during the flood (#%d)" % i)
        st, _, _ = G.req("GET", "/v1/submissions?limit=1", G.ag, via="sock", timeout=20)
        expect_eq(st, 200, "a fresh agent's GET on the intake socket during the flood (#%d)" % i)
    return lat


def slowloris(via):
    name = "api" if via == "tcp" else "intake"
    wait_quiet(name)
    before = G.metrics()
    conns = flood(via, FLOOD)
    expect(len(conns) >= G.maxc, "opened %d slow connections" % len(conns))
    rounds = 3 if not args.long else 6
    lat = []
    for k in range(rounds):
        feed(conns, k)
        lat += fresh_clients(3)
        st, d = G.jreq("POST", "/v1/submissions?name=during-%s-%d" % (via, k), G.ag,
                       ("submitted during a %s flood %d\n" % (via, k)).encode(),
                       via="sock")
        expect_eq(st, 201, "a submission on the intake during the flood")
        time.sleep(0.5)
    m = G.metrics()
    evicted = m['airlock_http_connections_closed_total{listener="%s",reason="evicted"}' % name] - \
        before['airlock_http_connections_closed_total{listener="%s",reason="evicted"}' % name]
    expect(m['airlock_http_connections{listener="%s"}' % name] <= G.maxc,
           "%s open connections %d <= %d" % (name, m['airlock_http_connections{listener="%s"}' % name], G.maxc))
    expect(evicted >= len(conns) - G.maxc,
           "%d evicted, at least %d expected" % (evicted, len(conns) - G.maxc))
    closed = count_closed(conns, len(conns) - G.maxc)
    expect(closed >= len(conns) - G.maxc, "%d slow connections closed by the gate" % closed)
    for s in conns:
        s.close()
    lat.sort()
    FIGURES["slowloris %s: %d slow connections" % (via, len(conns))] = {
        "fresh requests answered": "%d/%d" % (len(lat), len(lat)),
        "fresh p50 ms": round(lat[len(lat) // 2] * 1000, 1),
        "fresh max ms": round(lat[-1] * 1000, 1),
        "evicted": int(evicted), "closed seen by the flood": closed}
    wait_quiet(name)


@check
def slowloris_tcp():
    slowloris("tcp")


@check
def slowloris_intake():
    slowloris("sock")


@check
def header_deadline():
    # Counted exactly: no connection a check before left may time out here.
    wait_quiet("api")
    before = G.metrics()
    wait_gone("api")
    s = connect("tcp", 5)
    s.sendall(b"GET /v1/submissions HTTP/1.1\r\nHost: %s\r\n" % host())
    t0, w = time.time(), Watch(s)
    for k in range(int(HDR_T * 4 + 12)):
        try:
            s.sendall(b"X-Trickle-%d: y\r\n" % k)
        except OSError:
            break
        if w.look(0.5):
            break
    w.look(5)
    got = w.result()
    s.close()
    expect(w.end is not None, "a request whose headers trickle is closed: %r" % got[:80])
    expect_eq(statuses(got), [408], "status (the gate sent %r)" % got[:80])
    expect_eq(error_of(got), "the request's headers did not come within %d s" % HDR_T,
              "error")
    expect_eq(w.end, "close", "the connection closed after the answer, not reset")
    FIGURES["trickled headers closed after s"] = round(time.time() - t0, 1)
    m = G.metrics()
    expect_eq(m['airlock_http_connections_closed_total{listener="api",reason="header_timeout"}'] -
              before['airlock_http_connections_closed_total{listener="api",reason="header_timeout"}'],
              1, "header_timeout counted")


@check
def idle_connections_closed():
    # Nothing sent at all, and idle after one answer (keep-alive): closed
    # quietly, on both listeners.
    for via in ("tcp", "sock"):
        s = connect(via, 5)
        got = closed_by_gate(s, HDR_T + 5)
        s.close()
        expect_eq(got, b"", "an idle %s connection closed with nothing said" % via)
    s = connect("tcp", 10)
    s.sendall(b"GET /v1/submissions?limit=1 HTTP/1.1\r\nHost: %s\r\n"
              b"Authorization: Bearer %s\r\n\r\n" % (host(), G.rv.encode()))
    got = b""
    while not got.endswith(b"}"):
        b = s.recv(4096)
        expect(b != b"", "the keep-alive answer")
        got += b
    expect_eq(statuses(got), [200], "keep-alive GET /v1/submissions")
    expect(b"connection: close" not in got.lower(), "the connection is kept alive: %r" % got)
    got = closed_by_gate(s, HDR_T + 5)
    s.close()
    expect_eq(got, b"", "a kept-alive connection idle past the header timeout")


def chunked_head(path, token, extra=b""):
    return (b"POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
            b"Transfer-Encoding: chunked\r\n%s\r\n" % (path.encode(), host(),
                                                         token.encode(), extra))


@check
def slow_body_cut():
    subs = db_counts()["submissions"]
    s = connect("tcp", 5)
    s.sendall(chunked_head("/v1/submissions?name=trickle", G.ag))
    w = Watch(s)
    for _ in range(int(BODY_T * 4 + 20)):
        try:
            s.sendall(b"1\r\nx\r\n")
        except OSError:
            break
        if w.look(0.5):
            break
    w.look(5)
    got = w.result()
    s.close()
    expect(w.end is not None, "a trickled body is cut: %r" % got[:100])
    # The answer, then the gate's FIN (conn.c): a reset after it would not
    # lose it, as the client's kernel keeps what it received.
    expect_eq(statuses(got), [408], "status (the gate sent %r)" % got[:100])
    expect_eq(error_of(got), "the request body came too slowly (less than 16384 "
              "bytes in %d s)" % BODY_T, "error")
    expect_eq(w.end, "close", "the connection closed after the answer, not reset")
    expect_eq(wait_tmp_empty(), [], "tmp/ after the cut upload")
    expect_eq(db_counts()["submissions"], subs, "submissions after the cut upload")


@check
def chunked_never_ends():
    # Fast, past --max-body: read and dropped up to 64 MiB more, then the
    # connection is closed (a chunked body tells its size only by ending).
    s = connect("tcp", 20)
    s.sendall(chunked_head("/v1/submissions?name=endless", G.ag))
    chunk = b"%x\r\n" % 65536 + b"z" * 65536 + b"\r\n"
    sent = 0
    try:
        while sent < (MAX_BODY + (96 << 20)):
            s.sendall(chunk)
            sent += 65536
    except OSError:
        pass
    s.close()
    expect(sent < MAX_BODY + (96 << 20), "the gate stopped an endless body")
    expect(sent >= MAX_BODY + (64 << 20) - (8 << 20),
           "it read and dropped up to 64 MiB first (%d MiB sent)" % (sent >> 20))
    FIGURES["endless chunked body: MiB sent before the close"] = sent >> 20
    expect_eq(wait_tmp_empty(), [], "tmp/ after the endless body")
    # Without a token: 401 at once, and the connection closed.
    got = raw(b"POST /v1/submissions HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked"
              b"\r\n\r\n" % host() + b"1\r\nx\r\n" * 100)
    expect_eq(statuses(got), [401], "an endless body without a token")
    expect(not got.endswith(b"<open>"), "and its connection closed")


@check
def all_busy_refused():
    # What the check stands on, made sure of rather than assumed: the API
    # holds no connection a check before left (an idle one would be evicted
    # in place of the refusal, a busy one would take an upload's slot); and
    # the uploads stay busy however slowly this runs under load, each fed
    # above the body floor (16 KiB in every --body-timeout) until the end.
    wait_quiet("api")
    before = G.metrics()
    wait_gone("api")
    ups, lock, stop = [], threading.Lock(), threading.Event()

    def pace():
        while not stop.wait(0.5):
            with lock:
                cur = list(ups)
            for s in cur:
                try:
                    s.sendall(b"b" * 8192)
                except OSError:
                    pass
    feeder = threading.Thread(target=pace, daemon=True)
    feeder.start()
    try:
        for i in range(G.maxc):
            s = connect("tcp", 10)
            s.sendall(b"POST /v1/submissions?name=busy-%d HTTP/1.1\r\nHost: %s\r\n"
                      b"Authorization: Bearer %s\r\nContent-Length: %d\r\n"
                      b"Expect: 100-continue\r\n\r\n" % (i, host(), G.ag.encode(), MAX_BODY))
            got = s.recv(100)
            expect(got.startswith(b"HTTP/1.1 100"), "upload %d admitted: %r" % (i, got))
            s.sendall(b"b" * 20000)
            with lock:
                ups.append(s)
        got = raw(b"GET /v1/submissions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer "
                  b"%s\r\n\r\n" % (host(), G.rv.encode()))
        expect_eq(statuses(got), [503], "a request while every connection is busy")
        expect_eq(error_of(got), "too many connections, all of them busy", "error")
        expect(b"\r\nRetry-After: 1\r\n" in got, "Retry-After")
        # The intake socket is not the API's: it serves meanwhile.
        st, _, _ = G.req("GET", "/v1/submissions?limit=1", G.ag, via="sock")
        expect_eq(st, 200, "the intake while the API is busy")
    finally:
        stop.set()
        feeder.join()
        for s in ups:
            s.close()
    # Until the gate has let the uploads go, a request would be refused too.
    wait_quiet("api")
    m = G.metrics()
    expect(m['airlock_http_connections_closed_total{listener="api",reason="refused"}'] >
           before['airlock_http_connections_closed_total{listener="api",reason="refused"}'],
           "refused counted")
    expect_eq(m['airlock_http_connections_closed_total{listener="api",reason="slow_body"}'] -
              before['airlock_http_connections_closed_total{listener="api",reason="slow_body"}'],
              0, "no upload was cut as slow (they were all busy)")
    expect_eq(wait_tmp_empty(), [], "tmp/ after the uploads were dropped")
    st, _, _ = G.req("GET", "/v1/submissions?limit=1", G.rv)
    expect_eq(st, 200, "served again once the uploads went")


# ---- request lines and headers ------------------------------------------------

def get(path, extra=b"", token=None, method=b"GET", via="tcp"):
    return raw(b"%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n%s"
               b"Connection: close\r\n\r\n" % (method, path, host(via),
                                               (token or G.admin).encode(), extra), via)


@check
def query_arguments():
    # 64 reach the endpoint, which reads them all (and refuses names it
    # does not take: 400, its own words, not the limit's 414).
    for n, want in ((64, 400), (65, 414), (400, 414), (1000, 414)):
        q = b"&".join(b"x%d=v" % i for i in range(n))
        t0 = time.time()
        got = get(b"/v1/submissions?" + q)
        expect_eq(statuses(got), [want], "%d query arguments" % n)
        if want == 400:
            expect_eq(error_of(got), "unknown query argument (the list takes state, severity, kind, "
                      "agent, person, sort, limit and cursor)", "error")
        if want == 414:
            expect_eq(error_of(got), "more than 64 query arguments", "error")
        FIGURES.setdefault("query arguments answered in ms", {})[n] = round((time.time() - t0) * 1000, 1)
    # Refused is not served: what came with the request line (here a whole
    # request, body and all, in one packet) is dropped with it.
    before = db_counts()["persons"]
    body = b'{"name": "args-person"}'
    got = raw(b"POST /v1/persons?%s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (b"&".join(b"x%d=v" % i for i in range(65)),
                                                 host(), G.admin.encode(), len(body), body))
    expect_eq(statuses(got), [414], "POST /v1/persons with 65 query arguments")
    # Had the gate served it, it would have before letting its connection
    # go (one thread runs a connection): that is the moment to look.
    wait_quiet("api")
    expect_eq(db_counts()["persons"], before, "persons after the refused request")
    # The intake too, and as labels.
    q = b"&".join(b"label=k%d=v" % i for i in range(400))
    got = get(b"/v1/submissions?" + q, method=b"POST", token=G.ag, via="sock")
    expect_eq(statuses(got), [414], "400 labels on the intake")


@check
def header_sizes():
    big = b"a" * 24000
    expect_eq(statuses(get(b"/v1/submissions", b"X-Pad: %s\r\n" % big)), [431], "24 KB header")
    many = b"".join(b"X-%d: y\r\n" % i for i in range(1000))
    expect_eq(statuses(get(b"/healthz", many)), [431], "1000 headers")
    expect_eq(statuses(get(b"/v1/submissions?" + b"x" * 24000)), [414], "24 KB URL")
    got = raw(b"GET / HTTP/1.1\r\nHost: %s\r\nX: " % host() + b"a" * (1 << 20))
    expect_eq(statuses(got), [431], "1 MB header that never ends")
    expect(not got.endswith(b"<open>"), "closed after it")
    expect_eq(statuses(get(b"/healthz", b"bogus\r\n")), [400], "a header line without a colon")
    # HTTP/0.9 and garbage: libmicrohttpd's 400 (or nothing), never served.
    got = raw(b"GET /healthz\r\n\r\n")
    expect(statuses(got) in ([400], []), "HTTP/0.9: %r" % got[:60])
    got = raw(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)))
    expect(statuses(got) in ([400], []), "a TLS hello: %r" % got[:60])


SMUGGLE = [
    # name, headers after Host/Authorization, body, status, error (None:
    # libmicrohttpd refuses it itself; the gate checks it all the same)
    ("CL.TE", b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n",
     400, "Content-Length and Transfer-Encoding are both given"),
    ("TE.CL", b"Transfer-Encoding: chunked\r\nContent-Length: 30\r\n", b"5\r\nhello\r\n0\r\n\r\n",
     400, "Content-Length and Transfer-Encoding are both given"),
    ("CL CL differing", b"Content-Length: 5\r\nContent-Length: 6\r\n", b"hello!",
     400, "Content-Length is given more than once"),
    ("CL CL equal", b"Content-Length: 5\r\nContent-Length: 5\r\n", b"hello",
     400, "Content-Length is given more than once"),
    ("CL 5, 5", b"Content-Length: 5, 5\r\n", b"hello",
     400, None),
    ("CL +5", b"Content-Length: +5\r\n", b"hello", 400, None),
    ("CL 0x5", b"Content-Length: 0x5\r\n", b"hello", 400, None),
    ("CL empty", b"Content-Length:\r\n", b"hello", 400, None),
    ("TE xchunked", b"Transfer-Encoding: xchunked\r\n", b"5\r\nhello\r\n0\r\n\r\n",
     400, "Transfer-Encoding other than chunked"),
    ("TE chunked, identity", b"Transfer-Encoding: chunked, identity\r\n",
     b"5\r\nhello\r\n0\r\n\r\n", 400, "Transfer-Encoding other than chunked"),
    ("TE identity", b"Transfer-Encoding: identity\r\n", b"hello",
     400, "Transfer-Encoding other than chunked"),
    ("TE twice", b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
     b"5\r\nhello\r\n0\r\n\r\n", 400, "Transfer-Encoding is given more than once"),
    ("TE with a space before the colon", b"Transfer-Encoding : chunked\r\nContent-Length: 5\r\n",
     b"hello", 400, "a header name has white space before its colon"),
    ("CL with a tab before the colon", b"Content-Length\t: 5\r\n", b"hello",
     400, "a header name has white space before its colon"),
    ("obs-fold of TE", b"Transfer-Encoding: chunked\r\n x\r\nContent-Length: 5\r\n", b"hello",
     400, "a header line is folded onto the next (obs-fold) or holds a NUL byte"),
    ("obs-fold of CL", b"Content-Length: 5\r\n\t0\r\n", b"hello",
     400, "a header line is folded onto the next (obs-fold) or holds a NUL byte"),
    ("NUL in CL", b"Content-Length: 5\x0099\r\n", b"hello",
     400, "a header line holds a NUL byte or does not end in CR LF"),
    ("bare CR in a value", b"X-A: a\rContent-Length: 5\r\n", b"hello",
     400, "a header value holds a control character"),
    ("header name with a slash", b"X/A: b\r\nContent-Length: 5\r\n", b"hello",
     400, "a header name holds a character that is not allowed"),
    ("two Hosts", b"Host: evil.example\r\nContent-Length: 5\r\n", b"hello",
     400, "Host is given more than once"),
    ("two Authorizations", b"Authorization: Bearer junk\r\nContent-Length: 5\r\n", b"hello",
     400, "Authorization is given more than once"),
]


@check
def smuggling():
    # Each form carries a second request after its body; a refusal closes
    # the connection, so that one is never answered.
    subs = db_counts()["submissions"]
    inner = b"GET /v1/tokens HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n" % (
        host(), G.admin.encode())
    for name, hdrs, body, st, err in SMUGGLE:
        got = raw(b"POST /v1/submissions?name=s HTTP/1.1\r\nHost: %s\r\nAuthorization: "
                  b"Bearer %s\r\n%s\r\n%s" % (host(), G.ag.encode(), hdrs, body) + inner)
        if err is None:
            # libmicrohttpd's own answer, before the gate sees the request
            # (0.9.75 repeats its status line; one answer all the same).
            expect(statuses(got) and set(statuses(got)) == {st}, "%s: %r" % (name, got[:80]))
            expect(b"<b>Content-Length</b>" in got, name + ": libmicrohttpd's page")
        else:
            expect_eq(statuses(got), [st], name)
            expect_eq(error_of(got), err, name + ": error")
        expect(b'"tokens"' not in got, name + ": the smuggled request was answered")
        expect(not got.endswith(b"<open>"), name + ": the connection is closed")
    expect_eq(db_counts()["submissions"], subs, "no submission from a refused framing")
    # TE in HTTP/1.0 (no chunked coding there).
    got = raw(b"POST /v1/submissions?name=s HTTP/1.0\r\nHost: %s\r\nAuthorization: Bearer "
              b"%s\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" % (
                  host(), G.ag.encode()))
    expect_eq(statuses(got), [400], "TE in HTTP/1.0")
    expect_eq(error_of(got), "Transfer-Encoding in a request older than HTTP/1.1", "error")
    # What is well-formed is served: chunk extensions and trailers, white
    # space around a value, pipelining.
    got = raw(b"POST /v1/submissions?name=ext HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer "
              b"%s\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
              b"5;ext=1\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n" % (host(), G.ag.encode()))
    expect_eq(statuses(got), [201], "chunk extension and trailer")
    got = raw(b"POST /v1/submissions?name=ows HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer "
              b"%s\r\nContent-Length:   6 \r\nConnection: close\r\n\r\nhello2" % (
                  host(), G.ag.encode()))
    expect_eq(set(statuses(got)), {400}, "Content-Length with trailing white space")
    expect(b"<b>Content-Length</b>" in got, "libmicrohttpd's page")
    got = raw(b"POST /v1/submissions?name=ows HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer "
              b"%s\r\nContent-Length:   6\r\nConnection: close\r\n\r\nhello3" % (
                  host(), G.ag.encode()))
    expect_eq(statuses(got), [201], "Content-Length after white space")
    one = b"GET /v1/submissions?limit=1 HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n" % (
        host(), G.rv.encode())
    # The last one asks for the close: all is read when the gate closes.
    got = raw(one + b"\r\n" + one + b"\r\n" + one + b"Connection: close\r\n\r\n", timeout=30)
    expect_eq(statuses(got), [200, 200, 200], "three pipelined requests")
    expect(not got.endswith(b"<open>"), "closed after the third")
    expect_eq(db_counts()["submissions"], subs + 2, "the two well-formed submissions")


@check
def invalid_utf8():
    expect_eq(statuses(get(b"/v1/submissions/%FF")), [404], "an id of %FF")
    expect_eq(statuses(get(b"/v1/submissions/\xff\xfe")), [404], "raw bytes as an id")
    expect_eq(statuses(get(b"/v1/submissions?state=%FF%FE")), [400], "a state of %FF%FE")
    expect_eq(statuses(get(b"/v1/tokens/%FF%FE", method=b"DELETE")), [404], "a token name of %FF%FE")
    expect_eq(statuses(get(b"/healthz", b"X-Odd: \xff\xfe\xc0\xaf\r\n")), [200],
              "invalid UTF-8 in a header value (obs-text)")
    got = raw(b"GET /v1/submissions HTTP/1.1\r\nHost: 127.0.0.1:%d\xff\r\nAuthorization: "
              b"Bearer %s\r\n\r\n" % (G.port, G.admin.encode()))
    expect_eq(statuses(got), [403], "invalid UTF-8 in Host")
    expect_eq(statuses(get(b"/healthz", b"X-\xff: y\r\n")), [400], "invalid UTF-8 in a header name")


@check
def deep_json():
    sid = G.sid
    cases = [
        ("POST", "/v1/tokens", b"[" * 30000 + b"]" * 30000, 400),
        ("POST", "/v1/tokens", b'{"role": ' + b"[" * 30000 + b"]" * 30000 + b"}", 400),
        ("POST", "/v1/tokens", b"[" * 60000 + b"]" * 60000, 413),
        ("POST", "/v1/persons", b'{"name": ' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}", 400),
        ("POST", "/v1/submissions/%d/approve" % sid, b"[" * 30000 + b"]" * 30000, 400),
        ("POST", "/v1/submissions/%d/approve" % sid, b'{"comment": "' + b"a" * 70000 + b'"}', 413),
        ("POST", "/v1/submissions/%d/reject" % sid, b'{"comment": "\xc3\x28"}', 400),
        ("POST", "/v1/tokens", b'{"role": "reviewer", "name": "\xff"}', 400),
        ("POST", "/v1/tokens", b"\x00\x01\x02", 400),
    ]
    before = db_counts()
    for m, p, body, want in cases:
        tok = G.rv if "/submissions/" in p else G.admin
        st, _, _ = G.req(m, p, tok, body)
        expect_eq(st, want, "%s %s with %r..." % (m, p, body[:24]))
    expect_eq(db_counts(), before, "nothing changed")


HOSTILE_IDS = ["..%2F..%2Fetc%2Fpasswd", "..", "%2E%2E", "1%2F..%2F..%2Ftokens",
               "1%20OR%201=1", "1;DROP%20TABLE%20submissions", "'%20OR%20'1'='1", "-1", "0",
               "0x1", "1e3", "99999999999999999999", "1%00", "1%2500", "%FF", "%C0%AE",
               "1.0", "+1", " 1"]
HOSTILE_NAMES = ["..%2F..%2Fetc", "'%20OR%201=1%20--", "x%27)%3B%20DROP%20TABLE%20principals%3B--",
                 "%25", "rev-1%00trailing", "%FF%FE", "a%2Fb", "..", "%2E%2E%2F"]
# The route table of router.c (docs/api.md): every path with an id or a name.
ID_ROUTES = [("GET", "/v1/submissions/{}"), ("GET", "/v1/submissions/{}/content"),
             ("GET", "/v1/submissions/{}/events"), ("GET", "/v1/submissions/{}/attestation"),
             ("GET", "/v1/submissions/{}/items/0/content"),
             ("GET", "/v1/submissions/1/items/{}/content"),
             ("POST", "/v1/submissions/{}/approve"), ("POST", "/v1/submissions/{}/reject"),
             ("POST", "/v1/submissions/{}/override"), ("POST", "/v1/submissions/{}/release")]
NAME_ROUTES = [("DELETE", "/v1/tokens/{}"), ("POST", "/v1/persons/{}/disable")]


@check
def hostile_ids_and_names():
    before = db_counts()
    for m, p in ID_ROUTES:
        for v in HOSTILE_IDS:
            path = p.replace("{}", v).encode()
            got = get(path, method=m.encode())[:4096]
            if got.startswith(b"HTTP/1.1 400"):
                # A space in the request line, or an encoded NUL.
                expect(b" " in path or b"%00" in path, "%s %s: 400" % (m, path))
                continue
            expect_eq(statuses(got), [404], "%s %s" % (m, path))
    for m, p in NAME_ROUTES:
        for v in HOSTILE_NAMES:
            path = p.replace("{}", v).encode()
            got = get(path, method=m.encode())
            if b"%00" in path:
                # Not "rev-1": a NUL would end the name where C reads it.
                expect_eq(statuses(got), [400], "%s %s" % (m, path))
                expect_eq(error_of(got), "the URL holds an encoded NUL byte (%00)", "error")
                continue
            if "persons" in p and statuses(got) == [409]:
                # A name the person folding refuses (docs/operations.md).
                e = error_of(got)
                expect(e == "a name is UTF-8 text" or e.startswith("a person's name may not hold U+"),
                       "%s %s: %r" % (m, path, e))
                continue
            expect_eq(statuses(got), [404], "%s %s" % (m, path))
    for k, v in (("state", "held'%20OR%20'1'='1"), ("limit", "1e3"), ("limit", "-1"),
                 ("limit", "99999999999999999999"), ("state", "..%2F.."),
                 ("agent", "x'%20OR%20'1'='1"), ("sort", "id%3B%20DROP%20TABLE%20submissions"),
                 ("cursor", "n1%20OR%201=1"), ("severity", "high'--"), ("kind", "patch'%20OR%201--")):
        expect_eq(statuses(get(b"/v1/submissions?%s=%s" % (k.encode(), v.encode()))), [400],
                  "list ?%s=%s" % (k, v))
    # A person's name may hold ' (fold.h): bound, it names nobody (of
    # submissions there are).
    st, d = G.jreq("GET", "/v1/submissions?limit=1", G.rv)
    expect(st == 200 and len(d["submissions"]) == 1, "no submission to list: %r" % (d,))
    st, d = G.jreq("GET", "/v1/submissions?person=x'%20OR%20'a'", G.rv)
    expect_eq((st, d.get("submissions") if isinstance(d, dict) else d), (200, []), "list ?person=x' OR 'a'")
    for k, v in (("name", "..%2F..%2Fetc%2Fpasswd"), ("kind", "..%2F..%2Fbin%2Fsh"),
                 ("name", "x'%3B%20DROP%20TABLE%20submissions%3B--")):
        st, _, _ = G.req("POST", "/v1/submissions?%s=%s" % (k, v), G.ag,
                         ("hostile %s %f" % (k, time.time())).encode())
        expect(st in (201, 400), "submit ?%s=%s: %d" % (k, v, st))
    after = db_counts()
    after["submissions"] = before["submissions"]   # the submits above may have landed
    expect_eq(after, before, "the database after hostile ids and names")
    st, d = G.jreq("GET", "/v1/submissions?limit=1000", G.rv)
    expect_eq(st, 200, "the list still answers")


@check
def host_and_origin():
    p = G.port
    good = ["127.0.0.1:%d" % p, "localhost:%d" % p]
    bad = ["127.0.0.1:%d." % p, "127.0.0.1.:%d" % p, "LOCALHOST:%d" % p, "127.0.0.1",
           "localhost", "[::1]:%d" % p, "127.1:%d" % p, "2130706433:%d" % p, "0.0.0.0:%d" % p,
           "evil@127.0.0.1:%d" % p, "127.0.0.1:%d@evil.example" % p, "127.0.0.1:0%d" % p,
           "127.0.0.1:%d " % p, "evil.example:%d" % p, "127.0.0.1:%d\tx" % p, ""]
    for h in good + bad:
        got = raw(b"GET /v1/submissions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
                  b"Connection: close\r\n\r\n" % (h.encode(), G.admin.encode()))
        expect_eq(statuses(got), [200 if h in good else 403], "Host %r" % h)
    got = raw(b"GET /v1/submissions HTTP/1.1\r\nAuthorization: Bearer %s\r\nConnection: "
              b"close\r\n\r\n" % G.admin.encode())
    expect_eq(statuses(got), [403], "no Host")
    got = raw(b"GET http://evil.example/v1/submissions HTTP/1.1\r\nHost: %s\r\n"
              b"Authorization: Bearer %s\r\nConnection: close\r\n\r\n" % (host(), G.admin.encode()))
    expect_eq(statuses(got), [404], "absolute-form URI")
    got = raw(b"GET /v1/submissions HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s"
              b"\r\nConnection: close\r\n\r\n" % (p, G.ag.encode()), via="sock")
    expect_eq(statuses(got), [403], "a TCP Host on the intake socket")
    n = 0
    for o in ["http://127.0.0.1:%d" % p, "http://localhost:%d" % p, "null", "http://evil.example",
              "https://127.0.0.1:%d" % p, "HTTP://127.0.0.1:%d" % p, "http://127.0.0.1:%d/" % p,
              "http://127.0.0.1:%d.evil.example" % p, "http://127.0.0.1:%d@evil" % p, "",
              "file://", "http://127.0.0.1"]:
        n += 1
        st, _, r = G.req("POST", "/v1/persons", G.admin, json.dumps({"name": "origin-%d" % n}),
                         headers={"Origin": o})
        want = 201 if o in ("http://127.0.0.1:%d" % p, "http://localhost:%d" % p) else 403
        expect_eq(st, want, "POST with Origin %r" % o)
    got = raw(b"GET /v1/submissions HTTP/1.1\r\nHost: %s\r\nOrigin: http://evil.example\r\n"
              b"Authorization: Bearer %s\r\nConnection: close\r\n\r\n" % (host(), G.admin.encode()))
    expect_eq(statuses(got), [200], "GET with a foreign Origin (no cookies: nothing to forge)")
    expect(b"access-control" not in got.lower(), "no CORS header")
    got = raw(b"OPTIONS /v1/submissions HTTP/1.1\r\nHost: %s\r\nOrigin: http://evil.example\r\n"
              b"Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n" % host())
    expect_eq(statuses(got), [404], "CORS preflight")
    expect(b"access-control" not in got.lower(), "no CORS header on the preflight")
    for path, hdrs in (("/v1/submissions?token=%s" % G.admin, {}),
                       ("/v1/submissions?access_token=%s" % G.admin, {}),
                       ("/v1/submissions", {"Cookie": "token=%s" % G.admin}),
                       ("/v1/submissions", {"X-Airlock-Token": G.admin})):
        st, _, _ = G.req("GET", path, None, headers=hdrs)
        expect_eq(st, 401, "a token outside Authorization (%s %s)" % (path[:20], list(hdrs)))


# ---- runner -------------------------------------------------------------------

def setup():
    G.start()
    G.fds_idle = G.nfds()
    for name in ("alice", "rev-1"):
        st, d = G.jreq("POST", "/v1/persons", G.admin, {"name": name})
        expect_eq(st, 201, "person %s" % name)
    st, d = G.jreq("POST", "/v1/tokens", G.admin, {"role": "agent", "name": "agent-1",
                                                  "on_behalf_of": "alice"})
    expect_eq(st, 201, "agent token")
    G.ag = d["token"]
    st, d = G.jreq("POST", "/v1/tokens", G.admin, {"role": "reviewer", "name": "rev-1"})
    expect_eq(st, 201, "reviewer token")
    G.rv = d["token"]
    st, d = G.jreq("POST", "/v1/submissions?name=a.txt", G.ag, b"hello from agent-1\n")
    expect_eq(st, 201, "a first submission")
    G.sid = d["id"]
    G.maxc = start_limits()


def main():
    t_start = time.time()
    try:
        setup()
    except Fail as e:
        print("FAIL setup: %s" % e)
        print(open(LOG).read()[-3000:])
        print("0 passed, 1 failed")
        return 1
    only = set(x for x in args.only.split(",") if x)
    for fn in CHECKS:
        if only and fn.__name__ not in only:
            continue
        t0 = time.time()
        try:
            fn()
            PASSED.append(fn.__name__)
            print("ok   %s (%.1f s)" % (fn.__name__, time.time() - t0), flush=True)
        except (Fail, OSError, ValueError, KeyError, http.client.HTTPException) as e:
            FAILED.append(fn.__name__)
            print("FAIL %s: %s: %s" % (fn.__name__, type(e).__name__, e), flush=True)
        if not G.alive():
            FAILED.append("gate died")
            print("FAIL the gate died after %s" % fn.__name__)
            break
    # The end: all closed, nothing left, a clean stop.
    try:
        t0 = time.time()
        while G.alive() and G.nfds() > G.fds_idle + 2 and time.time() - t0 < 15:
            time.sleep(0.2)
        if G.alive():
            FIGURES["gate fds idle at start / at end"] = "%d / %d" % (G.fds_idle, G.nfds())
            expect(G.nfds() <= G.fds_idle + 2, "descriptors back to idle: %d, were %d" % (
                G.nfds(), G.fds_idle))
        expect_eq(tmp_files(), [], "tmp/ at the end")
        rc = G.stop()
        expect_eq(rc, 0, "exit status after SIGTERM")
        log = open(LOG, errors="replace").read()
        expect("ERROR: AddressSanitizer" not in log and "ERROR: LeakSanitizer" not in log and
               "runtime error:" not in log, "no sanitizer report in the log")
        PASSED.append("clean_end")
        print("ok   clean_end")
    except Fail as e:
        FAILED.append("clean_end")
        print("FAIL clean_end: %s" % e)
    finally:
        if G.proc and G.proc.poll() is None:
            G.proc.kill()
            G.proc.wait()
    if FAILED:
        print("--- serve.log (last 30 lines):")
        print("\n".join(open(LOG, errors="replace").read().splitlines()[-30:]))
    FIGURES["seconds"] = round(time.time() - t_start, 1)
    print("hostile figures: " + json.dumps(FIGURES, sort_keys=True))
    print("%d passed, %d failed" % (len(PASSED), len(FAILED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        if G.proc and G.proc.poll() is None:
            G.proc.kill()
        shutil.rmtree(WORK, ignore_errors=True)
    sys.exit(rc)
