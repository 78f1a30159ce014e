-- 0006_audit.sql - the audit log as an RFC 6962 Merkle tree (docs/audit.md).
--
-- audit_leaves: one per event, in the order appended (idx from 0): the
-- event's canonical entry (docs/audit.md, "Entries") and its leaf hash,
-- SHA-256(0x00 || entry). audit_nodes: the hash of every complete subtree
-- above the leaves: node (level, idx) covers leaves [idx * 2^level,
-- (idx + 1) * 2^level), SHA-256(0x01 || left || right); with them an append
-- writes at most log2(n) rows, and a root or a proof reads at most that
-- many. audit_checkpoints: the signed notes (C2SP signed-note, with a
-- tlog-checkpoint body) the gate made of the tree, each naming its size
-- and root.
--
-- The leaves of the events already recorded are made by the gate when this
-- migration is applied (db.c: SQLite cannot hash), in its transaction,
-- followed by the event audit.begin saying how many it adopted. From then
-- on every event is appended to the tree in the transaction that records
-- it (db_event.c); an event without its leaf is a tampered log.
--
-- All three tables are append-only, like events: the triggers keep the
-- gate's own code from rewriting them. Someone who can write the file can
-- drop the triggers; `airlock audit verify` and the checkpoints held
-- elsewhere are what find that.

CREATE TABLE audit_leaves (
	idx INTEGER PRIMARY KEY CHECK (idx >= 0),
	event_id INTEGER NOT NULL UNIQUE REFERENCES events (id),
	entry BLOB NOT NULL,
	hash BLOB NOT NULL CHECK (length(hash) = 32)
) STRICT;

CREATE TABLE audit_nodes (
	level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 63),
	idx INTEGER NOT NULL CHECK (idx >= 0),
	hash BLOB NOT NULL CHECK (length(hash) = 32),
	PRIMARY KEY (level, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE audit_checkpoints (
	id INTEGER PRIMARY KEY,
	size INTEGER NOT NULL CHECK (size >= 0),
	root BLOB NOT NULL CHECK (length(root) = 32),
	key_id TEXT NOT NULL,                     -- the signing key's (keys/)
	at INTEGER NOT NULL,
	reason TEXT NOT NULL,     -- release, prerelease, decision, events, time, asked
	note TEXT NOT NULL                        -- the signed note, whole
) STRICT;
CREATE INDEX audit_checkpoints_size ON audit_checkpoints (size, id);

CREATE TRIGGER audit_leaves_no_update BEFORE UPDATE ON audit_leaves
BEGIN
	SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_leaves_no_delete BEFORE DELETE ON audit_leaves
BEGIN
	SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_nodes_no_update BEFORE UPDATE ON audit_nodes
BEGIN
	SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_nodes_no_delete BEFORE DELETE ON audit_nodes
BEGIN
	SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
BEGIN
	SELECT RAISE(ABORT, 'checkpoints are append-only');
END;
CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
BEGIN
	SELECT RAISE(ABORT, 'checkpoints are append-only');
END;
