#!/usr/bin/env python3
"""audit_bench.py - the audit log's costs by size (docs/audit.md), for make
bench: a gate's data directory (airlock init) is grown to 10^3, 10^5 and
10^6 events; at each size the gate's own code appends 200 more
(bench/audit_append: each its own transaction, synchronous=FULL, as the gate
appends) and makes 200 inclusion proofs of random entries and the root; at
the largest, `airlock audit verify` reads the whole log again.

The events are written here, with their entries, leaf hashes and nodes,
by this file's own implementation of the documented format, so that a
verify that passes also shows that docs/audit.md describes what the gate
writes. Figures: a table on stdout and in $OUT (default
build/bench/audit.tsv). Absolute figures, this machine; there is no peer
to run in the same process.

usage: audit_bench.py --bin build/airlock --append build/bench/audit_append
                      [--sizes 1000,100000,1000000]
"""
import argparse
import hashlib
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time


def esc(b):
    out = bytearray()
    for c in b:
        if c < 0x20 or c == 0x7F or c == 0x25:
            out += b"%%%02X" % c
        else:
            out.append(c)
    return bytes(out)


def entry(idx, ev, at, action, detail):
    lines = [b"airlock audit entry v1", b"index %d" % idx, b"event %d" % ev,
             b"at %d" % at, b"action " + esc(action), b"actor 0",
             b"actor-name ", b"actor-role ", b"person 0", b"person-name ",
             b"submission 0", b"sha256 ", b"detail " + esc(detail)]
    return b"\n".join(lines) + b"\n"


def node(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def grow(db, to):
    """Appends events until the log has `to` entries; returns the count
    added. Nodes as db_audit.c stores them: every complete subtree."""
    size = db.execute("SELECT ifnull(max(idx), -1) + 1 FROM audit_leaves").fetchone()[0]
    ev = db.execute("SELECT ifnull(max(id), 0) FROM events").fetchone()[0]
    added = 0
    while size < to:
        batch = min(to - size, 20000)
        evs, leaves, nodes = [], [], []
        cache = {}
        for _ in range(batch):
            ev += 1
            det = b"bench event %d" % ev
            e = entry(size, ev, 1000 + ev, b"note", det)
            h = hashlib.sha256(b"\x00" + e).digest()
            evs.append((ev, 1000 + ev, "note", det.decode()))
            leaves.append((size, ev, e, h))
            cache[(0, size)] = h
            # Every subtree the new leaf completes.
            lvl, i, cur = 0, size, h
            while i & 1:
                left = cache.get((lvl, i - 1))
                if left is None:
                    q = ("SELECT hash FROM audit_leaves WHERE idx = ?", (i - 1,)) if lvl == 0 else \
                        ("SELECT hash FROM audit_nodes WHERE level = ? AND idx = ?", (lvl, i - 1))
                    left = db.execute(*q).fetchone()[0]
                cur = node(left, cur)
                lvl += 1
                i >>= 1
                cache[(lvl, i)] = cur
                nodes.append((lvl, i, cur))
            size += 1
        db.executemany("INSERT INTO events (id, at, actor, action, submission_id, detail) "
                       "VALUES (?, ?, NULL, ?, NULL, ?)", evs)
        db.executemany("INSERT INTO audit_leaves (idx, event_id, entry, hash) VALUES (?, ?, ?, ?)",
                       leaves)
        db.executemany("INSERT INTO audit_nodes (level, idx, hash) VALUES (?, ?, ?)", nodes)
        db.commit()
        added += batch
    return added


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/airlock")
    ap.add_argument("--append", default="build/bench/audit_append")
    ap.add_argument("--sizes", default="1000,100000,1000000")
    ap.add_argument("--out", default=os.environ.get("OUT", "build/bench/audit.tsv"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="airlock-audit-bench.")
    data = os.path.join(work, "data")
    subprocess.run([a.bin, "init", "--data", data], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    path = os.path.join(data, "airlock.db")
    rows = ["size\tappend_mean_ms\tappend_p99_ms\tproof_mean_ms\troot_ms\tverify_s"]
    print("audit log costs, %s, %s" % (platform.node(), platform.processor() or platform.machine()))
    print("%10s %14s %13s %13s %8s %9s" % ("entries", "append mean", "append p99", "proof mean",
                                            "root", "verify"))
    for target in [int(x) for x in a.sizes.split(",")]:
        db = sqlite3.connect(path)
        t0 = time.monotonic()
        grow(db, target)
        db.close()
        built = time.monotonic() - t0
        r = subprocess.run([a.append, path, "200"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("audit_append: " + r.stderr)
        size, mean, p99, proof, root = r.stdout.split()
        verify = ""
        if target == int(a.sizes.split(",")[-1]):
            t0 = time.monotonic()
            v = subprocess.run([a.bin, "audit", "verify", "--data", data], capture_output=True,
                               text=True)
            verify = "%.1f" % (time.monotonic() - t0)
            if v.returncode != 0:
                sys.exit("audit verify failed on the generated log (docs/audit.md and the "
                         "gate disagree?):\n" + v.stdout + v.stderr)
        print("%10s %11s ms %10s ms %10s ms %5s ms %8s%s   (grown in %.0f s)" % (
            size, mean, p99, proof, root, verify, " s" if verify else "  ", built))
        rows.append("\t".join([size, mean, p99, proof, root, verify]))
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(rows) + "\n")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
