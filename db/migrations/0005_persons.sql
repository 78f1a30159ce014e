-- 0005_persons.sql - persons, not token names; review evidence that means
-- it.
--
-- A person holds any number of tokens (principals.person_id); an agent's
-- person_id is the person it was launched for. Names are compared by their
-- key (fold: NFKC case folding, trimmed, inner white space one space;
-- common/fold.h computes it), unique among persons; name is the spelling
-- shown. disabled_at: the person's tokens were revoked then, and no token
-- is issued for them again.
--
-- views: what the gate served of a submission, to whom, after which scan
-- (the latest finished one when served): the whole artifact (item NULL) or
-- one kept item, whole (full 1, with the sha256 of the bytes served) or a
-- range of it (full 0). Approval asks for a full view by the approver's
-- person of the scan it approves (db_review.c).
--
-- Existing tokens: one person per distinct name (compared in lower case,
-- trimmed: names before this change were ASCII letters, digits and
-- . _ - @, for which that is the fold), from the names of reviewer, ci,
-- auditor and admin tokens and the on_behalf_of of agent tokens; each
-- token is mapped to its person, and the event person.migrate says what
-- was done. A trigger then keeps every token bound to a person.

CREATE TABLE persons (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL,
	fold TEXT NOT NULL UNIQUE,
	email TEXT,
	created_at INTEGER NOT NULL,
	disabled_at INTEGER                       -- NULL: enabled
) STRICT;

ALTER TABLE principals ADD COLUMN person_id INTEGER REFERENCES persons (id);
CREATE INDEX principals_person ON principals (person_id);

CREATE TABLE views (
	id INTEGER PRIMARY KEY,
	submission_id INTEGER NOT NULL REFERENCES submissions (id),
	scan_id INTEGER REFERENCES scans (id),    -- NULL: none had finished
	actor INTEGER NOT NULL REFERENCES principals (id),
	item INTEGER,                             -- NULL: the whole artifact
	bytes INTEGER NOT NULL CHECK (bytes >= 0),
	sha256 TEXT,                              -- NULL unless full
	full INTEGER NOT NULL CHECK (full IN (0, 1)),
	at INTEGER NOT NULL
) STRICT;
CREATE INDEX views_submission ON views (submission_id, scan_id);

INSERT INTO persons (name, fold, created_at)
SELECT min(trim(n)), lower(trim(n)),
    CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
FROM (SELECT name AS n FROM principals WHERE role <> 'agent'
    UNION ALL SELECT on_behalf_of FROM principals
    WHERE role = 'agent' AND on_behalf_of IS NOT NULL)
WHERE trim(n) <> ''
GROUP BY lower(trim(n));

UPDATE principals SET person_id = (SELECT id FROM persons
    WHERE fold = lower(trim(CASE principals.role WHEN 'agent'
    THEN principals.on_behalf_of ELSE principals.name END)));

INSERT INTO events (at, actor, action, detail)
SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), NULL,
    'person.migrate', 'made ' || (SELECT count(*) FROM persons) ||
    ' person(s) from token names (' || ifnull((SELECT group_concat(name,
    ', ') FROM persons), '') || '); mapped ' || (SELECT count(*) FROM
    principals WHERE person_id IS NOT NULL) || ' of ' || (SELECT count(*)
    FROM principals) || ' token(s) to them'
WHERE EXISTS (SELECT 1 FROM principals);

CREATE TRIGGER principals_person BEFORE INSERT ON principals
WHEN NEW.person_id IS NULL
BEGIN
	SELECT RAISE(ABORT, 'a token belongs to a person');
END;
