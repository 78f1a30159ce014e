/*
 * check_audit.c - the audit log's Merkle tree on real SQLite files
 * (db/db_audit.c): every event is a leaf with its canonical entry, the
 * stored tree agrees with one recomputed from the entries, proofs from it
 * verify, and db_audit_verify names the first index of each kind of
 * tampering done to the file with raw SQL after dropping the triggers:
 * an edited event, an edited entry, a deleted event, a reordering, an
 * inserted event, a truncation, and a consistent rewrite of the whole
 * tree (which only an older checkpoint's root can find). And the
 * checks a verifier without the database makes (gate/audit.c): an entry
 * well formed as the gate writes it, in its place, and keys read from a
 * file of verifier keys named for the log.
 */
#include <sqlite3.h>
#include <string.h>

#include "test_util.h"

#include <openssl/pem.h>

#include "audit.h"
#include "db.h"
#include "merkle.h"
#include "note.h"

static char *dir;
static char path[4200];
static struct db *db;

static void
setup(void)
{
	dir = tu_mkdtemp();
	snprintf(path, sizeof(path), "%s/airlock.db", dir);
	ck_assert_int_eq(db_open(&db, path, 1), 0);
}

static void
teardown(void)
{
	db_close(db);
	db = NULL;
	tu_rmrf(dir);
}

/* n events with distinct details; returns the log's size after them. */
static uint64_t
events(int n)
{
	uint64_t size = 0;
	char d[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(d, sizeof(d), "event number %d", i);
		ck_assert_int_eq(db_event_add(db, 1000 + i, 0, "note", 0, d), 0);
	}
	ck_assert_int_eq(db_audit_size(db, &size), 0);
	return size;
}

/* Raw SQL on the file, the triggers dropped first (as an attacker with
 * the file would). */
static void
raw(const char *sql)
{
	sqlite3 *h;
	char *err = NULL;

	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(h, "DROP TRIGGER IF EXISTS events_no_update;"
	    "DROP TRIGGER IF EXISTS events_no_delete;"
	    "DROP TRIGGER IF EXISTS audit_leaves_no_update;"
	    "DROP TRIGGER IF EXISTS audit_leaves_no_delete;"
	    "DROP TRIGGER IF EXISTS audit_nodes_no_update;"
	    "DROP TRIGGER IF EXISTS audit_nodes_no_delete;", NULL, NULL, &err) ==
	    SQLITE_OK, "%s", err);
	ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, &err) == SQLITE_OK,
	    "%s: %s", sql, err);
	sqlite3_close(h);
}

static void
verify(struct db_audit_check *c, size_t nc, struct db_audit_report *r)
{
	ck_assert_int_eq(db_audit_verify(db, c, nc, r), 0);
}

/* The idx of event id. */
static uint64_t
leaf_of(int64_t id)
{
	uint64_t idx = 0;

	ck_assert_int_eq(db_audit_leaf_of_event(db, id, &idx), 0);
	return idx;
}

START_TEST(every_event_is_a_leaf)
{
	struct db_audit_report r;
	struct db_audit_leaf l;
	uint8_t (*leaves)[32], root[32], want[32];
	uint64_t size = events(20), i, sz = 0;

	/* A fresh database holds audit.begin (and nothing before it). */
	ck_assert_uint_eq(size, 21);
	ck_assert_int_eq(db_audit_leaf(db, 0, &l), 0);
	ck_assert_msg(strstr(l.entry, "action audit.begin\n") != NULL, "%s",
	    l.entry);
	free(l.entry);
	leaves = calloc(size, 32);
	for (i = 0; i < size; i++) {
		char head[64];

		ck_assert_int_eq(db_audit_leaf(db, i, &l), 0);
		snprintf(head, sizeof(head), "airlock audit entry v1\nindex %llu\n",
		    (unsigned long long)i);
		ck_assert_msg(strncmp(l.entry, head, strlen(head)) == 0, "%s",
		    l.entry);
		merkle_leaf_hash(l.entry, l.entry_len, leaves[i]);
		ck_assert(memcmp(leaves[i], l.hash, 32) == 0);
		free(l.entry);
	}
	ck_assert_int_eq(merkle_root_of_leaves((const uint8_t (*)[32])leaves,
	    size, want), 0);
	ck_assert_int_eq(db_audit_root(db, &sz, root), 0);
	ck_assert_uint_eq(sz, size);
	ck_assert(memcmp(root, want, 32) == 0);
	verify(NULL, 0, &r);
	ck_assert_msg(r.ok, "%s", r.what);
	ck_assert_uint_eq(r.size, size);
	ck_assert(memcmp(r.root, want, 32) == 0);
	free(leaves);
}
END_TEST

