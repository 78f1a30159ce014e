#!/usr/bin/env python3
"""route_matrix.py - every route x every caller x both listeners, generated
from the gate's own route table (`airlock serve --routes`), against a real
gate on loopback and its intake socket.

What it proves:
  1. the table the binary prints agrees with the roles table of
     docs/api.md, and with the design's invariants (DESIGN.md 3 and 7): an
     agent may only submit, list and show; only an agent submits; the
     intake socket serves exactly submit, list and show; only /healthz
     and the review UI's files (ui.*, on the review listener) need no
     token;
  2. for every route and listener, every caller - a token of each role
     (agent, reviewer, ci, auditor, admin), no token, a malformed one, an
     unknown one, an expired and a revoked one (both of role admin, who
     could call anything) - is answered as the table says:
       - a route the listener does not serve: 404 "no such endpoint", for
         everyone (before any token is looked at);
       - a route without a token (/healthz, the UI's files from
         review-ui/): its answer to everyone (200; 302 for /; 404 for
         /ui/img/NAME when review-ui/ has no img/);
       - no, a malformed or an unknown token: 401 with the generic message;
         an expired one "token expired at ...", a revoked one "token revoked
         at ...";
       - a valid token whose role the route does not take: exactly 403 with
         the role refusal (for release, the policy's refusal);
       - a role the route takes: not 401/403, not "no such endpoint", not 5xx,
         and the answer a real request gets: each allowed cell is sent a
         request that can succeed (its own held submission viewed first for
         an approval, its own approved one for a release, a fresh name for a
         token...), and the status it must get;
     every 4xx body is exactly {"error": STRING};
  3. the refused requests did nothing: they aim at canaries (a held, an
     approved and an unscannable submission, a token, a person, names that
     must not come to exist) with bodies that would work, and the canaries
     are checked afterwards, in the database and through the API.

The cells are the rows of `--routes` times the callers; a route the table
gains without a request here fails the suite ("no probe for route ...").
The admin's rules reload restarts the gate, so it is sent last.

One more cell per decision route (approve, reject, override, release), for
its first role: the token is revoked after the gate took the request's
headers (it answered "100 Continue") and before its body; the answer must be
401 "token revoked at ..." and nothing may be recorded (issue 13, defect 6:
validity re-checked when a decision is committed; on the code before that
fix, 8fbe633, the four decisions were recorded and these cells failed).

usage: route_matrix.py [--bin build/airlock] [--rules tests/data/rules]
       [--keep DIR]
Exit status 0 when every cell is as the table says; 1 otherwise, with every
mismatch listed.
"""
import argparse
import base64
import datetime
import io
import json
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time

sys.dont_write_bytecode = True      # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gate_client as G  # noqa: E402

ROLES = ["agent", "reviewer", "ci", "auditor", "admin"]
BAD = ["none", "malformed", "unknown", "expired", "revoked"]
CALLERS = ROLES + BAD
ROLE_REFUSED = "this token's role may not do that"
GENERIC_401 = "a valid token is required (Authorization: Bearer)"


def docs_roles(path):
    """The roles table of docs/api.md: {(METHOD, pattern): set of roles, or
    None for a route without a token}."""
    out = {}
    cols = None
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] == "endpoint":
            cols = cells[1:]
            continue
        if cols is None or len(cells) != 6 or not cells[0].startswith("`"):
            if cols is not None and out and not line.strip():
                break
            continue
        method, p = cells[0].strip("`").split(" ", 1)
        p = p.replace("/ID", "/{id}").replace("/N/", "/{n}/").replace("/NAME", "/{name}")
        if cells[1] == "(no token)":
            out[(method, p)] = None
        else:
            out[(method, p)] = {r for r, v in zip(cols, cells[1:]) if v not in ("–", "-", "")}
    return out


UI_DIR = os.path.join(G.ROOT, "review-ui")


def ui_bytes(name):
    with open(os.path.join(UI_DIR, name), "rb") as f:
        return f.read()


def ui_img():
    """A file of review-ui/img/ the gate serves, or None."""
    d = os.path.join(UI_DIR, "img")
    names = sorted(os.listdir(d)) if os.path.isdir(d) else []
    for n in names:
        if n.endswith(".svg") and os.path.isfile(os.path.join(d, n)) \
                and not os.path.islink(os.path.join(d, n)):
            return n
    return None


