"""gate_client.py - what the Python suites share (tests/route_matrix.py,
tests/torture.py): HTTP to a gate on its loopback TCP listener or its intake
unix socket, one fresh connection per request, and an `airlock serve` run
as a child process (started on a free loopback port, waited for, killed by
pid) with the processes it forked (scan launchers, scan children), found
through /proc.

Trust: test code against a gate we started; it talks only to 127.0.0.1 and
to the socket in the data directory, and stops only the processes it
started (by pid). Standard library only (no PyPI).
"""
import hashlib
import http.client
import json
import os
import signal
import socket
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Answer:
    """One answer: status, headers (lower-case names), body bytes."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)

    def error(self):
        """The message of an {"error": STRING} body, else None."""
        try:
            d = json.loads(self.body)
        except ValueError:
            return None
        if isinstance(d, dict) and list(d) == ["error"] and isinstance(d["error"], str):
            return d["error"]
        return None


def read_answer(s, method):
    """Reads one HTTP answer from socket s."""
    r = http.client.HTTPResponse(s, method=method)
    r.begin()
    data = r.read()
    return Answer(r.status, {k.lower(): v for k, v in r.getheaders()}, data)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def sha256_hex(b):
    return hashlib.sha256(b).hexdigest()


def proc_ppid(pid):
    """The parent pid of pid, or None when it is gone (or a zombie)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
    except OSError:
        return None
    rest = st[st.rindex(")") + 2:].split()
    if rest[0] == "Z":
        return None
    return int(rest[1])


def children_of(pid):
    """The live processes whose parent is pid."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit() and proc_ppid(int(d)) == pid:
            out.append(int(d))
    return out


def alive(pid):
    return proc_ppid(pid) is not None


def rss_kib(pid):
    """VmRSS of pid in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for %d" % pid)