START_TEST(entry_escapes_and_names)
{
	struct db_audit_leaf l;
	int64_t who = 0;
	char h[65];

	ck_assert_int_eq(db_person_create(db, "Alice", NULL, 5, 0, NULL), 0);
	snprintf(h, sizeof(h), "%064x", 7);
	ck_assert_int_eq(db_principal_create(db, "alice-laptop",
	    DB_ROLE_REVIEWER, h, "Alice", 0, 10, 0, &who), 0);
	ck_assert_int_eq(db_event_add(db, 77, who, "note", 0,
	    "two\nlines, 100% \x01 sure"), 0);
	ck_assert_int_eq(db_audit_leaf(db, leaf_of(db_event_last_id(db)), &l),
	    0);
	ck_assert_msg(strstr(l.entry, "\nat 77\naction note\n") != NULL, "%s",
	    l.entry);
	ck_assert_msg(strstr(l.entry, "\nactor-name alice-laptop\n"
	    "actor-role reviewer\n") != NULL, "%s", l.entry);
	ck_assert_msg(strstr(l.entry, "\nperson-name Alice\nsubmission 0\n"
	    "sha256 \ndetail two%0Alines, 100%25 %01 sure\n") != NULL, "%s",
	    l.entry);
	free(l.entry);
}
END_TEST

START_TEST(proofs_from_the_store_verify)
{
	uint8_t path2[64][32], root[32], old_root[32];
	uint64_t size = events(40), sz = 0, old = 13, i;
	size_t n = 0;

	ck_assert_int_eq(db_audit_root(db, &sz, root), 0);
	for (i = 0; i < size; i++) {
		struct db_audit_leaf l;

		ck_assert_int_eq(db_audit_leaf(db, i, &l), 0);
		ck_assert_int_eq(db_audit_inclusion(db, i, size, path2, &n), 0);
		ck_assert_int_eq(merkle_verify_inclusion(i, size, l.hash,
		    (const uint8_t (*)[32])path2, n, root), 0);
		/* Another entry's hash does not verify at i. */
		l.hash[0] ^= 1;
		ck_assert_int_eq(merkle_verify_inclusion(i, size, l.hash,
		    (const uint8_t (*)[32])path2, n, root), AL_EINVAL);
		free(l.entry);
	}
	ck_assert_int_eq(db_audit_root(db, &old, old_root), 0);
	ck_assert_int_eq(db_audit_consistency(db, old, size, path2, &n), 0);
	ck_assert_int_eq(merkle_verify_consistency(old, size, old_root, root,
	    (const uint8_t (*)[32])path2, n), 0);
	old_root[5] ^= 0x40;
	ck_assert_int_eq(merkle_verify_consistency(old, size, old_root, root,
	    (const uint8_t (*)[32])path2, n), AL_EINVAL);
}
END_TEST

START_TEST(edited_event_is_named)
{
	struct db_audit_report r;
	char sql[128];
	int64_t id;

	events(10);
	id = db_event_last_id(db) - 4;
	snprintf(sql, sizeof(sql), "UPDATE events SET detail = 'nothing "
	    "happened' WHERE id = %lld", (long long)id);
	raw(sql);
	verify(NULL, 0, &r);
	ck_assert(!r.ok);
	ck_assert_uint_eq(r.first_bad, leaf_of(id));
	ck_assert_msg(strstr(r.what, "no longer reads as its entry") != NULL &&
	    strstr(r.what, "nothing happened") != NULL, "%s", r.what);
}
END_TEST

