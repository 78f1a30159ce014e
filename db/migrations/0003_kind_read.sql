-- 0003_kind_read.sql - the kind the gate read an artifact as. A submitter
-- may ask for a kind (submissions.kind, a label); the scan reads the
-- content's kind and records it per scan, and the submission carries the
-- latest scan's: it is what show/list/the API call "kind", what the
-- attestation names and the only form pull delivers in. NULL: not read
-- yet (or the scan failed before the reader said).

ALTER TABLE scans ADD COLUMN kind TEXT
    CHECK (kind IN ('file', 'archive', 'patch', 'mbox', 'bundle'));
ALTER TABLE submissions ADD COLUMN kind_read TEXT
    CHECK (kind_read IN ('file', 'archive', 'patch', 'mbox', 'bundle'));