class Gate:
    """One data directory and the `airlock serve` that serves it."""

    def __init__(self, work, bin_path, rules, scanners=2, env=None):
        self.work = os.path.abspath(work)
        self.data = os.path.join(self.work, "data")
        self.bin = os.path.abspath(bin_path)
        self.rules = os.path.abspath(rules)
        self.scanners = scanners
        self.sock = os.path.join(self.data, "intake.sock")
        self.log_path = os.path.join(self.work, "serve.log")
        self.env = dict(os.environ)
        self.env.setdefault("AIRLOCK_CACHE_DIR", os.path.join(self.work, "cache"))
        self.env.update(env or {})
        self.proc = None
        self.port = None
        self.admin = None
        self.starts = 0

    # ---- the process ----------------------------------------------------

    def init(self):
        """`airlock init`: the admin token in self.admin."""
        os.makedirs(self.work, exist_ok=True)
        r = subprocess.run([self.bin, "init", "--data", self.data], env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        if r.returncode != 0:
            raise RuntimeError("airlock init: %s" % r.stderr.decode(errors="replace"))
        self.admin = r.stdout.decode().strip()
        return self.admin

    def start(self, wait=30.0):
        """Starts the gate on a free port; returns once /healthz answers
        (at most wait seconds), else raises."""
        for _ in range(3):
            self.port = free_port()
            with open(self.log_path, "ab") as log:
                log.write(("--- serve on 127.0.0.1:%d\n" % self.port).encode())
                log.flush()
                self.proc = subprocess.Popen(
                    [self.bin, "serve", "--data", self.data, "--listen",
                     "127.0.0.1:%d" % self.port, "--scanners", str(self.scanners),
                     "--rules", self.rules],
                    env=self.env, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
            self.starts += 1
            end = time.monotonic() + wait
            while time.monotonic() < end:
                if self.proc.poll() is not None:
                    break
                try:
                    if self.get("/healthz", timeout=2).status == 200:
                        return
                except OSError:
                    pass
                time.sleep(0.02)
            if self.proc.poll() is None:
                self.kill9()
                raise RuntimeError("the gate did not answer /healthz within %gs" % wait)
            if "in use" not in self.log_tail(1):
                raise RuntimeError("the gate did not start (status %s): %s" %
                                   (self.proc.returncode, self.log_tail(5)))
        raise RuntimeError("no free port after 3 tries")

    def log_tail(self, n=20):
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode(errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def pid(self):
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    def launchers(self):
        p = self.pid()
        return children_of(p) if p else []

    def scan_children(self):
        return [c for l in self.launchers() for c in children_of(l)]

    def kill9(self):
        """SIGKILL of the gate; returns once it is reaped."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def wait_exit(self, timeout):
        """The exit status once the gate ended, or None after timeout."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def term(self, timeout=15.0):
        """SIGTERM; the exit status, or None if it still runs after timeout
        (it is then killed)."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        os.kill(self.proc.pid, signal.SIGTERM)
        rc = self.wait_exit(timeout)
        if rc is None:
            self.kill9()
        return rc

    # ---- requests -------------------------------------------------------

    def connect(self, listener="review", timeout=30.0):
        """A connected socket to a listener ("review" or "intake")."""
        if listener == "review":
            return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.sock)
        except OSError:
            s.close()
            raise
        return s

    def host(self, listener):
        return "127.0.0.1:%d" % self.port if listener == "review" else "localhost"

    def request(self, method, path, token=None, body=None, headers=None,
                listener="review", timeout=30.0, auth=None):
        """One request on a fresh connection, sent in one write (headers and
        body); an answer given before the body was read (a refusal) is read
        even when the gate closed its side first. token: a bearer token;
        auth: a raw Authorization value instead (neither: no header).
        Raises OSError or http.client.HTTPException when there is no
        answer."""
        h = {"Host": self.host(listener), "Connection": "close"}
        h.update(headers or {})
        if token is not None:
            h["Authorization"] = "Bearer " + token
        elif auth is not None:
            h["Authorization"] = auth
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
        if body is not None:
            h["Content-Length"] = str(len(body))
        head = "%s %s HTTP/1.1\r\n%s\r\n" % (method, path, "".join(
            "%s: %s\r\n" % kv for kv in h.items()))
        s = self.connect(listener, timeout)
        try:
            try:
                s.sendall(head.encode() + (body or b""))
            except (BrokenPipeError, ConnectionResetError):
                pass              # answered early: the answer is there to read
            return read_answer(s, method)
        finally:
            s.close()

    def get(self, path, token=None, **kw):
        return self.request("GET", path, token, **kw)

    def post(self, path, token=None, body=None, **kw):
        return self.request("POST", path, token, body=body, **kw)

    def must(self, want, method, path, token=None, body=None, **kw):
        """A request whose status must be want (an int or a tuple)."""
        a = self.request(method, path, token, body=body, **kw)
        wants = want if isinstance(want, tuple) else (want,)
        if a.status not in wants:
            raise AssertionError("%s %s: HTTP %d, expected %s: %s" % (
                method, path, a.status, want, a.body[:300]))
        return a

    # ---- the set-up every suite needs ------------------------------------

    def person(self, name):
        a = self.post("/v1/persons", self.admin, {"name": name})
        if a.status not in (201, 409):
            raise AssertionError("POST /v1/persons %s: HTTP %d %s" % (name, a.status, a.body))

    def token(self, role, name, on_behalf_of=None, ttl=None, person=None):
        """A new token (its person registered first when needed)."""
        if role == "agent":
            self.person(on_behalf_of)
        else:
            self.person(person or name)
        body = {"role": role, "name": name}
        if on_behalf_of:
            body["on_behalf_of"] = on_behalf_of
        if ttl:
            body["ttl"] = ttl
        if person:
            body["person"] = person
        return self.must(201, "POST", "/v1/tokens", self.admin, body).json()["token"]

    def show(self, sid, token=None):
        return self.must(200, "GET", "/v1/submissions/%d" % sid, token or self.admin).json()

    def wait_state(self, sid, states, timeout=60.0):
        """Polls until submission sid is in one of states; its JSON."""
        end = time.monotonic() + timeout
        while True:
            d = self.show(sid)
            if d["state"] in states:
                return d
            if time.monotonic() > end:
                raise AssertionError("submission %d is %s after %gs, expected %s" % (
                    sid, d["state"], timeout, states))
            time.sleep(0.05)