START_TEST(edited_entry_is_named)
{
	struct db_audit_report r;

	events(10);
	raw("UPDATE audit_leaves SET entry = CAST(replace(CAST(entry AS TEXT), "
	    "'number 6', 'number 9') AS BLOB) WHERE idx = 7");
	verify(NULL, 0, &r);
	ck_assert(!r.ok);
	ck_assert_uint_eq(r.first_bad, 7);
	ck_assert_msg(strstr(r.what, "does not hash to its stored leaf") !=
	    NULL, "%s", r.what);
}
END_TEST

START_TEST(deleted_event_is_named)
{
	struct db_audit_report r;
	char sql[128];
	int64_t id;

	events(10);
	id = db_event_last_id(db) - 2;
	snprintf(sql, sizeof(sql), "DELETE FROM events WHERE id = %lld",
	    (long long)id);
	raw(sql);
	verify(NULL, 0, &r);
	ck_assert(!r.ok);
	ck_assert_uint_eq(r.first_bad, 8);
	ck_assert_msg(strstr(r.what, "not in the events table") != NULL, "%s",
	    r.what);
}
END_TEST

START_TEST(deleted_leaf_is_named)
{
	struct db_audit_report r;

	events(10);
	raw("DELETE FROM events WHERE id = (SELECT event_id FROM audit_leaves "
	    "WHERE idx = 4); DELETE FROM audit_leaves WHERE idx = 4");
	verify(NULL, 0, &r);
	ck_assert(!r.ok);
	ck_assert_uint_eq(r.first_bad, 4);
	ck_assert_msg(strstr(r.what, "entry 4 is missing") != NULL, "%s",
	    r.what);
}
END_TEST

START_TEST(reordered_events_are_named)
{
	struct db_audit_report r;

	events(10);
	/* Swap what events 3 and 6 (leaves) say. */
	raw("UPDATE events SET detail = CASE detail WHEN 'event number 2' THEN "
	    "'event number 5' WHEN 'event number 5' THEN 'event number 2' ELSE "
	    "detail END");
	verify(NULL, 0, &r);
	ck_assert(!r.ok);
	ck_assert_uint_eq(r.first_bad, 3);
}
END_TEST

START_TEST(inserted_event_is_named)
{
	struct db_audit_report r;

	events(5);
	raw("INSERT INTO events (at, action, detail) VALUES (5, 'approve', "
	    "'forged')");
	verify(NULL, 0, &r);
	ck_assert(!r.ok);
	ck_assert_msg(strstr(r.what, "is not in the audit log") != NULL, "%s",
	    r.what);
	/* And the gate refuses to go on appending onto it? No: it appends;
	 * the forged row stays without a leaf and verify keeps naming it. */
	events(1);
	verify(NULL, 0, &r);
	ck_assert(!r.ok);
}
END_TEST

START_TEST(truncation_found_by_an_older_checkpoint)
{
	struct db_audit_check c = {.name = "exported"};
	struct db_audit_report r;
	uint64_t size = events(12);

	c.size = 0;
	ck_assert_int_eq(db_audit_root(db, &c.size, c.root), 0);
	ck_assert_uint_eq(c.size, size);
	verify(&c, 1, &r);
	ck_assert_msg(r.ok, "%s", r.what);
	ck_assert_int_eq(c.result, DB_CHECK_MATCHES);
	/* The last three events go, with their leaves and the nodes above
	 * them: what is left is a consistent, smaller tree. */
	raw("DELETE FROM events WHERE id IN (SELECT event_id FROM audit_leaves "
	    "WHERE idx >= 10); DELETE FROM audit_leaves WHERE idx >= 10;"
	    "DELETE FROM audit_nodes WHERE (idx + 1) << level > 10");
	verify(NULL, 0, &r);
	ck_assert_msg(r.ok, "without a checkpoint: %s", r.what);
	verify(&c, 1, &r);
	ck_assert(!r.ok);
	ck_assert_int_eq(c.result, DB_CHECK_BEYOND);
	ck_assert_msg(strstr(r.what, "truncated") != NULL, "%s", r.what);
}
END_TEST

