-- 0001_init.sql - the first schema of the provenance store.
--
-- Witnessed facts (the bytes, who sent them, over what, when) live in
-- submissions; what the agent merely asserts lives in labels, so a report
-- can never mistake one for the other. Times are milliseconds since the
-- Unix epoch. Tables are STRICT (SQLite 3.37+) so a type error is refused,
-- not stored. The version is PRAGMA user_version, set by db.c in the same
-- transaction as the migration.

CREATE TABLE principals (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	role TEXT NOT NULL
	    CHECK (role IN ('agent', 'reviewer', 'ci', 'auditor', 'admin')),
	token_hash TEXT NOT NULL UNIQUE           -- SHA-256 of the token, hex
	    CHECK (length(token_hash) = 64 AND token_hash NOT GLOB '*[^0-9a-f]*'),
	on_behalf_of TEXT,
	created_at INTEGER NOT NULL,
	expires_at INTEGER,                       -- NULL: never
	revoked_at INTEGER                        -- NULL: not revoked
) STRICT;

CREATE TABLE blobs (
	sha256 TEXT PRIMARY KEY
	    CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
	size INTEGER NOT NULL CHECK (size >= 0),
	stored_at INTEGER NOT NULL
) STRICT;

CREATE TABLE submissions (
	id INTEGER PRIMARY KEY,
	sha256 TEXT NOT NULL REFERENCES blobs (sha256),
	size INTEGER NOT NULL,
	kind TEXT NOT NULL,
	name TEXT NOT NULL,
	submitter INTEGER NOT NULL REFERENCES principals (id),
	launched_by TEXT,
	peer_uid INTEGER,                         -- NULL unless over the socket
	peer_pid INTEGER,
	via TEXT NOT NULL CHECK (via IN ('socket', 'tcp')),
	received_at INTEGER NOT NULL,
	state TEXT NOT NULL DEFAULT 'received'
	    CHECK (state IN ('received', 'scanning', 'held', 'approved',
	    'rejected', 'released', 'expired')),
	verdict TEXT CHECK (verdict IN ('clean', 'flagged', 'unscannable')),
	worst TEXT
	    CHECK (worst IN ('info', 'low', 'medium', 'high', 'critical'))
) STRICT;
CREATE INDEX submissions_state ON submissions (state, id);
CREATE INDEX submissions_submitter ON submissions (submitter, id);

-- The size is witnessed twice (blob and submission); they cannot disagree.
CREATE TRIGGER submissions_size BEFORE INSERT ON submissions
WHEN NEW.size IS NOT (SELECT size FROM blobs WHERE sha256 = NEW.sha256)
BEGIN
	SELECT RAISE(ABORT, 'submission size differs from its blob');
END;

CREATE TABLE labels (
	submission_id INTEGER NOT NULL REFERENCES submissions (id),
	key TEXT NOT NULL,
	value TEXT NOT NULL,
	UNIQUE (submission_id, key)
) STRICT;

CREATE TABLE scans (
	id INTEGER PRIMARY KEY,
	submission_id INTEGER NOT NULL REFERENCES submissions (id),
	ruleset_digest TEXT NOT NULL,
	engine_version TEXT NOT NULL,
	started_at INTEGER NOT NULL,
	finished_at INTEGER,                      -- NULL while it runs
	outcome TEXT CHECK (outcome IN ('clean', 'flagged', 'unscannable',
	    'interrupted')),
	error TEXT
) STRICT;
CREATE INDEX scans_submission ON scans (submission_id, id);

CREATE TABLE findings (
	id INTEGER PRIMARY KEY,                   -- the order they were recorded
	scan_id INTEGER NOT NULL REFERENCES scans (id),
	rule TEXT NOT NULL,
	severity TEXT NOT NULL
	    CHECK (severity IN ('info', 'low', 'medium', 'high', 'critical')),
	path TEXT NOT NULL,
	line INTEGER NOT NULL,
	col INTEGER NOT NULL,
	excerpt TEXT,
	fingerprint TEXT
) STRICT;
CREATE INDEX findings_scan ON findings (scan_id, id);

-- The files a scan saw; filled by a later change.
CREATE TABLE items (
	id INTEGER PRIMARY KEY,
	scan_id INTEGER NOT NULL REFERENCES scans (id),
	path TEXT NOT NULL,
	mode INTEGER,
	size INTEGER,
	sha256 TEXT,
	type TEXT
) STRICT;
CREATE INDEX items_scan ON items (scan_id);

-- The audit trail. AUTOINCREMENT so an id is never reused; the triggers
-- keep the gate's own code from rewriting history (someone who can write
-- the file can drop them: the file is mode 0600 for that reason).
CREATE TABLE events (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	at INTEGER NOT NULL,
	actor INTEGER REFERENCES principals (id), -- NULL: the system
	action TEXT NOT NULL,
	submission_id INTEGER REFERENCES submissions (id),
	detail TEXT
) STRICT;
CREATE INDEX events_submission ON events (submission_id, id);

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
	SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
	SELECT RAISE(ABORT, 'events are append-only');
END;
