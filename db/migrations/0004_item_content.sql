-- 0004_item_content.sql - whether an item's bytes were kept for review.
-- The scan child sends the bytes of the text members of an archive or a
-- bundle; the gate keeps those that hash to the item's sha256 in its
-- store, under that sha256 (content 'kept'), and says why the others were
-- not: 'binary' (described, never shown), 'partial' (not read whole),
-- 'over-member-cap', 'over-artifact-cap'. NULL: the question does not
-- arise (a plain file, a patch, a mailbox are shown whole) or the scan
-- predates it.

ALTER TABLE items ADD COLUMN content TEXT
    CHECK (content IN ('kept', 'binary', 'partial', 'over-member-cap',
        'over-artifact-cap'));