START_TEST(consistent_rewrite_found_by_an_older_checkpoint)
{
	struct db_audit_check c = {.name = "exported"};
	struct db_audit_report r;

	events(9);
	ck_assert_int_eq(db_audit_root(db, &c.size, c.root), 0);
	db_close(db);
	db = NULL;
	/* Rewrite an event, throw the tree away and have it rebuilt as
	 * the migration would: every row agrees with every other. */
	raw("UPDATE events SET detail = 'rewritten' WHERE detail = "
	    "'event number 3'; DROP TABLE audit_leaves; DROP TABLE audit_nodes;"
	    "DROP TABLE audit_checkpoints; DELETE FROM events WHERE action = "
	    "'audit.begin'; PRAGMA user_version = 5");
	ck_assert_int_eq(db_open(&db, path, 1), 0);
	verify(NULL, 0, &r);
	ck_assert_msg(r.ok, "the rewrite is consistent: %s", r.what);
	/* The tree is a different one now: the old root does not match at
	 * its size. */
	verify(&c, 1, &r);
	ck_assert(!r.ok);
	ck_assert_int_eq(c.result, DB_CHECK_DIFFERS);
}
END_TEST

START_TEST(edited_node_is_named)
{
	struct db_audit_report r;

	events(15);
	raw("UPDATE audit_nodes SET hash = zeroblob(32) WHERE level = 2 AND "
	    "idx = 1");
	verify(NULL, 0, &r);
	ck_assert(!r.ok);
	ck_assert_uint_eq(r.first_bad, 7);
	ck_assert_msg(strstr(r.what, "node 2/1") != NULL, "%s", r.what);
	/* An append needing that node reads it as is: the stored tree is
	 * wrong from there on, which verify keeps saying. */
}
END_TEST


/* Entry idx with the bytes from..to replaced by with (a copy, NUL after). */
static char *
edited(uint64_t idx, const char *from, const char *with, size_t *len)
{
	struct db_audit_leaf l;
	struct dynbuf b;
	char *at;

	ck_assert_int_eq(db_audit_leaf(db, idx, &l), 0);
	dynbuf_init(&b, 1 << 20);
	at = from != NULL ? strstr(l.entry, from) : NULL;
	ck_assert(from == NULL || at != NULL);
	if (at == NULL) {
		ck_assert_int_eq(dynbuf_add(&b, l.entry, l.entry_len), 0);
	} else {
		ck_assert_int_eq(dynbuf_add(&b, l.entry, (size_t)(at -
		    l.entry)), 0);
		ck_assert_int_eq(dynbuf_adds(&b, with), 0);
		ck_assert_int_eq(dynbuf_adds(&b, at + strlen(from)), 0);
	}
	free(l.entry);
	*len = b.len;
	return dynbuf_take(&b, NULL);
}

static void
entry_refused(uint64_t idx, const char *from, const char *with,
    const char *why)
{
	size_t n;
	char *e = edited(idx, from, with, &n);

	ck_assert_int_eq(gate_entry_check(e, n, idx, NULL), AL_EINVAL);
	ck_assert_msg(strstr(al_err_msg(), why) != NULL, "'%s' -> '%s': %s",
	    from, with, al_err_msg());
	free(e);
}

START_TEST(entry_check_as_the_gate_writes)
{
	uint64_t size, i, ev = 0, last = 0;
	size_t n;
	char *e;

	events(3);
	ck_assert_int_eq(db_event_add(db, 5000, 0, "note", 0,
	    "a%b\ttab\x7f" "del"), 0);
	ck_assert_int_eq(db_audit_size(db, &size), 0);
	for (i = 0; i < size; i++) {
		e = edited(i, NULL, NULL, &n);
		ck_assert_msg(gate_entry_check(e, n, i, &ev) == 0, "%s: %s", e,
		    al_err_msg());
		ck_assert_uint_gt(ev, last);
		last = ev;
		/* In another place it is refused: the index names its own. */
		ck_assert_int_eq(gate_entry_check(e, n, i + 1, NULL), AL_EINVAL);
		ck_assert_msg(strstr(al_err_msg(), "line 2: it says index") !=
		    NULL, "%s", al_err_msg());
		free(e);
	}
	entry_refused(1, "entry v1", "entry v2", "line 1: not");
	entry_refused(1, "\nat ", "\nat 0", "line 4: its at is not a decimal");
	entry_refused(1, "\nactor 0\n", "\nactor -0\n", "its actor is not a");
	entry_refused(1, "\naction note\n", "\n", "line 5: not its action");
	entry_refused(1, "\ndetail ", "\ndetail \t", "line 13: its detail "
	    "holds a control byte");
	entry_refused(size - 1, "%25", "%2", "its detail holds");
	entry_refused(size - 1, "%09", "%09%41", "an escape the gate does not");
	entry_refused(size - 1, "%7F", "%7f", "an escape the gate does not");
	entry_refused(1, "\nsha256 \n", "\nsha256 ABC\n", "its sha256 is "
	    "neither");
	entry_refused(1, "number 0\n", "number 0\nmore\n", "line 14: bytes "
	    "after");
	entry_refused(1, "number 0\n", "number 0", "line 13: the entry ends");
}
END_TEST