def iso_ms(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


class Matrix:
    def __init__(self, gate, routes):
        self.g = gate
        self.routes = routes
        self.bad = []
        self.cells = 0
        self.outcomes = {}
        self.acked = []            # submissions answered 201

    def fail(self, msg):
        self.bad.append(msg)

    # ---- the fixtures ---------------------------------------------------

    def submit(self, body, query="", listener="review", token=None):
        a = self.g.must(201, "POST", "/v1/submissions" + query, token or self.agent,
                        body=body, listener=listener)
        d = a.json()
        if d["sha256"] != G.sha256_hex(body):
            raise AssertionError("submit: sha256 %s is not that of the bytes" % d["sha256"])
        self.acked.append(d["id"])
        return d["id"]

    def held(self, body, query=""):
        sid = self.submit(body, query)
        self.g.wait_state(sid, ("held",))
        return sid

    def view(self, sid, token):
        self.g.must(200, "GET", "/v1/submissions/%d/content" % sid, token)

    def approve_body(self, sid):
        d = self.g.show(sid)
        return {"sha256": d["sha256"], "ruleset": d["scan"]["ruleset"], "comment": "ok"}

    def approved(self, body):
        sid = self.held(body)
        self.view(sid, self.setup_rev)
        self.g.must(200, "POST", "/v1/submissions/%d/approve" % sid, self.setup_rev,
                    body=self.approve_body(sid))
        self.g.wait_state(sid, ("approved",))
        return sid

    def unscannable(self, body):
        # A "patch" with no diff in it: the scan cannot read it as one.
        sid = self.held(body, "?kind=patch&name=notapatch.patch")
        v = self.g.show(sid)["verdict"]
        if v != "unscannable":
            raise AssertionError("a patch without a diff is %s, expected unscannable" % v)
        return sid

    def allowed_count(self, name):
        return sum(len(r["roles"]) for r in self.routes
                   if r["name"] == name and r["served"] and r["token"])

    def setup(self):
        g = self.g
        n = 0

        def uniq(tag):
            nonlocal n
            n += 1
            return ("matrix %s %d %s\n" % (tag, n, secrets.token_hex(8))).encode()

        # The expired token first: its second passes while the rest is made.
        self.expired = g.token("admin", "mx-expired", ttl="1s", person="admin")
        exp_at = None
        for t in g.must(200, "GET", "/v1/tokens", g.admin).json()["tokens"]:
            if t["name"] == "mx-expired":
                exp_at = iso_ms(t["expires_at"])
        self.agent = g.token("agent", "mx-agent", on_behalf_of="mx-alice")
        self.toks = {
            "agent": self.agent,
            "reviewer": g.token("reviewer", "mx-rev"),
            "ci": g.token("ci", "mx-ci"),
            "auditor": g.token("auditor", "mx-aud"),
            "admin": g.admin,
        }
        self.setup_rev = g.token("reviewer", "mx-setup-rev")
        self.revoked = g.token("admin", "mx-revoked", person="admin")
        g.must(200, "DELETE", "/v1/tokens/mx-revoked", g.admin)
        g.token("reviewer", "mx-canary")
        g.person("mx-canary-person")
        self.unknown = "alk_" + base64.urlsafe_b64encode(os.urandom(33)).decode()

        # The released submission every read is aimed at: a tar with one
        # text member, so that item 0 has kept content.
        bio = io.BytesIO()
        self.member = uniq("member") * 20
        with tarfile.open(fileobj=bio, mode="w", format=tarfile.USTAR_FORMAT) as tf:
            ti = tarfile.TarInfo("notes.txt")
            ti.size = len(self.member)
            ti.mtime = 1700000000
            tf.addfile(ti, io.BytesIO(self.member))
        self.rel_bytes = bio.getvalue()
        sid = self.submit(self.rel_bytes, "?name=rel.tar")
        g.wait_state(sid, ("held",))
        self.view(sid, self.setup_rev)
        g.must(200, "POST", "/v1/submissions/%d/approve" % sid, self.setup_rev,
               body=self.approve_body(sid))
        g.wait_state(sid, ("approved",))
        g.must(200, "POST", "/v1/submissions/%d/release" % sid, g.admin)
        items = g.show(sid)["items"]
        if not items or items[0]["content"] != "kept":
            raise AssertionError("the tar's member has no kept content: %s" % items)
        self.rel = sid

        # Canaries, for the refused decisions.
        self.c_held = self.held(uniq("canary held"))
        self.c_appr = self.approved(uniq("canary approved"))
        self.c_unsc = self.unscannable(uniq("canary unscannable"))

        # One fresh target per allowed cell of each decision.
        self.pool = {
            "approve": [self.held(uniq("approve")) for _ in range(self.allowed_count("approve"))],
            "reject": [self.held(uniq("reject")) for _ in range(self.allowed_count("reject"))],
            "override": [self.unscannable(uniq("override")) for _ in range(self.allowed_count("override"))],
            "release": [self.approved(uniq("release")) for _ in range(self.allowed_count("release"))],
            "token.revoke": [],
            "person.disable": [],
        }
        for i in range(self.allowed_count("token.revoke")):
            g.token("reviewer", "mx-victim-%d" % i)
            self.pool["token.revoke"].append("mx-victim-%d" % i)
        for i in range(self.allowed_count("person.disable")):
            g.person("mx-victim-person-%d" % i)
            self.pool["person.disable"].append("mx-victim-person-%d" % i)
        self.uniq = uniq
        self.late_setup()
        while exp_at is not None and time.time() < exp_at + 0.05:
            time.sleep(0.05)

    # ---- one cell -------------------------------------------------------

    def probe(self, row, caller, allowed):
        """The request of one cell: (path values, body, status wanted when
        allowed, check of an allowed answer or None, before: a request to
        make first or None)."""
        name, lis = row["name"], row["listener"]
        tag = "%s-%s" % (caller, lis)
        tok = self.toks.get(caller)

        def take(kind, canary):
            return self.pool[kind].pop() if allowed else canary

        if name == "healthz":
            return {}, None, 200, lambda a: a.json()["status"] == "ok", None
        if name == "ui.root":
            return {}, None, 302, lambda a: a.headers.get("location") == "/ui/", None
        if name == "ui.index":
            return ({}, None, 200,
                    lambda a: a.body == ui_bytes("index.html") and
                    a.headers.get("content-type") == "text/html; charset=utf-8", None)
        if name == "ui.file":
            return ({"name": "index.html"}, None, 200,
                    lambda a: a.body == ui_bytes("index.html"), None)
        if name == "ui.img":
            img = ui_img()
            if img is None:
                return ({"name": "none.svg"}, None, 404,
                        lambda a: a.error() == "no such file in the review UI", None)
            return {"name": img}, None, 200, lambda a: a.body == ui_bytes("img/" + img), None
        if name == "metrics":
            return {}, None, 200, lambda a: b"airlock_submissions{" in a.body, None
        if name == "submit":
            return {}, self.uniq("submit " + tag), 201, None, None
        if name == "list":
            return {}, None, 200, lambda a: isinstance(a.json()["submissions"], list), None
        if name == "show":
            # On the intake socket everyone sees only their own: the agent's
            # submission is the agent's alone there.
            if lis == "intake" and caller != "agent":
                return {"id": self.rel}, None, 404, lambda a: a.error() == "no such submission", None
            return {"id": self.rel}, None, 200, lambda a: a.json()["id"] == self.rel, None
        if name == "whoami":
            # Each caller is told its own token and nothing else.
            names = {"agent": "mx-agent", "reviewer": "mx-rev", "ci": "mx-ci",
                     "auditor": "mx-aud", "admin": "admin"}
            persons = {"agent": "mx-alice", "reviewer": "mx-rev", "ci": "mx-ci",
                       "auditor": "mx-aud", "admin": "admin"}
            return ({}, None, 200,
                    lambda a: a.json()["name"] == names.get(caller) and
                    a.json()["role"] == caller and a.json()["person"] == persons.get(caller),
                    None)
        if name == "content":
            return {"id": self.rel}, None, 200, lambda a: a.body == self.rel_bytes, None
        if name == "item.content":
            return {"id": self.rel, "n": 0}, None, 200, lambda a: a.body == self.member, None
        if name == "events":
            return ({"id": self.rel}, None, 200,
                    lambda a: a.json()["events"][0]["action"] == "submit", None)
        if name == "events.all":
            return {}, None, 200, lambda a: isinstance(a.json()["events"], list), None
        if name == "changes":
            # Without after it is answered at once, with the cursor.
            return ({}, None, 200,
                    lambda a: isinstance(a.json()["cursor"], int) and a.json()["changed"] is True,
                    None)
        if name == "audit.checkpoint":
            # The signed note: origin, size, root, a blank line, a signature.
            return ({}, None, 200,
                    lambda a: a.body.startswith(b"airlock/") and b"\n\n\xe2\x80\x94 airlock/" in a.body,
                    None)
        if name == "audit.checkpoints":
            return ({}, None, 200,
                    lambda a: a.json()["checkpoints"][0]["note"].startswith("airlock/"), None)
        if name == "audit.entries":
            # The first page: entry 0 is the log's beginning.
            return ({}, None, 200,
                    lambda a: a.json()["entries"][0]["index"] == 0 and
                    base64.b64decode(a.json()["entries"][0]["entry"]).startswith(
                        b"airlock audit entry v1\nindex 0\n"), None)
        if name == "audit.keys":
            return ({}, None, 200,
                    lambda a: a.json()["keys"][0].startswith(a.json()["origin"] + "+"), None)
        if name == "provenance":
            # Its query: the released canary's chain, by id.
            return ({"?": "id=%d" % self.rel}, None, 200,
                    lambda a: a.json()["query"] == {"id": self.rel} and
                    a.json()["submissions"][0]["id"] == self.rel and
                    isinstance(a.json()["submissions"][0]["timeline"], list), None)
        if name == "attestation":
            return ({"id": self.rel}, None, 200,
                    lambda a: a.json()["payloadType"] == "application/vnd.in-toto+json", None)
        if name == "approve":
            sid = take("approve", self.c_held)
            before = (lambda: self.view(sid, tok)) if allowed else None
            return ({"id": sid}, self.approve_body(sid), 200,
                    lambda a: a.json()["state"] == "approved", before)
        if name == "reject":
            sid = take("reject", self.c_held)
            return ({"id": sid}, {"comment": "no " + tag}, 200,
                    lambda a: a.json()["state"] == "rejected", None)
        if name == "override":
            sid = take("override", self.c_unsc)
            return ({"id": sid}, {"reason": "checked by hand " + tag}, 200,
                    lambda a: a.json()["override"] is True, None)
        if name == "release":
            sid = take("release", self.c_appr)
            return ({"id": sid}, None, 200,
                    lambda a: a.json()["payloadType"] == "application/vnd.in-toto+json", None)
        if name == "rules.reload":
            return {}, None, 202, lambda a: a.json() == {"reloading": True}, None
        if name == "token.create":
            nm = ("mx-made-" if allowed else "mx-refused-") + tag
            return ({}, {"role": "admin", "name": nm, "person": "admin"}, 201,
                    lambda a: a.json()["name"] == nm and a.json()["token"].startswith("alk_"), None)
        if name == "token.list":
            return ({}, None, 200,
                    lambda a: b"alk_" not in a.body and "mx-canary" in [t["name"] for t in a.json()["tokens"]],
                    None)
        if name == "token.revoke":
            nm = take("token.revoke", "mx-canary")
            return {"name": nm}, None, 200, lambda a: a.json() == {"name": nm, "revoked": True}, None
        if name == "person.create":
            nm = ("mx-made-p-" if allowed else "mx-refused-p-") + tag
            return {}, {"name": nm}, 201, lambda a: a.json()["name"] == nm, None
        if name == "person.list":
            return ({}, None, 200,
                    lambda a: "mx-canary-person" in [p["name"] for p in a.json()["persons"]], None)
        if name == "person.disable":
            nm = take("person.disable", "mx-canary-person")
            return {"name": nm}, None, 200, lambda a: a.json()["name"] == nm, None
        raise KeyError(name)

    def auth_of(self, caller):
        if caller in self.toks:
            return {"token": self.toks[caller]}
        return {"none": {}, "malformed": {"auth": "Bearer garbage"},
                "unknown": {"token": self.unknown}, "expired": {"token": self.expired},
                "revoked": {"token": self.revoked}}[caller]

    def cell(self, row, caller):
        name, lis = row["name"], row["listener"]
        allowed = row["served"] and (not row["token"] or caller in row["roles"])
        try:
            vals, body, want, check, before = self.probe(row, caller, allowed and caller not in BAD)
        except KeyError:
            self.fail("no probe for route %s (%s %s): tests/route_matrix.py must learn it" %
                      (name, row["method"], row["path"]))
            return
        path = row["path"]
        for k, v in vals.items():
            path = path.replace("{%s}" % k, str(v))
        if "?" in vals:            # a route that needs a query
            path += "?" + vals["?"]
        if before is not None:
            before()
        what = "%s %s as %s on %s" % (row["method"], path, caller, lis)
        try:
            a = self.g.request(row["method"], path, body=body, listener=lis,
                               **self.auth_of(caller))
        except OSError as e:
            self.fail("%s: no answer (%s)" % (what, e))
            return
        self.cells += 1
        err = a.error()
        if a.status >= 400 and err is None:
            self.fail("%s: the %d body is not {\"error\": STRING}: %r" % (what, a.status, a.body[:200]))
        if not row["served"]:
            outcome = "404 not served"
            ok = a.status == 404 and err == "no such endpoint"
            expect = "404 no such endpoint"
        elif not row["token"]:
            outcome = "public"
            ok = a.status == want and check(a)
            expect = "%d (no token needed)" % want
        elif caller in BAD:
            outcome = "401"
            msg = {"expired": "token expired at ", "revoked": "token revoked at "}.get(caller)
            ok = a.status == 401 and (err.startswith(msg) if msg else err == GENERIC_401)
            expect = "401 " + (msg + "..." if msg else GENERIC_401)
        elif caller not in row["roles"]:
            outcome = "403"
            # (Run with the default policy, whose release roles are the
            # table's: the policy's own refusal is another message.)
            refusal = ROLE_REFUSED
            ok = a.status == 403 and err == refusal
            expect = "403 " + refusal
        else:
            outcome = "allowed"
            authz_ok = a.status not in (401, 403) and a.status < 500 and not (
                a.status == 404 and err == "no such endpoint")
            try:
                good = a.status == want and (check is None or check(a))
            except (ValueError, KeyError, TypeError, IndexError):
                good = False
            ok = authz_ok and good
            expect = "%d (allowed)" % want
            if ok and name == "submit":
                self.acked.append(a.json()["id"])
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
        if not ok:
            self.fail("%s: HTTP %d %s, expected %s" % (what, a.status,
                      repr(err) if err is not None else repr(a.body[:120]), expect))

    # ---- a token revoked while its request is in flight ---------------------

    def late_rows(self):
        return [r for r in self.routes if r["listener"] == "review" and r["served"]
                and r["token"] and r["name"] in ("approve", "reject", "override", "release")
                and r["roles"]]

    def late_setup(self):
        """A token per decision route (of its first role) and a target it
        could decide on."""
        g = self.g
        self.late = []
        for row in self.late_rows():
            role, nm = row["roles"][0], "mx-late-" + row["name"]
            tok = g.token(role, nm, person="admin" if role == "admin" else None)
            name = row["name"]
            if name in ("approve", "reject"):
                sid = self.held(self.uniq("late " + name))
                if name == "approve":
                    self.view(sid, tok)
                body = self.approve_body(sid) if name == "approve" else {"comment": "late"}
            elif name == "override":
                sid = self.unscannable(self.uniq("late override"))
                body = {"reason": "late"}
            else:
                sid = self.approved(self.uniq("late release"))
                body = {}
            self.late.append((row, nm, tok, sid, json.dumps(body).encode()))

    def late_cells(self):
        g = self.g
        for row, nm, tok, sid, body in self.late:
            path = row["path"].replace("{id}", str(sid))
            what = "%s %s, its token revoked before the body" % (row["method"], path)
            s = g.connect("review", 30)
            try:
                s.sendall(("%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
                           "Content-Type: application/json\r\nContent-Length: %d\r\n"
                           "Expect: 100-continue\r\nConnection: close\r\n\r\n" % (
                               row["method"], path, g.host("review"), tok, len(body))).encode())
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    head += chunk
                if not head.startswith(b"HTTP/1.1 100"):
                    self.fail("%s: the headers were answered %r, expected 100 Continue" % (
                        what, head[:80]))
                    continue
                g.must(200, "DELETE", "/v1/tokens/" + nm, g.admin)
                s.sendall(body)
                a = G.read_answer(s, row["method"])
            finally:
                s.close()
            self.cells += 1
            err = a.error()
            self.outcomes["401 revoked in flight"] = self.outcomes.get("401 revoked in flight", 0) + 1
            if a.status != 401 or not (err or "").startswith("token revoked at "):
                self.fail("%s: HTTP %d %r, expected 401 token revoked at ..." % (
                    what, a.status, err if err is not None else a.body[:120]))
            db = sqlite3.connect("file:%s/airlock.db?mode=ro" % g.data, uri=True, timeout=10)
            table, col = {"approve": ("approvals", "reviewer"), "reject": ("rejections", "reviewer"),
                          "override": ("overrides", "admin"),
                          "release": ("releases", "actor")}[row["name"]]
            n = db.execute("SELECT count(*) FROM %s t JOIN principals p ON p.id = t.%s "
                           "WHERE t.submission_id = ? AND p.name = ?" % (table, col),
                           (sid, nm)).fetchone()[0]
            db.close()
            if n:
                self.fail("%s: the %s was recorded" % (what, row["name"]))

    def run(self):
        self.late_cells()
        last = []
        for row in self.routes:
            for caller in CALLERS:
                allowed = row["served"] and row["token"] and caller in row["roles"]
                if row["name"] == "rules.reload" and allowed:
                    last.append((row, caller))
                    continue
                self.cell(row, caller)
        for row, caller in last:
            self.cell(row, caller)
            self.g.wait_healthz_after_reload()

    # ---- what the refused did not do --------------------------------------

    def aftermath(self):
        g = self.g
        db = sqlite3.connect("file:%s/airlock.db?mode=ro" % g.data, uri=True, timeout=10)
        q = lambda sql, *a: db.execute(sql, a).fetchall()  # noqa: E731
        names = [t["name"] for t in g.must(200, "GET", "/v1/tokens", g.admin).json()["tokens"]]
        made = sorted(n for n in names if n.startswith("mx-refused-"))
        if made:
            self.fail("refused token creations made tokens: %s" % made)
        persons = g.must(200, "GET", "/v1/persons", g.admin).json()["persons"]
        made = sorted(p["name"] for p in persons if p["name"].startswith("mx-refused-"))
        if made:
            self.fail("refused person creations made persons: %s" % made)
        if q("SELECT revoked_at FROM principals WHERE name = 'mx-canary'") != [(None,)]:
            self.fail("a refused revocation revoked the canary token")
        if q("SELECT disabled_at FROM persons WHERE name = 'mx-canary-person'") != [(None,)]:
            self.fail("a refused disable disabled the canary person")
        for sid, state in ((self.c_held, "held"), (self.c_appr, "approved"), (self.c_unsc, "held")):
            got = q("SELECT state FROM submissions WHERE id = ?", sid)
            if got != [(state,)]:
                self.fail("canary submission %d is %s, expected %s" % (sid, got, state))
        if q("SELECT count(*) FROM approvals WHERE submission_id = ?", self.c_held) != [(0,)]:
            self.fail("a refused approval was recorded")
        if q("SELECT count(*) FROM rejections WHERE submission_id IN (?, ?, ?)",
             self.c_held, self.c_appr, self.c_unsc) != [(0,)]:
            self.fail("a refused rejection was recorded")
        if q("SELECT count(*) FROM overrides WHERE submission_id = ?", self.c_unsc) != [(0,)]:
            self.fail("a refused override was recorded")
        if q("SELECT count(*) FROM releases WHERE submission_id = ?", self.c_appr) != [(0,)]:
            self.fail("a refused release was recorded")
        nsub = q("SELECT count(*) FROM submissions")[0][0]
        if nsub != len(set(self.acked)):
            self.fail("%d submissions, but %d were answered 201" % (nsub, len(set(self.acked))))
        # Who was served content: only roles the content routes take.
        viewers = {r for (r,) in q("SELECT DISTINCT p.role FROM views v JOIN principals p "
                                   "ON p.id = v.actor")}
        may = set()
        for row in self.routes:
            if row["name"] in ("content", "item.content"):
                may |= set(row["roles"])
        if not viewers <= may:
            self.fail("content was served to roles %s" % sorted(viewers - may))
        db.close()


def check_table(routes, docs):
    """The printed table against docs/api.md and the design's invariants."""
    bad = []
    review = {(r["method"], r["path"]): r for r in routes if r["listener"] == "review"}
    intake = {(r["method"], r["path"]) for r in routes if r["listener"] == "intake" and r["served"]}
    for k, r in review.items():
        if k not in docs:
            bad.append("%s %s is served but not in the roles table of docs/api.md" % k)
            continue
        want = docs[k]
        if want is None:
            if r["token"]:
                bad.append("%s %s: docs/api.md says no token, the gate wants one" % k)
        elif set(r["roles"]) != want:
            bad.append("%s %s: the gate lets %s, docs/api.md says %s" % (
                k[0], k[1], sorted(r["roles"]), sorted(want)))
    for k in docs:
        if k not in review:
            bad.append("docs/api.md lists %s %s, which the gate does not route" % k)
    # DESIGN.md 7 and docs/api.md: the socket mounted into sandboxes.
    if intake != {("POST", "/v1/submissions"), ("GET", "/v1/submissions"),
                  ("GET", "/v1/submissions/{id}")}:
        bad.append("the intake socket serves %s, expected exactly submit, list, show" % sorted(intake))
    for r in routes:
        if not r["served"]:
            continue
        # DESIGN.md 3: agents never approve, release or administer.
        if "agent" in r["roles"] and r["name"] not in ("submit", "list", "show"):
            bad.append("an agent may call %s %s on %s" % (r["method"], r["path"], r["listener"]))
        if r["name"] == "submit" and r["roles"] != ["agent"]:
            bad.append("submitting on %s is open to %s, expected agents only" % (r["listener"], r["roles"]))
        if not r["token"] and r["name"] != "healthz" and not r["name"].startswith("ui."):
            bad.append("%s %s is answered without a token" % (r["method"], r["path"]))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.environ.get("AIRLOCK_BIN", "build/airlock"))
    ap.add_argument("--rules", default=os.path.join(G.ROOT, "tests/data/rules"))
    ap.add_argument("--keep", help="work here and keep it (default: a temporary directory)")
    args = ap.parse_args()
    t0 = time.monotonic()
    work = args.keep or tempfile.mkdtemp(prefix="airlock-matrix.")
    g = G.Gate(work, args.bin, args.rules, env={"AIRLOCK_UI_DIR": UI_DIR})
    rc = 1
    try:
        g.init()
        r = subprocess.run([g.bin, "serve", "--routes", "--data", g.data], env=g.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        if r.returncode != 0:
            print("matrix: airlock serve --routes failed: %s" % r.stderr.decode(errors="replace"))
            return 1
        routes = json.loads(r.stdout)["routes"]
        bad = check_table(routes, docs_roles(os.path.join(G.ROOT, "docs/api.md")))
        g.start()

        def wait_healthz_after_reload():
            # The reload re-executes the gate in place: same pid, same port.
            end = time.monotonic() + 30
            time.sleep(0.1)
            while time.monotonic() < end:
                try:
                    if g.get("/healthz", timeout=2).status == 200:
                        return
                except OSError:
                    pass
                time.sleep(0.05)
            raise AssertionError("the gate did not come back after the reload")
        g.wait_healthz_after_reload = wait_healthz_after_reload
        m = Matrix(g, routes)
        m.setup()
        m.run()
        m.aftermath()
        bad += m.bad
        st = g.term()
        if st != 0:
            bad.append("the gate exited %s after SIGTERM, expected 0" % st)
        nroutes = len({r["name"] for r in routes})
        late = m.outcomes.get("401 revoked in flight", 0)
        print("matrix: %d routes x %d callers x 2 listeners = %d cells%s in %.1f s (%s)" % (
            nroutes, len(CALLERS), m.cells - late, " + %d revoked in flight" % late if late else "",
            time.monotonic() - t0,
            ", ".join("%s %d" % kv for kv in sorted(m.outcomes.items()))))
        for b in bad:
            print("  mismatch: " + b)
        if bad:
            print("matrix: %d mismatches; the gate's log ends:\n%s" % (len(bad), g.log_tail(15)))
        rc = 1 if bad else 0
    finally:
        g.kill9()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
