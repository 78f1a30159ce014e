-- 0002_review.sql - review and release: approvals bound to bytes and to the
-- scan they saw, rejections, admin overrides for unscannable content, and
-- the signed release statements.

CREATE TABLE approvals (
	id INTEGER PRIMARY KEY,
	submission_id INTEGER NOT NULL REFERENCES submissions (id),
	reviewer INTEGER NOT NULL REFERENCES principals (id),
	at INTEGER NOT NULL,
	comment TEXT,
	sha256 TEXT NOT NULL                      -- the bytes approved
	    CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
	ruleset_digest TEXT NOT NULL,             -- the rules that scanned them
	scan_id INTEGER NOT NULL REFERENCES scans (id),
	UNIQUE (submission_id, reviewer, scan_id)
) STRICT;
CREATE INDEX approvals_submission ON approvals (submission_id);

CREATE TABLE rejections (
	submission_id INTEGER PRIMARY KEY REFERENCES submissions (id),
	reviewer INTEGER NOT NULL REFERENCES principals (id),
	at INTEGER NOT NULL,
	comment TEXT NOT NULL
) STRICT;

CREATE TABLE overrides (
	id INTEGER PRIMARY KEY,
	submission_id INTEGER NOT NULL REFERENCES submissions (id),
	scan_id INTEGER NOT NULL REFERENCES scans (id),
	admin INTEGER NOT NULL REFERENCES principals (id),
	at INTEGER NOT NULL,
	reason TEXT NOT NULL,
	UNIQUE (submission_id, scan_id)
) STRICT;

CREATE TABLE releases (
	submission_id INTEGER PRIMARY KEY REFERENCES submissions (id),
	actor INTEGER NOT NULL REFERENCES principals (id),
	at INTEGER NOT NULL,
	attestation TEXT NOT NULL                 -- the DSSE envelope (JSON)
) STRICT;

-- Decisions are never rewritten either.
CREATE TRIGGER approvals_append_only_u BEFORE UPDATE ON approvals
BEGIN SELECT RAISE(ABORT, 'approvals are append-only'); END;
CREATE TRIGGER approvals_append_only_d BEFORE DELETE ON approvals
BEGIN SELECT RAISE(ABORT, 'approvals are append-only'); END;
CREATE TRIGGER releases_append_only_u BEFORE UPDATE ON releases
BEGIN SELECT RAISE(ABORT, 'releases are append-only'); END;
CREATE TRIGGER releases_append_only_d BEFORE DELETE ON releases
BEGIN SELECT RAISE(ABORT, 'releases are append-only'); END;