/* A key file of the lines given, in the test's directory. */
static const char *
key_file(const char *name, const char *text)
{
	static char p[4300];

	tu_write(dir, name, text);
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

START_TEST(keys_from_verifier_key_lines)
{
	struct attest_keyring kr = {0}, pem = {0};
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	char *vk = NULL, text[600], *pub = NULL;
	const char *f;
	BIO *bio;
	long n;

	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(note_vkey_format(&vk, "airlock/0011223344556677", k),
	    0);
	snprintf(text, sizeof(text), "# the gate's keys\n\n%s\r\n", vk);
	f = key_file("keys.txt", text);
	ck_assert_int_eq(gate_keyring_load_file(&kr, f,
	    "airlock/0011223344556677"), 0);
	ck_assert_uint_eq(kr.n, 1);
	/* The same key as its PEM gives. */
	bio = BIO_new(BIO_s_mem());
	ck_assert_int_eq(PEM_write_bio_PUBKEY(bio, k), 1);
	ck_assert_int_eq(BIO_write(bio, "", 1), 1);
	n = BIO_get_mem_data(bio, &pub);
	ck_assert_int_gt(n, 0);
	f = key_file("key.pem", pub);
	ck_assert_int_eq(gate_keyring_load_file(&pem, f, "ignored for PEM"), 0);
	ck_assert_uint_eq(pem.n, 1);
	ck_assert_str_eq(pem.id[0], kr.id[0]);
	/* Another log's key, a damaged one, an empty file: refused. */
	attest_keyring_clear(&kr);
	f = key_file("keys.txt", vk);
	ck_assert_int_eq(gate_keyring_load_file(&kr, f, "airlock/other"),
	    AL_EINVAL);
	ck_assert_msg(strstr(al_err_msg(), "keys.txt:1: the verifier key is "
	    "of the log 'airlock/0011223344556677'") != NULL, "%s",
	    al_err_msg());
	vk[strlen(vk) - 3] ^= 1;
	f = key_file("keys.txt", vk);
	ck_assert_int_lt(gate_keyring_load_file(&kr, f, NULL), 0);
	f = key_file("keys.txt", "# nothing\n");
	ck_assert_int_eq(gate_keyring_load_file(&kr, f, NULL), AL_EINVAL);
	ck_assert_msg(strstr(al_err_msg(), "holds no key") != NULL, "%s",
	    al_err_msg());
	ck_assert_uint_eq(kr.n, 0);
	BIO_free(bio);
	free(vk);
	EVP_PKEY_free(k);
	attest_keyring_clear(&pem);
}
END_TEST

static Suite *
audit_suite(void)
{
	Suite *s = suite_create("audit");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_event_is_a_leaf);
	tcase_add_test(tc, entry_escapes_and_names);
	tcase_add_test(tc, proofs_from_the_store_verify);
	tcase_add_test(tc, edited_event_is_named);
	tcase_add_test(tc, edited_entry_is_named);
	tcase_add_test(tc, deleted_event_is_named);
	tcase_add_test(tc, deleted_leaf_is_named);
	tcase_add_test(tc, reordered_events_are_named);
	tcase_add_test(tc, inserted_event_is_named);
	tcase_add_test(tc, truncation_found_by_an_older_checkpoint);
	tcase_add_test(tc, consistent_rewrite_found_by_an_older_checkpoint);
	tcase_add_test(tc, edited_node_is_named);
	tcase_add_test(tc, entry_check_as_the_gate_writes);
	tcase_add_test(tc, keys_from_verifier_key_lines);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(audit_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
