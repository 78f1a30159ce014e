#!/usr/bin/env python3
"""mbox_diff.py - airlock's mailbox reader against real `git am`.

Generates mailboxes (stdlib only, from a fixed seed) with every encoding git
mailinfo decodes (quoted-printable, base64, 8bit, 7bit, unknown), RFC 2047
encoded From and Subject, charsets (UTF-8, ISO-8859-1, US-ASCII, unknown),
multipart bodies (nested, too deep), format=flowed, in-body headers, scissors
lines, CR LF line ends, `From ` lines with and without a blank line before
them, inside bodies, and `>From` lines. Every line a series adds, every
commit message and every author name holds a marker token (zqm + 10 hex).

Each series is applied with `git am` (and, when it has a scissors line, with
`git am --scissors` too) in a scratch repository; then airlock scans all of
them at once (`airlock scan --kind mbox --format json`) with one rule that
matches the markers (tests/data/rules-marker). For every commit git am made
from mail K, each marker in the lines it added to PATH must be a finding at
MBOX!/000K!/PATH (MBOX!/PATH for a one-mail mailbox), each marker in its
message or author at MBOX!/000K, and each file it made executable an
airlock.executable-mode finding - unless airlock called that mail (or the
mailbox) airlock.unscannable. Any other miss fails the test.

Usage: AIRLOCK_BIN=build/airlock python3 tests/mbox_diff.py WORKDIR [N]
Prints the counts; exits 1 on a miss or when too little was exercised.
"""
import base64
import concurrent.futures
import json
import os
import quopri
import random
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "tests", "data", "rules-marker")
SEED = int(os.environ.get("MBOX_DIFF_SEED", "20240611"))
rnd = random.Random(SEED)

ENV = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
           GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com",
           GIT_COMMITTER_NAME="C", GIT_COMMITTER_EMAIL="c@example.com",
           LC_ALL="C")
for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
    ENV.pop(k, None)

# What the rule matches (tests/data/rules-marker/marker.yml).
MARK = re.compile(r"\bzqm[0-9a-f]{10}\b", re.ASCII)

SEP = "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001"


def marker():
    return "zqm%010x" % rnd.getrandbits(40)


def chance(p):
    return rnd.random() < p


# ---- encoders ------------------------------------------------------------

def qp(data):
    if chance(0.3):
        # Every letter of some words as =XX, soft breaks at odd places.
        out, col = [], 0
        for line in data.split(b"\n"):
            enc = b""
            for c in line:
                if c in b"=" or c >= 0x80 or (chance(0.3) and 0x21 <= c < 0x7f):
                    piece = b"=%02X" % c
                else:
                    piece = bytes([c])
                if len(enc) - col > 30 and chance(0.2):
                    enc += b"=\n"
                    col = len(enc)
                enc += piece
            out.append(enc)
            col = 0
        return b"\n".join(out)
    return quopri.encodestring(data)


def b64(data):
    s = base64.b64encode(data)
    width = rnd.choice([76, 76, 60, 4 * rnd.randint(1, 20), 4 * rnd.randint(1, 20) + 2])
    return b"\n".join(s[i:i + width] for i in range(0, len(s), width)) + b"\n"


def encode_body(data, cte):
    if cte == "quoted-printable":
        return qp(data)
    if cte == "base64":
        return b64(data)
    return data


def encoded_word(text, charset):
    raw = text.encode("latin-1" if charset.lower() == "iso-8859-1" else "utf-8")
    if chance(0.5):
        return "=?%s?b?%s?=" % (charset, base64.b64encode(raw).decode())
    q = "".join(chr(c) if (0x30 <= c < 0x7f and c not in b"=?_") else ("_" if c == 0x20 else "=%02X" % c)
                for c in raw)
    return "=?%s?q?%s?=" % (charset, q)


# ---- one mail ------------------------------------------------------------

class Mail:
    def __init__(self, k, n, feats):
        self.k, self.n, self.feats = k, n, feats


