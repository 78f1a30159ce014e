#!/usr/bin/env python3
"""iofault.py - the gate under injected I/O errors and a full disk, round
after round: `make iofault` (long) and `make test` (short).

Each round starts the gate with tests/fault/iofail.c preloaded. While two
agents submit (one over TCP, one over the intake socket), a reviewer reads
and approves what is held and CI releases what is approved, a flapper turns
faults on and off: fsync and pwrite of the WAL failing with EIO, its writes
with ENOSPC (a full disk), the upload files' writes and syncs failing, in
the HTTP threads, the scan threads or all. Then the gate is killed (kill -9,
or SIGTERM) and started again without faults, and the record is checked:

  - every submission acknowledged (201) is there, with its sha256, and its
    object in the store hashes to it;
  - no submission that was refused (5xx) is there: a failed commit is void
    (unless the gate said it stopped because it could not be sure, which is
    counted, not hidden);
  - every approval acknowledged (200) counts; nothing released lacks an
    approval;
  - no upload is left in tmp/; PRAGMA integrity_check is ok;
  - the gate drains the queue (nothing left received or scanning) and
    /healthz says ok: the scan threads survived the faults.

Prints the figures (JSON) at the end; exits 1 on any violation. Standard
library only; loopback and the data directory's socket only.

usage: iofault.py [--rounds N] [--seconds S] [--seed N] [--work DIR]
                  [--bin B] [--rules R] [--shim SO]
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate_client as G  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--rounds", type=int, default=20)
ap.add_argument("--seconds", type=float, default=3.0)
ap.add_argument("--seed", type=int, default=None)
ap.add_argument("--work", default=None)
ap.add_argument("--bin", default=os.environ.get("AIRLOCK_BIN", "build/airlock"))
ap.add_argument("--rules", default=os.path.join(G.ROOT, "tests/data/rules"))
ap.add_argument("--shim", default=os.environ.get("IOFAIL", "build/tests/libiofail.so"))
args = ap.parse_args()
seed = args.seed if args.seed is not None else random.randrange(1 << 30)
rnd = random.Random(seed)
print("iofault: seed %d (--seed %d repeats this run)" % (seed, seed), flush=True)
work = args.work or tempfile.mkdtemp(prefix="airlock-iofault.")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
shim = os.path.abspath(args.shim)
if not os.path.isfile(shim):
    sys.exit("iofault: %s is not built (make %s)" % (shim, args.shim))
ctl = os.path.join(work, "faults.ctl")
flog = os.path.join(work, "faults.log")
open(ctl, "w").close()

# The faults a flapper chooses from: (op errno path thread).
FAULTS = [
    "fsync EIO -wal *",
    "pwrite EIO -wal *",
    "pwrite ENOSPC -wal *",
    "pwrite EIO -wal al-scan",
    "fsync EIO -wal al-scan",
    "write ENOSPC upload- *",
    "write EIO upload- *",
    "fsync EIO upload- *",
]

env = {"IOFAIL_CTL": ctl, "IOFAIL_LOG": flog}
asan = os.environ.get("ASAN_OPTIONS")
env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "verify_asan_link_order=0"
faulty = G.Gate(work, args.bin, args.rules, scanners=2,
                env=dict(env, LD_PRELOAD=shim))
clean = G.Gate(work, args.bin, args.rules, scanners=2)
clean.init()
faulty.admin = clean.admin
clean.start()
AG = clean.token("agent", "agent-1", on_behalf_of="alice")
RV = clean.token("reviewer", "rev-1")
CI = clean.token("ci", "ci-1")
clean.term()

lock = threading.Lock()
acked = {}          # sha256 -> id
refused = set()     # sha256 of submissions answered 5xx
approved = set()    # ids with an approval answered 200
released = set()
codes = {}
violations = []
uncertain_total = 0


def count(k):
    with lock:
        codes[k] = codes.get(k, 0) + 1


def submitter(g, stop, listener, tag):
    i = 0
    while not stop.is_set():
        i += 1
        body = ("%s %d %d %s\n" % (tag, i, rnd.getrandbits(48), "x" * rnd.randrange(0, 3000))).encode()
        sha = hashlib.sha256(body).hexdigest()
        try:
            a = g.post("/v1/submissions?name=f%d.txt" % i, AG, body, listener=listener, timeout=20)
        except Exception as e:  # no answer (the gate is down or cut it)
            count("submit:" + type(e).__name__)
            stop.wait(0.02)
            continue
        count("submit:%d" % a.status)
        with lock:
            if a.status == 201:
                acked[sha] = a.json()["id"]
            elif a.status >= 500:
                refused.add(sha)


def reviewer(g, stop):
    while not stop.is_set():
        try:
            a = g.get("/v1/submissions?state=held&limit=10", RV, timeout=20)
            for s in a.json().get("submissions", []) if a.status == 200 else []:
                sid = s["id"]
                if g.get("/v1/submissions/%d/content" % sid, RV, timeout=20).status != 200:
                    continue
                d = g.get("/v1/submissions/%d" % sid, RV, timeout=20)
                if d.status != 200 or not d.json().get("scan"):
                    continue
                d = d.json()
                r = g.post("/v1/submissions/%d/approve" % sid, RV,
                           {"sha256": d["sha256"], "ruleset": d["scan"]["ruleset"]}, timeout=20)
                count("approve:%d" % r.status)
                if r.status == 200:
                    with lock:
                        approved.add(sid)
            a = g.get("/v1/submissions?state=approved&limit=10", CI, timeout=20)
            for s in a.json().get("submissions", []) if a.status == 200 else []:
                r = g.post("/v1/submissions/%d/release" % s["id"], CI, b"", timeout=20)
                count("release:%d" % r.status)
                if r.status == 200:
                    with lock:
                        released.add(s["id"])
        except Exception as e:
            count("review:" + type(e).__name__)
            time.sleep(0.05)


def flapper(stop):
    while not stop.is_set():
        rules = rnd.sample(FAULTS, rnd.randint(1, 2))
        with open(ctl + ".new", "w") as f:
            f.write("".join(r + ("" if rnd.random() < 0.5 else " %d" % rnd.randint(1, 4)) + "\n"
                            for r in rules))
        os.replace(ctl + ".new", ctl)
        stop.wait(rnd.uniform(0.1, 0.6))
        open(ctl + ".new", "w").close()
        os.replace(ctl + ".new", ctl)
        stop.wait(rnd.uniform(0.1, 0.4))
    open(ctl + ".new", "w").close()
    os.replace(ctl + ".new", ctl)


def check(rno):
    """The record after a restart without faults."""
    global uncertain_total
    g = clean
    log = open(g.log_path, "rb").read().decode(errors="replace")
    # Each commit the gate could not be sure about (its sync failed, and so
    # did the commit that would void it) is said once in the log, and the
    # gate stops: those alone may come back although answered 5xx.
    uncertain = log.count("decided at the next start")
    # Nobody writes behind the gate's back here: a checkpoint refused for
    # an entry the gate did not write is the gate misjudging its own.
    for line in log.splitlines():
        if "behind its back" in line:
            violations.append("round %d: %s" % (rno, line))
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(g.data, "airlock.db"), uri=True)
    rows = dict(db.execute("SELECT sha256, id FROM submissions").fetchall())
    ok = db.execute("PRAGMA integrity_check").fetchone()[0]
    if ok != "ok":
        violations.append("round %d: integrity_check: %s" % (rno, ok))
    with lock:
        for sha, sid in acked.items():
            if rows.get(sha) != sid:
                violations.append("round %d: acknowledged submission %d (%s) is missing" % (rno, sid, sha[:12]))
                continue
            p = os.path.join(g.data, "objects", sha[:2], sha)
            try:
                h = hashlib.sha256(open(p, "rb").read()).hexdigest()
            except OSError as e:
                violations.append("round %d: submission %d: its object: %s" % (rno, sid, e))
                continue
            if h != sha:
                violations.append("round %d: submission %d: its object hashes to %s" % (rno, sid, h[:12]))
        back = [s for s in refused if s in rows and s not in acked]
        if len(back) > uncertain:
            violations.append("round %d: %d submissions answered 5xx are recorded (e.g. %d), "
                              "%d commits the gate said it could not be sure of" % (
                                  rno, len(back), rows[back[0]], uncertain))
        for sid in approved:
            n = db.execute("SELECT count(*) FROM approvals WHERE submission_id = ?", (sid,)).fetchone()[0]
            if n == 0:
                violations.append("round %d: acknowledged approval of %d is missing" % (rno, sid))
    for (sid,) in db.execute("SELECT id FROM submissions s WHERE state = 'released' AND NOT EXISTS "
                             "(SELECT 1 FROM approvals a WHERE a.submission_id = s.id)"):
        violations.append("round %d: submission %d released without an approval" % (rno, sid))
    db.close()
    left = os.listdir(os.path.join(g.data, "tmp"))
    if [f for f in left if f.startswith("upload-")]:
        violations.append("round %d: uploads left in tmp/: %s" % (rno, left[:3]))
    uncertain_total = uncertain
    # The queue drains, and the scanners are healthy.
    end = time.monotonic() + 60
    while True:
        n = sqlite3.connect(os.path.join(g.data, "airlock.db")).execute(
            "SELECT count(*) FROM submissions WHERE state IN ('received', 'scanning')").fetchone()[0]
        h = g.get("/healthz", timeout=5)
        if n == 0 and h.status == 200:
            break
        if time.monotonic() > end:
            violations.append("round %d: %d submissions still wait for a scan after 60 s; /healthz %d %s" % (
                rno, n, h.status, h.body[:200]))
            break
        time.sleep(0.1)


t0 = time.monotonic()
for rno in range(1, args.rounds + 1):
    open(ctl, "w").close()
    try:
        faulty.start()
    except RuntimeError as e:
        # A gate whose start meets a fault may refuse to start: that is fail
        # closed. Counted; the round goes on without clients.
        count("start_refused")
    else:
        stop = threading.Event()
        th = [threading.Thread(target=submitter, args=(faulty, stop, "review", "tcp")),
              threading.Thread(target=submitter, args=(faulty, stop, "intake", "sock")),
              threading.Thread(target=reviewer, args=(faulty, stop)),
              threading.Thread(target=flapper, args=(stop,))]
        for t in th:
            t.start()
        time.sleep(args.seconds)
        stop.set()
        for t in th:
            t.join(60)
        if rnd.random() < 0.5:
            faulty.kill9()
            count("stop:kill9")
        else:
            rc = faulty.term(20)
            count("stop:term:%s" % rc)
    clean.start()
    check(rno)
    clean.term()
    print("round %d: %d acknowledged, %d refused, %d violations" % (
        rno, len(acked), len(refused), len(violations)), flush=True)
    if violations:
        break

injected = {}
try:
    for line in open(flog):
        k = " ".join(line.split()[:2])
        injected[k] = injected.get(k, 0) + 1
except OSError:
    pass
out = {"seed": seed, "rounds": rno, "seconds": round(time.monotonic() - t0, 1),
       "acknowledged": len(acked), "refused_5xx": len(refused), "approved": len(approved),
       "released": len(released), "commits_the_gate_was_unsure_of": uncertain_total,
       "injected": injected, "codes": codes, "violations": violations[:20]}
print(json.dumps(out, indent=1))
if not args.work:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if violations else 0)