def diff_text(k, feats):
    """A diff creating one or two new files, each line with a marker."""
    out = []
    for j in range(rnd.randint(1, 2)):
        path = "d%d/f%d_%d.txt" % (rnd.randint(0, 2), k, j)
        mode = "100755" if chance(0.15) else "100644"
        if mode == "100755":
            feats.add("exec")
        lines = []
        for _ in range(rnd.randint(1, 4)):
            pre = rnd.choice(["", "x = ", ">From ", "From ", "-- >8 --", "=3D ", "caf\u00e9 "])
            lines.append("%s%s" % (pre, marker()))
        out.append("diff --git a/%s b/%s\nnew file mode %s\nindex 0000000..1111111\n"
                   "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n" % (path, path, mode, path, len(lines)))
        out.extend("+%s\n" % l for l in lines)
    return "".join(out)


def make_mail(k, n, feats):
    charset = rnd.choice(["UTF-8", "UTF-8", "UTF-8", "ISO-8859-1", "us-ascii", "x-unknown", ""])
    cte = rnd.choice(["8bit", "7bit", "quoted-printable", "quoted-printable", "base64", "base64",
                      "x-uuencode", None])
    multipart = chance(0.2)
    flowed = chance(0.08)
    feats.add("cte=%s" % cte)
    feats.add("cs=%s" % charset)
    name = "Ann %s" % marker()
    subj = "change %s" % marker()
    if chance(0.4):
        cs = rnd.choice(["UTF-8", "ISO-8859-1"])
        name = encoded_word("J\u00f6rg " + marker(), cs)
        feats.add("ew-from")
    if chance(0.5):
        cs = rnd.choice(["UTF-8", "ISO-8859-1", "UTF-8"])
        words = [encoded_word("T\u00f6ken " + marker(), cs)]
        if chance(0.4):
            words.append(encoded_word(" and " + marker(), "UTF-8"))
        subj = " ".join(words)
        feats.add("ew-subject")
    if chance(0.03):
        subj = "=?utf-8?x?broken?= " + marker()
    hdr = [SEP if not chance(0.05) else "From someone Mon Jan  1 00:00:00 2024",
           "From: %s <a@example.com>" % name,
           "Date: Mon, 1 Jan 2024 00:00:00 +0000",
           "Subject: [PATCH %d/%d] %s" % (k, n, subj)]
    if chance(0.2):
        # A folded subject.
        hdr[-1] += "\n   more " + marker()
    hdr.append("MIME-Version: 1.0")

    msg = []
    if chance(0.15):
        msg += ["From: Inbody %s <i@example.com>" % marker(), "Subject: inbody %s" % marker(), ""]
        feats.add("inbody")
    msg.append("Message %s caf\u00e9." % marker())
    if chance(0.15):
        msg.append(">From the start %s" % marker())
        feats.add(">From")
    if chance(0.15):
        msg += ["", "-- >8 --", "Subject: after scissors %s" % marker(), "", "kept %s" % marker()]
        feats.add("scissors")
    if chance(0.05):
        msg.append("--- >8 ---")
        msg.append("after dashed scissors %s" % marker())
        feats.add("scissors")
        feats.add("dashscissors")
    if chance(0.06):
        # A From line in the body: git mailsplit starts a new mail here.
        msg.append("From nobody Mon Sep 17 00:00:00 2001")
        msg.append("Subject: split %s" % marker())
        msg.append("")
        msg.append("tail %s" % marker())
        feats.add("body-from")
    text = "\n".join(msg) + "\n---\n x | 1 +\n\n" + diff_text(k, feats)
    if chance(0.8):
        text += "-- \n2.39.5\n"
    if flowed:
        feats.add("flowed")
        text = "\n".join(l + (" " if chance(0.2) else "") for l in text.split("\n"))
    pycs = {"ISO-8859-1": "latin-1", "us-ascii": "latin-1", "x-unknown": "latin-1"}.get(charset, "utf-8")
    data = text.encode(pycs, "replace")

    ctype = "text/plain"
    if charset:
        ctype += "; charset=%s" % charset
    if flowed:
        ctype += "; format=flowed" + ("; delsp=yes" if chance(0.5) else "")
    if not multipart:
        hdr.append("Content-Type: " + ctype)
        if cte:
            hdr.append("Content-Transfer-Encoding: " + cte)
        body = encode_body(data, cte)
    else:
        feats.add("multipart")
        depth = rnd.choice([1, 1, 1, 2, 5])
        feats.add("depth=%d" % depth)
        cut = data.find(b"\ndiff --git")
        part1, part2 = data[:cut + 1], data[cut + 1:]
        cte2 = rnd.choice(["8bit", "base64", "quoted-printable"])

        def part(ct, enc, payload):
            h = "Content-Type: %s\n" % ct
            if enc:
                h += "Content-Transfer-Encoding: %s\n" % enc
            sep = "\n" if not chance(0.1) else ""
            return h.encode() + sep.encode() + encode_body(payload, enc)

        inner = None
        for level in range(depth):
            b = "----b%d_%d" % (level, rnd.randint(0, 999))
            if inner is None:
                parts = [part(ctype, cte, part1),
                         part("text/x-patch; name=x.patch", cte2, part2)]
            else:
                parts = [inner_hdr + b"\n" + inner]
            body = b"preamble " + marker().encode() + b"\n"
            for p in parts:
                body += b"--" + b.encode() + b"\n" + p
                if not body.endswith(b"\n"):
                    body += b"\n"
            body += b"--" + b.encode() + b"--\n"
            if chance(0.2):
                body += b"epilogue " + marker().encode() + b"\n"
            inner_hdr = ('Content-Type: multipart/mixed; boundary="%s"' % b).encode()
            inner = body
        hdr.append(inner_hdr.decode())
    mail = "\n".join(hdr).encode() + b"\n\n" + body
    if not mail.endswith(b"\n"):
        mail += b"\n"
    return mail


def make_series():
    feats = set()
    n = rnd.choice([1, 1, 2, 2, 3])
    mails = [make_mail(k + 1, n, feats) for k in range(n)]
    out = b""
    for i, m in enumerate(mails):
        if i > 0 and chance(0.6):
            feats.add("no-blank-before-From")
        elif i > 0:
            out += b"\n"
        out += m
    if chance(0.15):
        out = out.replace(b"\n", b"\r\n")
        feats.add("crlf")
    if chance(0.05):
        out = b"\n \n" + out
        feats.add("leading-space")
    return out, feats


# ---- git -----------------------------------------------------------------

def git(args, cwd, check=True):
    return subprocess.run(["git"] + args, cwd=cwd, env=ENV, check=check,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def am(repo, mbox, scissors):
    """Applies mbox on base in repo; the commits git am made, oldest first."""
    shutil.rmtree(os.path.join(repo, ".git", "rebase-apply"), ignore_errors=True)
    git(["reset", "-q", "--hard", "base"], repo)
    git(["clean", "-fdqx"], repo)
    git(["am", "-q"] + (["--scissors"] if scissors else []) + [mbox], repo, check=False)
    log = git(["log", "--reverse", "--format=%x00%x01%an%n%B%x00", "-p", "--no-renames", "--text",
               "base..HEAD"], repo).stdout
    commits = []
    for rec in log.split(b"\0\1")[1:]:
        info, _, d = rec.partition(b"\0")
        added, exec_paths, path, new_exec = [], [], None, False
        for line in d.split(b"\n"):
            if line.startswith(b"diff --git "):
                path, new_exec = None, False
            elif line.startswith(b"new file mode 100755"):
                new_exec = True
            elif line.startswith(b"+++ b/"):
                path = line[6:].decode("utf-8", "replace")
                if new_exec:
                    exec_paths.append(path)
            elif line.startswith(b"+") and path:
                added.append((path, line[1:].decode("latin-1")))
        commits.append({"msg": info.decode("utf-8", "replace"), "added": added, "exec": exec_paths})
    return commits


def mail_count(mbox, scratch):
    os.makedirs(scratch, exist_ok=True)
    r = git(["mailsplit", "-b", "-o" + scratch, mbox], scratch, check=False)
    shutil.rmtree(scratch)
    try:
        return int(r.stdout.decode().strip() or "0")
    except ValueError:
        return 0


def main():
    work = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    binp = os.path.abspath(os.environ.get("AIRLOCK_BIN", os.path.join(ROOT, "build", "airlock")))
    os.makedirs(work, exist_ok=True)
    template = os.path.join(work, "template")
    git(["init", "-q", "--template=", "-b", "main", template], work)
    git(["config", "core.autocrlf", "false"], template)
    with open(os.path.join(template, "README"), "w") as f:
        f.write("base\n")
    git(["add", "README"], template)
    git(["commit", "-q", "-m", "base"], template)
    git(["tag", "base"], template)

    series = []
    for i in range(total):
        data, feats = make_series()
        path = "s%04d.mbox" % i
        with open(os.path.join(work, path), "wb") as f:
            f.write(data)
        series.append((path, feats))

    # Two workers, each with its own copy of the repository.
    jobs = [[], []]
    for i, (path, feats) in enumerate(series):
        jobs[i % 2].append((path, feats))

    def worker(w):
        repo = os.path.join(work, "repo%d" % w)
        shutil.copytree(template, repo, symlinks=True)
        out = []
        for path, feats in jobs[w]:
            full = os.path.join(work, path)
            n = mail_count(full, os.path.join(work, "split%d" % w))
            for sc in ([False, True] if "scissors" in feats else [False]):
                out.append((path, feats, sc, n, am(repo, full, sc)))
        return out

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        runs = [r for part in ex.map(worker, [0, 1]) for r in part]

    r = subprocess.run([binp, "scan", "--rules", RULES, "--kind", "mbox", "--format", "json",
                        "--fail-on", "never", "--threads", "2", "--no-cache", "--color", "never"]
                       + [p for p, _ in series], cwd=work, stdout=subprocess.PIPE)
    if r.returncode != 0:
        print("mbox_diff: airlock scan exited %d" % r.returncode)
        return 1
    findings = json.loads(r.stdout)["findings"]
    found = set()
    unscannable = set()
    executable = set()
    for f in findings:
        if f["rule"] == "test-marker":
            for tok in f["excerpt"].split():
                found.add((f["path"], tok.strip("\"'")))
            found.add((f["path"], f["excerpt"]))
        elif f["rule"] == "airlock.unscannable":
            unscannable.add(f["path"])
        elif f["rule"] == "airlock.executable-mode":
            executable.add(f["path"])

    def seen(path, tok):
        return any(p == path and tok in e for (p, e) in found)

    stats = dict(series=len(series), runs=len(runs), applied_commits=0, unscannable_mails=0,
                 excused_markers=0, checked=0, matched=0, missed=0, am_nothing=0)
    feat_ok = {}
    misses = []
    for path, feats, sc, n, commits in runs:
        if not commits:
            stats["am_nothing"] += 1
        for k, c in enumerate(commits, 1):
            stats["applied_commits"] += 1
            prefix = path if n == 1 else "%s!/%04d" % (path, k)
            excused = prefix in unscannable or path in unscannable
            if excused:
                stats["unscannable_mails"] += 1
            want = []
            for fpath, line in c["added"]:
                for tok in MARK.findall(line):
                    want.append(("%s!/%s" % (prefix, fpath), tok))
            for tok in MARK.findall(c["msg"]):
                want.append((prefix, tok))
            for p in c["exec"]:
                want.append(("%s!/%s" % (prefix, p), None))
            ok = True
            for where, tok in want:
                hit = (where in executable) if tok is None else seen(where, tok)
                if hit:
                    stats["matched"] += 1
                elif excused:
                    stats["excused_markers"] += 1
                else:
                    stats["missed"] += 1
                    ok = False
                    misses.append((path, "scissors" if sc else "default", k, where, tok))
                stats["checked"] += 1
            if ok and not excused:
                for ft in feats:
                    feat_ok[ft] = feat_ok.get(ft, 0) + 1

    print("mbox_diff: seed %d: %d series (%d git am runs), %d commits applied, "
          "%d of them from mails airlock called unscannable; %d runs applied nothing"
          % (SEED, stats["series"], stats["runs"], stats["applied_commits"],
             stats["unscannable_mails"], stats["am_nothing"]))
    print("mbox_diff: %d items git am wrote: %d scanned by airlock, %d excused as unscannable, "
          "%d missed" % (stats["checked"], stats["matched"], stats["excused_markers"], stats["missed"]))
    print("mbox_diff: commits matched per feature: " +
          ", ".join("%s=%d" % kv for kv in sorted(feat_ok.items())))
    for m in misses[:20]:
        print("MISS %s (%s am) mail %d: %s %s" % m)
    # Not vacuous: the decoding paths must each have been exercised and matched.
    need = ["cte=quoted-printable", "cte=base64", "cte=8bit", "multipart", "ew-subject",
            "no-blank-before-From", "crlf", "inbody", "scissors", "cs=ISO-8859-1", "exec"]
    thin = [f for f in need if feat_ok.get(f, 0) < 3]
    if thin:
        print("mbox_diff: too few matched commits with: %s" % ", ".join(thin))
        return 1
    return 1 if stats["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
