/*
 * check_db.c - the provenance store on real SQLite files: schema versions
 * and the refusal of a newer database, principals and tokens, submissions
 * with labels and shared blobs, the scan queue (two connections claiming
 * at once never take the same submission; a crash mid-scan requeues it),
 * findings, and the append-only audit trail (raw SQL cannot rewrite it).
 */
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#include "test_util.h"

#include "db.h"

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
	struct db_audit_report r;

	/* Whatever a test did through db/, every event is in the log and
	 * the log verifies (db_audit.c); a test that closed db is done. */
	if (db != NULL) {
		ck_assert_int_eq(db_audit_verify(db, NULL, 0, &r), 0);
		ck_assert_msg(r.ok, "audit verify at the end of the test: %s",
		    r.what);
	}
	db_close(db);
	db = NULL;
	tu_rmrf(dir);
}

/* A distinct 64-hex-digit "digest" for n. */
static void
hex(char out[65], int n)
{
	snprintf(out, 65, "%064x", n);
}

/* The policy of a page's counts (the review tests use the same). */
static const struct db_policy pol_page = {1, 1, 2, 2};

/* A person of that name, made if new. */
static void
person(const char *name)
{
	int rc = db_person_create(db, name, NULL, 5, 0, NULL);

	ck_assert(rc == 0 || rc == AL_EEXIST);
}

/* A token of that name: its person is the one named like it (an agent's:
 * "launcher"). */
static int64_t
principal(const char *name, enum db_role role, int n)
{
	const char *who = role == DB_ROLE_AGENT ? "launcher" : name;
	char h[65];
	int64_t id = 0;

	hex(h, 1000000 + n);
	person(who);
	ck_assert_int_eq(db_principal_create(db, name, role, h, who, 0, 10, 0,
	    &id), 0);
	return id;
}

/* Records a full view of the whole artifact by who. */
static void
viewed(int64_t id, int64_t who, int64_t now)
{
	ck_assert_int_eq(db_view_record(db, id, who, -1, NULL, 1, "ab", 1,
	    NULL, now), 0);
}

static int64_t
submit(struct db *d, int64_t who, int blob, int64_t now)
{
	struct db_submission in;
	int64_t id = 0;

	memset(&in, 0, sizeof(in));
	hex(in.sha256, blob);
	in.size = 100 + blob;
	in.kind = AL_KIND_AUTO;
	in.name = "out.tar.gz";
	in.submitter = who;
	in.peer_uid = -1;
	in.peer_pid = -1;
	in.via = "tcp";
	ck_assert_int_eq(db_submission_create(d, &in, now, &id), 0);
	return id;
}

/* Runs one SQL statement on the file over a connection of its own. */
static int
raw_exec(const char *sql, char *msg, size_t len)
{
	sqlite3 *h;
	char *err = NULL;
	int r;

	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	r = sqlite3_exec(h, sql, NULL, NULL, &err);
	if (msg != NULL)
		snprintf(msg, len, "%s", err ? err : "");
	sqlite3_free(err);
	sqlite3_close(h);
	return r;
}

static int64_t
raw_int(const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int64_t v;

	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* ---- open --------------------------------------------------------------- */

START_TEST(reopen_keeps_data_and_schema)
{
	struct db_principal p;
	int v;

	ck_assert_int_ge(db_schema_latest(), 1);
	ck_assert_int_eq(db_schema_version(db, &v), 0);
	ck_assert_int_eq(v, db_schema_latest());
	principal("ci-bot", DB_ROLE_CI, 1);
	db_close(db);
	ck_assert_int_eq(db_open(&db, path, 0), 0);
	ck_assert_int_eq(db_schema_version(db, &v), 0);
	ck_assert_int_eq(v, db_schema_latest());
	ck_assert_int_eq(db_principal_by_name(db, "ci-bot", &p), 0);
	ck_assert_int_eq(p.role, DB_ROLE_CI);
	db_principal_clear(&p);
	ck_assert_int_eq(db_integrity_check(db), 0);
}
END_TEST

START_TEST(wal_and_foreign_keys_on)
{
	sqlite3 *h;
	sqlite3_stmt *st;

	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st,
	    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(h);
	/* A submission by nobody is refused by the foreign key. */
	{
		struct db_submission in;

		memset(&in, 0, sizeof(in));
		hex(in.sha256, 1);
		in.size = 101;
		in.kind = AL_KIND_AUTO;
		in.name = "x";
		in.submitter = 42;
		in.via = "tcp";
		ck_assert_int_eq(db_submission_create(db, &in, 1, NULL),
		    AL_EINVAL);
		ck_assert_int_eq(raw_int("SELECT count(*) FROM blobs"), 0);
	}
}
END_TEST

START_TEST(missing_without_create)
{
	struct db *d = (struct db *)1;
	char p2[4300];

	snprintf(p2, sizeof(p2), "%s/absent.db", dir);
	ck_assert_int_eq(db_open(&d, p2, 0), AL_ENOTFOUND);
	ck_assert_ptr_null(d);
	ck_assert_int_eq(access(p2, F_OK), -1);
}
END_TEST

/* The umask can only take bits away; 0277 would leave 0400 without the
 * explicit chmod. WAL and shared-memory files follow the database's mode. */
START_TEST(created_0600_whatever_the_umask)
{
	struct db *d;
	struct stat sb;
	char p2[4300], side[4400];
	mode_t old;

	snprintf(p2, sizeof(p2), "%s/strict.db", dir);
	old = umask(0277);
	ck_assert_int_eq(db_open(&d, p2, 1), 0);
	umask(old);
	ck_assert_int_eq(stat(p2, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0600);
	snprintf(side, sizeof(side), "%s-wal", p2);
	ck_assert_int_eq(stat(side, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0600);
	snprintf(side, sizeof(side), "%s-shm", p2);
	ck_assert_int_eq(stat(side, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0600);
	db_close(d);
}
END_TEST

START_TEST(newer_schema_refused)
{
	char sql[64];
	struct db *d = NULL;

	db_close(db);
	db = NULL;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
	    db_schema_latest() + 1);
	ck_assert_int_eq(raw_exec(sql, NULL, 0), SQLITE_OK);
	ck_assert_int_eq(db_open(&d, path, 0), AL_EINVAL);
	ck_assert_ptr_null(d);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "newer"));
	/* Refused, not downgraded. */
	ck_assert_int_eq(raw_int("PRAGMA user_version"), db_schema_latest() + 1);
}
END_TEST

START_TEST(not_a_database)
{
	struct db *d = NULL;
	char p2[4300];

	tu_write(dir, "junk.db", "this is not an SQLite database, not at all.\n");
	snprintf(p2, sizeof(p2), "%s/junk.db", dir);
	ck_assert_int_eq(db_open(&d, p2, 0), AL_EIO);
	ck_assert_ptr_null(d);
}
END_TEST

/* ---- principals --------------------------------------------------------- */

START_TEST(principals_create_lookup)
{
	struct db_principal p, *v;
	char h[65];
	size_t n;
	int64_t admin, agent;

	admin = principal("root", DB_ROLE_ADMIN, 1);
	hex(h, 77);
	/* An unknown person is refused; the launched-for person's spelling
	 * is the registered one, found under NFKC case folding. */
	ck_assert_int_eq(db_principal_create(db, "agent-1", DB_ROLE_AGENT, h,
	    "alice", 5000, 20, admin, &agent), AL_ENOTFOUND);
	person("alice");
	ck_assert_int_eq(db_principal_create(db, "agent-1", DB_ROLE_AGENT, h,
	    " \xef\xbc\xa1LICE ", 5000, 20, admin, &agent), 0);
	ck_assert_int_gt(agent, admin);
	ck_assert_int_eq(db_principal_by_token(db, h, &p), 0);
	ck_assert_int_eq(p.id, agent);
	ck_assert_str_eq(p.name, "agent-1");
	ck_assert_int_eq(p.role, DB_ROLE_AGENT);
	ck_assert_str_eq(p.on_behalf_of, "alice");
	ck_assert_str_eq(p.person, "alice");
	ck_assert_int_eq(p.created_at, 20);
	ck_assert_int_eq(p.expires_at, 5000);
	ck_assert_int_eq(p.revoked_at, 0);
	db_principal_clear(&p);
	ck_assert_int_eq(db_principal_by_name(db, "root", &p), 0);
	ck_assert_ptr_null(p.on_behalf_of);
	ck_assert_int_eq(p.expires_at, 0);
	db_principal_clear(&p);
	hex(h, 78);
	ck_assert_int_eq(db_principal_by_token(db, h, &p), AL_ENOTFOUND);
	ck_assert_int_eq(db_principal_by_name(db, "nobody", &p), AL_ENOTFOUND);
	ck_assert_int_eq(db_principal_list(db, &v, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(v[0].name, "root");
	ck_assert_str_eq(v[1].name, "agent-1");
	db_principal_list_free(v, n);
}
END_TEST

START_TEST(principal_duplicates_refused)
{
	char h[65];

	principal("root", DB_ROLE_ADMIN, 1);
	hex(h, 2);
	ck_assert_int_eq(db_principal_create(db, "root", DB_ROLE_AGENT, h,
	    "root", 0, 1, 0, NULL), AL_EEXIST);
	/* The same token under another name is refused too. */
	hex(h, 1000001);
	ck_assert_int_eq(db_principal_create(db, "other", DB_ROLE_AGENT, h,
	    "root", 0, 1, 0, NULL), AL_EEXIST);
	/* A token hash that is not 64 hex digits, an unknown role. */
	ck_assert_int_eq(db_principal_create(db, "x", DB_ROLE_AGENT, "abc",
	    "root", 0, 1, 0, NULL), AL_EINVAL);
	hex(h, 3);
	ck_assert_int_eq(db_principal_create(db, "x", DB_ROLE_MAX, h, NULL, 0,
	    1, 0, NULL), AL_EINVAL);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM principals"), 1);
	/* The failed creations left no events behind (audit.begin of the
	 * new database, person.add, and token.create). */
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events"), 3);
}
END_TEST

START_TEST(revoke_once)
{
	struct db_principal p;
	char h[65];
	int64_t admin = principal("root", DB_ROLE_ADMIN, 1);

	principal("agent-1", DB_ROLE_AGENT, 2);
	ck_assert_int_eq(db_principal_revoke(db, "agent-1", 99, admin), 0);
	ck_assert_int_eq(db_principal_revoke(db, "agent-1", 100, admin),
	    AL_EINVAL);
	ck_assert_int_eq(db_principal_revoke(db, "ghost", 100, admin),
	    AL_ENOTFOUND);
	/* Still found by its token (the caller checks), marked revoked. */
	hex(h, 1000002);
	ck_assert_int_eq(db_principal_by_token(db, h, &p), 0);
	ck_assert_int_eq(p.revoked_at, 99);
	db_principal_clear(&p);
	/* A revoked name stays taken. */
	hex(h, 5);
	ck_assert_int_eq(db_principal_create(db, "agent-1", DB_ROLE_AGENT, h,
	    "launcher", 0, 1, 0, NULL), AL_EEXIST);
}
END_TEST

/* The fake clock of the guard tests: what db_guard_set's clock says. */
static int64_t guard_now;
static int64_t
guard_clock(void)
{
	return guard_now;
}

/*
 * The guard (issue 13, defect 6): a connection acting for a token checks
 * it in every write transaction, so a decision whose token was revoked,
 * expired or whose person was disabled after the request began is not
 * recorded: AL_EAUTH, nothing written, and db_guard_refused says why.
 */
START_TEST(guard_refuses_writes_of_a_token_gone_bad)
{
	struct db *other;
	int64_t admin, rev, ag, s, r, e;
	size_t n;
	char h[65];

	admin = principal("root", DB_ROLE_ADMIN, 1);
	ag = principal("agent-1", DB_ROLE_AGENT, 2);
	person("bob");
	hex(h, 3);
	ck_assert_int_eq(db_principal_create(db, "bob", DB_ROLE_REVIEWER, h,
	    "bob", 5000, 10, admin, &rev), 0);
	s = submit(db, ag, 1, 20);
	guard_now = 4000;
	/* Good: the write goes through, nothing is refused. */
	ck_assert_int_eq(db_guard_set(db, rev, guard_clock), 0);
	viewed(s, rev, 30);
	ck_assert_int_eq(db_guard_refused(db, &r, &e), 0);
	/* Revoked meanwhile, over another connection: refused. */
	ck_assert_int_eq(db_open(&other, path, 0), 0);
	ck_assert_int_eq(db_principal_revoke(other, "bob", 3500, admin), 0);
	ck_assert_int_eq(db_event_add(db, 40, rev, "x", s, NULL), AL_EAUTH);
	ck_assert_str_eq(al_err_msg(), "token revoked at 1970-01-01T00:00:03.500Z");
	ck_assert_int_eq(db_guard_refused(db, &r, &e), 1);
	ck_assert_int_eq(r, 3500);
	ck_assert_int_eq(e, 5000);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events WHERE action = "
	    "'x'"), 0);
	/* The refusal is of this guard only: off, the gate writes. */
	ck_assert_int_eq(db_guard_set(db, 0, NULL), rev);
	ck_assert_int_eq(db_guard_refused(db, &r, &e), 0);
	ck_assert_int_eq(db_event_add(db, 40, 0, "x", s, NULL), 0);
	/* Expired at the clock's now (not at the request's start). */
	person("carol");
	hex(h, 4);
	ck_assert_int_eq(db_principal_create(db, "carol", DB_ROLE_REVIEWER, h,
	    "carol", 5000, 10, admin, &rev), 0);
	db_guard_set(db, rev, guard_clock);
	guard_now = 4999;
	ck_assert_int_eq(db_event_add(db, 50, rev, "y", s, NULL), 0);
	guard_now = 5000;
	ck_assert_int_eq(db_event_add(db, 51, rev, "y", s, NULL), AL_EAUTH);
	ck_assert_str_eq(al_err_msg(), "token expired at 1970-01-01T00:00:05.000Z");
	ck_assert_int_eq(db_guard_refused(db, &r, &e), 1);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(e, 5000);
	/* Its person disabled (which revokes the token too): refused; and
	 * a read is never refused. */
	db_guard_set(db, 0, NULL);
	person("dave");
	hex(h, 5);
	ck_assert_int_eq(db_principal_create(other, "dave", DB_ROLE_REVIEWER, h,
	    "dave", 0, 10, admin, &rev), 0);
	db_guard_set(db, rev, guard_clock);
	ck_assert_int_eq(db_person_disable(other, "dave", 4100, admin, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(db_view_record(db, s, rev, -1, NULL, 1, "ab", 1, NULL,
	    60), AL_EAUTH);
	ck_assert_int_eq(db_guard_refused(db, &r, &e), 1);
	ck_assert_int_eq(r, 4100);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events WHERE action = "
	    "'y'"), 1);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM views"), 1);
	{
		struct db_submission b;

		ck_assert_int_eq(db_submission_get(db, s, &b), 0);
		db_submission_clear(&b);
	}
	db_guard_set(db, 0, NULL);
	db_close(other);
}
END_TEST

START_TEST(role_names)
{
	int r;

	for (r = 0; r < DB_ROLE_MAX; r++)
		ck_assert_int_eq(db_role_parse(db_role_name((enum db_role)r)), r);
	ck_assert_int_eq(db_role_parse("root"), -1);
	ck_assert_str_eq(db_role_name(DB_ROLE_AUDITOR), "auditor");
}
END_TEST

/* ---- submissions -------------------------------------------------------- */

START_TEST(submission_with_labels)
{
	struct db_label labels[2] = {{"ticket", "OPS-7"}, {"reason", "fix"}};
	struct db_submission in, s;
	int64_t who = principal("agent-1", DB_ROLE_AGENT, 1), id;

	memset(&in, 0, sizeof(in));
	hex(in.sha256, 9);
	in.size = 109;
	in.kind = AL_KIND_ARCHIVE;
	in.name = "build.tgz";
	in.submitter = who;
	in.launched_by = "alice";
	in.peer_uid = 1000;
	in.peer_pid = -1;
	in.via = "socket";
	in.labels = labels;
	in.nlabels = 2;
	ck_assert_int_eq(db_submission_create(db, &in, 500, &id), 0);
	ck_assert_int_eq(db_submission_get(db, id, &s), 0);
	ck_assert_int_eq(s.id, id);
	ck_assert_str_eq(s.sha256, in.sha256);
	ck_assert_int_eq(s.size, 109);
	ck_assert_str_eq(al_kind_name(s.kind), "archive");
	ck_assert_str_eq(s.name, "build.tgz");
	ck_assert_int_eq(s.submitter, who);
	ck_assert_str_eq(s.submitter_name, "agent-1");
	ck_assert_str_eq(s.launched_by, "alice");
	ck_assert_int_eq(s.peer_uid, 1000);
	ck_assert_int_eq(s.peer_pid, -1);
	ck_assert_str_eq(s.via, "socket");
	ck_assert_int_eq(s.received_at, 500);
	ck_assert_str_eq(al_state_name(s.state), "received");
	ck_assert_ptr_null(al_verdict_name(s.verdict));
	ck_assert_ptr_null(al_severity_name(s.worst));
	ck_assert_uint_eq(s.nlabels, 2);
	ck_assert_str_eq(s.labels[0].key, "ticket");
	ck_assert_str_eq(s.labels[0].value, "OPS-7");
	ck_assert_str_eq(s.labels[1].key, "reason");
	db_submission_clear(&s);
	ck_assert_int_eq(db_submission_get(db, id + 1, &s), AL_ENOTFOUND);
}
END_TEST

START_TEST(submission_atomic)
{
	struct db_label dup[2] = {{"k", "1"}, {"k", "2"}};
	struct db_submission in;
	int64_t who = principal("agent-1", DB_ROLE_AGENT, 1);

	memset(&in, 0, sizeof(in));
	hex(in.sha256, 9);
	in.size = 109;
	in.kind = AL_KIND_AUTO;
	in.name = "a";
	in.submitter = who;
	in.via = "tcp";
	in.labels = dup;
	in.nlabels = 2;
	/* The second label fails: no blob, submission, label or event stays. */
	ck_assert_int_eq(db_submission_create(db, &in, 1, NULL), AL_EEXIST);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM blobs"), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM submissions"), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM labels"), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events WHERE "
	    "action = 'submit'"), 0);
	/* Unknown via and a malformed digest are refused. */
	in.nlabels = 0;
	in.via = "carrier-pigeon";
	ck_assert_int_eq(db_submission_create(db, &in, 1, NULL), AL_EINVAL);
	in.via = "tcp";
	memcpy(in.sha256, "XYZ", 4);
	ck_assert_int_eq(db_submission_create(db, &in, 1, NULL), AL_EINVAL);
	memset(in.sha256, 'a', sizeof(in.sha256));
	ck_assert_int_eq(db_submission_create(db, &in, 1, NULL), AL_EINVAL);
}
END_TEST

START_TEST(same_bytes_one_blob)
{
	struct db_submission in;
	int64_t who = principal("agent-1", DB_ROLE_AGENT, 1), a, b;

	a = submit(db, who, 7, 1);
	b = submit(db, who, 7, 2);
	ck_assert_int_ne(a, b);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM blobs"), 1);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM submissions"), 2);
	ck_assert_int_eq(raw_int("SELECT stored_at FROM blobs"), 1);
	/* The same digest with another size cannot be the same bytes. */
	memset(&in, 0, sizeof(in));
	hex(in.sha256, 7);
	in.size = 1;
	in.kind = AL_KIND_AUTO;
	in.name = "a";
	in.submitter = who;
	in.via = "tcp";
	ck_assert_int_eq(db_submission_create(db, &in, 3, NULL), AL_EINVAL);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM submissions"), 2);
}
END_TEST

/* A page query with every filter off, newest first, 100 rows. */
static struct db_page_query
page_any(void)
{
	struct db_page_query q;

	memset(&q, 0, sizeof(q));
	q.state = -1;
	q.kind = -1;
	q.min_worst = AL_SEV_NONE;
	q.sort = DB_PAGE_NEWEST;
	q.limit = 100;
	return q;
}

/* The ids of q's page, in order, into ids (room for 32); their number,
 * and in *more whether there are more. */
static size_t
page_ids(const struct db_page_query *q, int64_t *ids, int *more)
{
	struct db_page_row *v;
	size_t n, i;

	ck_assert_int_eq(db_submission_page(db, q, &pol_page, &v, &n, more), 0);
	ck_assert_uint_le(n, 32);
	for (i = 0; i < n; i++)
		ids[i] = v[i].sub.id;
	db_submission_page_free(v, n);
	return n;
}

START_TEST(list_filters)
{
	struct db_page_row *v;
	struct db_page_query q = page_any();
	struct db_scan_job job;
	int64_t counts[AL_STATE_MAX], got[32];
	size_t n, i;
	int more;
	int64_t a = principal("a", DB_ROLE_AGENT, 1);
	int64_t b = principal("b", DB_ROLE_AGENT, 2);
	int64_t ids[5];

	ids[0] = submit(db, a, 1, 10);
	ids[1] = submit(db, b, 2, 11);
	ids[2] = submit(db, a, 3, 12);
	ids[3] = submit(db, b, 4, 13);
	ids[4] = submit(db, a, 5, 14);
	ck_assert_int_eq(db_scan_claim(db, "d", "e", 20, &job), 0);
	ck_assert_int_eq(job.submission_id, ids[0]);
	db_scan_job_clear(&job);

	ck_assert_int_eq(db_submission_page(db, &q, &pol_page, &v, &n, &more),
	    0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(more, 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(v[i].sub.id, ids[4 - i]);
	db_submission_page_free(v, n);

	q.state = al_state_parse("received");
	q.submitter = a;
	ck_assert_int_eq(db_submission_page(db, &q, &pol_page, &v, &n, &more),
	    0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[0].sub.id, ids[4]);
	ck_assert_int_eq(v[1].sub.id, ids[2]);
	ck_assert_str_eq(v[1].sub.submitter_name, "a");
	db_submission_page_free(v, n);

	q = page_any();
	q.state = al_state_parse("scanning");
	ck_assert_uint_eq(page_ids(&q, got, &more), 1);
	ck_assert_int_eq(got[0], ids[0]);

	q = page_any();
	q.submitter = b;
	q.limit = 1;
	ck_assert_uint_eq(page_ids(&q, got, &more), 1);
	ck_assert_int_eq(got[0], ids[3]);
	ck_assert_int_eq(more, 1);

	q = page_any();
	q.state = al_state_parse("approved");
	ck_assert_uint_eq(page_ids(&q, got, &more), 0);
	ck_assert_int_eq(more, 0);

	/* What the gate never asks is refused, not guessed at. */
	q = page_any();
	q.limit = 0;
	ck_assert_int_eq(db_submission_page(db, &q, &pol_page, &v, &n, &more),
	    AL_EINVAL);
	q.limit = DB_PAGE_MAX + 1;
	ck_assert_int_eq(db_submission_page(db, &q, &pol_page, &v, &n, &more),
	    AL_EINVAL);

	ck_assert_int_eq(db_submission_counts(db, counts), 0);
	ck_assert_uint_eq(AL_STATE_MAX, 7);
	for (i = 0; i < AL_STATE_MAX; i++) {
		if (strcmp(al_state_name((enum al_state)i), "received") == 0)
			ck_assert_int_eq(counts[i], 4);
		else if (strcmp(al_state_name((enum al_state)i), "scanning") == 0)
			ck_assert_int_eq(counts[i], 1);
		else
			ck_assert_int_eq(counts[i], 0);
	}
}
END_TEST

/* A submission of who, launched for launched (may be NULL), scanned with
 * one finding at worst (none for AL_SEV_NONE) and read as kind; its id. */
static int64_t
scanned_as(int64_t who, int blob, const char *launched, enum al_verdict verdict,
    enum al_severity worst, enum al_kind kind, int64_t now)
{
	struct db_submission in;
	struct db_scan_job j;
	struct db_finding f;
	int64_t id = 0;

	memset(&in, 0, sizeof(in));
	hex(in.sha256, blob);
	in.size = 100 + blob;
	in.kind = AL_KIND_AUTO;
	in.name = "x";
	in.submitter = who;
	in.launched_by = (char *)(uintptr_t)launched;
	in.peer_uid = -1;
	in.peer_pid = -1;
	in.via = "socket";
	ck_assert_int_eq(db_submission_create(db, &in, now, &id), 0);
	memset(&f, 0, sizeof(f));
	f.rule = "r";
	f.severity = worst;
	f.path = "x";
	f.fingerprint = "fp";
	ck_assert_int_eq(db_scan_claim(db, "rs1", "v", now + 1, &j), 0);
	ck_assert_int_eq(j.submission_id, id);
	ck_assert_int_eq(db_scan_finish(db, &j, verdict, worst, kind, &f,
	    worst == AL_SEV_NONE ? 0 : 1, NULL, 0, NULL, now + 2), 0);
	db_scan_job_clear(&j);
	return id;
}

/* Asserts that q's page is exactly want[0..n), and that going through it
 * two rows at a time, each page after the last row of the one before (as
 * the API's cursor does), gives the same rows once each. */
static void
page_is(struct db_page_query q, const int64_t *want, size_t n)
{
	struct db_page_row *v;
	int64_t got[32];
	size_t k, i, seen = 0;
	int more, pages = 0;

	ck_assert_uint_eq(page_ids(&q, got, &more), n);
	ck_assert_int_eq(more, 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(got[i], want[i]);
	q.limit = 2;
	do {
		ck_assert_int_eq(db_submission_page(db, &q, &pol_page, &v, &k,
		    &more), 0);
		for (i = 0; i < k; i++, seen++) {
			ck_assert_uint_lt(seen, n);
			ck_assert_int_eq(v[i].sub.id, want[seen]);
		}
		ck_assert_int_eq(more, seen < n);
		if (k > 0) {
			q.after = 1;
			q.after_id = v[k - 1].sub.id;
			q.after_worst = v[k - 1].sub.worst;
		}
		db_submission_page_free(v, k);
		ck_assert_int_lt(++pages, 20);
	} while (more);
	ck_assert_uint_eq(seen, n);
}

/* Severity at least, the gate's kind, the agent, the launched-for person
 * as the gate folds names, the three orders, and every one a page at a
 * time past a key. */
START_TEST(page_filters_sort_and_cursor)
{
	struct db_page_query q = page_any();
	int64_t a1 = principal("ag-1", DB_ROLE_AGENT, 1);
	int64_t a2 = principal("ag-2", DB_ROLE_AGENT, 2);
	int64_t s1 = scanned_as(a1, 1, "Alice", AL_VERDICT_FLAGGED,
	    AL_SEV_MEDIUM, AL_KIND_PATCH, 10);
	int64_t s2 = scanned_as(a2, 2, "bob", AL_VERDICT_FLAGGED,
	    AL_SEV_CRITICAL, AL_KIND_ARCHIVE, 20);
	int64_t s3 = scanned_as(a1, 3, "  ALICE ", AL_VERDICT_CLEAN,
	    AL_SEV_NONE, AL_KIND_FILE, 30);
	int64_t s4 = scanned_as(a1, 4, NULL, AL_VERDICT_FLAGGED, AL_SEV_HIGH,
	    AL_KIND_PATCH, 40);
	/* U+0130: a name fold.h refuses; it matches no person. */
	int64_t s5 = scanned_as(a2, 5, "\xc4\xb0", AL_VERDICT_FLAGGED,
	    AL_SEV_LOW, AL_KIND_FILE, 50);
	int64_t s6 = submit(db, a1, 6, 60);     /* not scanned yet */

	{
		const int64_t all[] = {s6, s5, s4, s3, s2, s1};
		const int64_t old[] = {s1, s2, s3, s4, s5, s6};
		const int64_t sev[] = {s2, s4, s1, s5, s6, s3};

		page_is(q, all, 6);
		q.sort = DB_PAGE_OLDEST;
		page_is(q, old, 6);
		q.sort = DB_PAGE_SEVERITY;
		page_is(q, sev, 6);
	}
	{
		const int64_t high[] = {s4, s2}, any[] = {s5, s4, s2, s1};
		const int64_t high_sev[] = {s2, s4};

		q = page_any();
		q.min_worst = AL_SEV_HIGH;
		page_is(q, high, 2);
		q.sort = DB_PAGE_SEVERITY;
		page_is(q, high_sev, 2);
		q = page_any();
		q.min_worst = AL_SEV_INFO;
		page_is(q, any, 4);
		q.min_worst = AL_SEV_CRITICAL;
		page_is(q, &s2, 1);
	}
	{
		const int64_t patch[] = {s4, s1}, file[] = {s5, s3};

		q = page_any();
		q.kind = AL_KIND_PATCH;
		page_is(q, patch, 2);
		q.kind = AL_KIND_FILE;
		page_is(q, file, 2);
		q.kind = AL_KIND_BUNDLE;
		page_is(q, NULL, 0);
	}
	{
		const int64_t two[] = {s5, s2}, alice[] = {s3, s1};
		const int64_t mix[] = {s4, s1};

		q = page_any();
		q.agent = "ag-2";
		page_is(q, two, 2);
		q.agent = "ag-";        /* a name, not a part of one */
		page_is(q, NULL, 0);
		q = page_any();
		q.person = "alice";     /* the key: "Alice" and "  ALICE " */
		page_is(q, alice, 2);
		q.person = "bob";
		page_is(q, &s2, 1);
		q.person = "Alice";     /* a key is folded already */
		page_is(q, NULL, 0);
		/* Filters together: held, medium or worse, of ag-1. */
		q = page_any();
		q.state = AL_STATE_HELD;
		q.min_worst = AL_SEV_MEDIUM;
		q.agent = "ag-1";
		page_is(q, mix, 2);
		q.submitter = a2;       /* an agent's own only: none of ag-1 */
		page_is(q, NULL, 0);
	}
}
END_TEST

/* ---- scans -------------------------------------------------------------- */

START_TEST(claim_in_order)
{
	struct db_scan_job j1, j2, j3;
	int64_t who = principal("a", DB_ROLE_AGENT, 1);
	int64_t s1 = submit(db, who, 1, 10), s2 = submit(db, who, 2, 11);
	struct db_submission s;

	ck_assert_int_eq(db_scan_claim(db, "rs1", "0.1", 20, &j1), 0);
	ck_assert_int_eq(j1.submission_id, s1);
	ck_assert_str_eq(al_kind_name(j1.kind), "auto");
	ck_assert_str_eq(j1.name, "out.tar.gz");
	ck_assert_int_gt(j1.scan_id, 0);
	hex(s.sha256, 1);
	ck_assert_str_eq(j1.sha256, s.sha256);
	ck_assert_int_eq(db_scan_claim(db, "rs1", "0.1", 21, &j2), 0);
	ck_assert_int_eq(j2.submission_id, s2);
	ck_assert_int_ne(j2.scan_id, j1.scan_id);
	ck_assert_int_eq(db_scan_claim(db, "rs1", "0.1", 22, &j3),
	    AL_ENOTFOUND);
	ck_assert_int_eq(db_submission_get(db, s1, &s), 0);
	ck_assert_str_eq(al_state_name(s.state), "scanning");
	db_submission_clear(&s);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM scans WHERE "
	    "ruleset_digest = 'rs1' AND engine_version = '0.1' AND "
	    "finished_at IS NULL"), 2);
	db_scan_job_clear(&j1);
	db_scan_job_clear(&j2);
}
END_TEST

#define RACE_SUBS 300

static pthread_barrier_t race_start;

struct racer {
	int64_t got[RACE_SUBS];
	size_t n;
	int rc;           /* the first unexpected error, 0 if none */
	char msg[256];
};

static void *
race(void *arg)
{
	struct timespec pause = {0, 300000};
	struct racer *r = arg;
	struct db_scan_job j;
	struct db *d;
	int rc;

	r->rc = db_open(&d, path, 0);
	if (r->rc < 0)
		snprintf(r->msg, sizeof(r->msg), "%s", al_err_msg());
	/* Both connections open before either claims: they do race. */
	pthread_barrier_wait(&race_start);
	if (r->rc < 0)
		return NULL;
	while ((rc = db_scan_claim(d, "rs", "v", 1, &j)) == 0) {
		if (r->n < RACE_SUBS)
			r->got[r->n] = j.submission_id;
		r->n++;
		/* A scan takes a while; without a pause one connection
		 * would hold the lock from one claim to the next. */
		nanosleep(&pause, NULL);
		rc = db_scan_finish(d, &j, AL_VERDICT_CLEAN, AL_SEV_NONE, AL_KIND_FILE, NULL, 0, NULL, 0, NULL, 2);
		db_scan_job_clear(&j);
		if (rc < 0)
			break;
	}
	if (rc != AL_ENOTFOUND) {
		r->rc = rc;
		snprintf(r->msg, sizeof(r->msg), "%s", al_err_msg());
	}
	db_close(d);
	return NULL;
}

/* Each thread its own connection, as the gate's workers will have. */
START_TEST(concurrent_claims_disjoint)
{
	static struct racer r[2];
	static char seen[RACE_SUBS + 1];
	pthread_t t[2];
	int64_t who = principal("a", DB_ROLE_AGENT, 1), first = 0, id;
	size_t i, k;

	for (i = 0; i < RACE_SUBS; i++) {
		id = submit(db, who, (int)i, (int64_t)i);
		if (i == 0)
			first = id;
	}
	memset(r, 0, sizeof(r));
	memset(seen, 0, sizeof(seen));
	ck_assert_int_eq(pthread_barrier_init(&race_start, NULL, 2), 0);
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_create(&t[k], NULL, race, &r[k]), 0);
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_join(t[k], NULL), 0);
	pthread_barrier_destroy(&race_start);
	for (k = 0; k < 2; k++) {
		ck_assert_msg(r[k].rc == 0, "racer %zu: %d %s", k, r[k].rc,
		    r[k].msg);
		for (i = 0; i < r[k].n; i++) {
			id = r[k].got[i] - first;
			ck_assert(id >= 0 && id < RACE_SUBS);
			ck_assert_msg(!seen[id], "submission %lld claimed twice",
			    (long long)r[k].got[i]);
			seen[id] = 1;
		}
		ck_assert_msg(r[k].n > 0, "racer %zu claimed nothing", k);
		/* Each connection takes its claims oldest first. */
		for (i = 1; i < r[k].n; i++)
			ck_assert_int_lt(r[k].got[i - 1], r[k].got[i]);
	}
	ck_assert_uint_eq(r[0].n + r[1].n, RACE_SUBS);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM scans"), RACE_SUBS);
	ck_assert_int_eq(raw_int("SELECT count(DISTINCT submission_id) FROM "
	    "scans"), RACE_SUBS);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM submissions WHERE "
	    "state = 'held'"), RACE_SUBS);
}
END_TEST

START_TEST(requeue_after_crash)
{
	struct db_scan_job j, j2;
	struct db_submission s;
	int64_t who = principal("a", DB_ROLE_AGENT, 1);
	int64_t s1 = submit(db, who, 1, 10);
	size_t n;

	submit(db, who, 2, 11);
	ck_assert_int_eq(db_scan_claim(db, "rs", "v", 20, &j), 0);
	/* The gate dies mid-scan: nothing finishes the job. */
	db_close(db);
	ck_assert_int_eq(db_open(&db, path, 0), 0);
	ck_assert_int_eq(db_scan_requeue(db, 30, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(db_submission_get(db, s1, &s), 0);
	ck_assert_str_eq(al_state_name(s.state), "received");
	db_submission_clear(&s);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM scans WHERE "
	    "outcome = 'interrupted' AND finished_at = 30"), 1);
	ck_assert_int_eq(db_scan_requeue(db, 31, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* The old job cannot finish a requeued submission... */
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_CLEAN, AL_SEV_NONE, AL_KIND_FILE, NULL, 0, NULL, 0, NULL,
	    32), AL_EINVAL);
	/* ...it is claimed again, first in line, under a new scan. */
	ck_assert_int_eq(db_scan_claim(db, "rs", "v", 33, &j2), 0);
	ck_assert_int_eq(j2.submission_id, s1);
	ck_assert_int_gt(j2.scan_id, j.scan_id);
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_CLEAN, AL_SEV_NONE, AL_KIND_FILE, NULL, 0, NULL, 0, NULL,
	    34), AL_EINVAL);
	ck_assert_int_eq(db_scan_finish(db, &j2, AL_VERDICT_CLEAN, AL_SEV_NONE, AL_KIND_FILE, NULL, 0, NULL, 0, NULL,
	    35), 0);
	/* The latest scan is the one that finished, not the interrupted. */
	{
		struct db_scan_info si;

		ck_assert_int_eq(db_scan_latest(db, s1, &si), 0);
		ck_assert_int_eq(si.id, j2.scan_id);
		ck_assert_int_eq(si.started_at, 33);
		ck_assert_int_eq(si.finished_at, 35);
		ck_assert_str_eq(al_verdict_name(si.outcome), "clean");
		ck_assert_str_eq(si.ruleset_digest, "rs");
		db_scan_info_clear(&si);
	}
	db_scan_job_clear(&j);
	db_scan_job_clear(&j2);
}
END_TEST

START_TEST(finish_records_findings)
{
	struct db_finding f[2] = {
		{"github-token", AL_SEV_CRITICAL, "src/a.py", 12, 7, "ghp_*****",
		    "fp1"},
		{"todo-note", AL_SEV_INFO, "README", 1, 1, NULL, NULL},
	};
	struct db_item items[2] = {
		{"x.tar!/src/a.py", 0100644, 12, "e3b0c44298fc1c149afbf4c8996fb924"
		    "27ae41e4649b934ca495991b7852b855", "text/plain",
		    AL_CONTENT_KEPT},
		{"x.tar!/big.bin", 0100755, 99, "", "application/octet-stream",
		    AL_CONTENT_PARTIAL},
	};
	struct db_finding *got;
	struct db_item *gi;
	struct db_scan_job j;
	struct db_submission s;
	int64_t who = principal("a", DB_ROLE_AGENT, 1);
	int64_t id = submit(db, who, 1, 10);
	size_t n, ni;

	ck_assert_int_eq(db_findings_get(db, id, &got, &n), 0);
	ck_assert_uint_eq(n, 0);
	db_findings_free(got, n);
	ck_assert_int_eq(db_scan_claim(db, "rs", "v", 20, &j), 0);
	/* A verdict the schema does not know rolls the whole finish back. */
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_MAX, AL_SEV_CRITICAL, AL_KIND_FILE, f, 2, NULL, 0, NULL,
	    29), AL_EINVAL);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM findings"), 0);
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_FLAGGED, AL_SEV_CRITICAL, AL_KIND_FILE, f, 2,
	    items, 2, NULL, 30), 0);
	ck_assert_int_eq(db_items_get(db, id, &gi, &ni), 0);
	ck_assert_uint_eq(ni, 2);
	ck_assert_str_eq(gi[0].path, "x.tar!/src/a.py");
	ck_assert_int_eq(gi[0].mode, 0100644);
	ck_assert_int_eq(gi[0].size, 12);
	ck_assert_str_eq(gi[0].sha256, items[0].sha256);
	ck_assert_str_eq(gi[1].sha256, "");   /* not read to its end */
	ck_assert_str_eq(gi[1].type, "application/octet-stream");
	/* Whether the bytes were kept, and why not, is read back as named. */
	ck_assert_int_eq(gi[0].content, AL_CONTENT_KEPT);
	ck_assert_int_eq(gi[1].content, AL_CONTENT_PARTIAL);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM items WHERE content = "
	    "'kept'"), 1);
	db_items_free(gi, ni);
	ck_assert_int_eq(db_submission_get(db, id, &s), 0);
	ck_assert_str_eq(al_state_name(s.state), "held");
	ck_assert_str_eq(al_verdict_name(s.verdict), "flagged");
	ck_assert_str_eq(al_severity_name(s.worst), "critical");
	db_submission_clear(&s);
	ck_assert_int_eq(db_findings_get(db, id, &got, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(got[0].rule, "github-token");
	ck_assert_str_eq(al_severity_name(got[0].severity), "critical");
	ck_assert_str_eq(got[0].path, "src/a.py");
	ck_assert_int_eq(got[0].line, 12);
	ck_assert_int_eq(got[0].column, 7);
	ck_assert_str_eq(got[0].excerpt, "ghp_*****");
	ck_assert_str_eq(got[0].fingerprint, "fp1");
	ck_assert_str_eq(got[1].rule, "todo-note");
	ck_assert_ptr_null(got[1].excerpt);
	db_findings_free(got, n);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM scans WHERE "
	    "finished_at = 30 AND outcome = 'flagged' AND error IS NULL"), 1);
	/* Finishing twice is refused. */
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_CLEAN, AL_SEV_NONE, AL_KIND_FILE, NULL, 0, NULL, 0, NULL,
	    31), AL_EINVAL);
	db_scan_job_clear(&j);
}
END_TEST

START_TEST(unscannable_with_error)
{
	struct db_scan_job j;
	struct db_finding *got;
	size_t n;
	int64_t who = principal("a", DB_ROLE_AGENT, 1);
	int64_t id = submit(db, who, 1, 10);

	ck_assert_int_eq(db_scan_claim(db, "rs", "v", 20, &j), 0);
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_UNSCANNABLE, AL_SEV_NONE, AL_KIND_FILE, NULL, 0, NULL, 0,
	    "child timed out", 30), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM scans WHERE "
	    "error = 'child timed out' AND outcome = 'unscannable'"), 1);
	ck_assert_int_eq(db_findings_get(db, id, &got, &n), 0);
	ck_assert_uint_eq(n, 0);
	db_findings_free(got, n);
	db_scan_job_clear(&j);
}
END_TEST

/* ---- events ------------------------------------------------------------- */

START_TEST(events_append_only)
{
	char msg[256];
	int64_t before;

	principal("root", DB_ROLE_ADMIN, 1);
	ck_assert_int_eq(db_event_add(db, 5, 0, "note", 0, "hello"), 0);
	before = raw_int("SELECT count(*) FROM events");
	ck_assert_int_eq(before, 4);      /* audit.begin, person.add,
	                                   * token.create, note */
	ck_assert_int_ne(raw_exec("UPDATE events SET action = 'forged'", msg,
	    sizeof(msg)), SQLITE_OK);
	ck_assert_ptr_nonnull(strstr(msg, "append-only"));
	ck_assert_int_ne(raw_exec("DELETE FROM events", msg, sizeof(msg)),
	    SQLITE_OK);
	ck_assert_ptr_nonnull(strstr(msg, "append-only"));
	ck_assert_int_ne(raw_exec("DELETE FROM events WHERE action = 'note'",
	    msg, sizeof(msg)), SQLITE_OK);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events"), before);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events WHERE "
	    "action = 'note' AND detail = 'hello'"), 1);
	ck_assert_int_eq(db_integrity_check(db), 0);
}
END_TEST

/* Every state change leaves its event, in order, with its actor. */
START_TEST(event_trail)
{
	static const char *const all[] = {
		"audit.begin", "person.add", "token.create", "person.add",
		"token.create",
		"submit", "scan.start", "scan.resume", "scan.start",
		"scan.finish", "token.revoke",
	};
	static const char *const one[] = {
		"submit", "scan.start", "scan.resume", "scan.start",
		"scan.finish",
	};
	struct db_scan_job j;
	struct db_event *v;
	char h[65];
	size_t n, i;
	int64_t admin, agent, id;

	admin = principal("root", DB_ROLE_ADMIN, 1);
	hex(h, 2);
	person("alice");
	ck_assert_int_eq(db_principal_create(db, "agent-1", DB_ROLE_AGENT, h,
	    "alice", 0, 11, admin, &agent), 0);
	id = submit(db, agent, 1, 12);
	ck_assert_int_eq(db_scan_claim(db, "rs", "v", 13, &j), 0);
	db_scan_job_clear(&j);
	ck_assert_int_eq(db_scan_requeue(db, 14, &n), 0);
	ck_assert_int_eq(db_scan_claim(db, "rs", "v", 15, &j), 0);
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_CLEAN, AL_SEV_NONE, AL_KIND_FILE, NULL, 0, NULL, 0, NULL,
	    16), 0);
	db_scan_job_clear(&j);
	ck_assert_int_eq(db_principal_revoke(db, "agent-1", 17, admin), 0);

	ck_assert_int_eq(db_event_list(db, 0, &v, &n), 0);
	ck_assert_uint_eq(n, sizeof(all) / sizeof(all[0]));
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(v[i].action, all[i]);
		if (i > 0)
			ck_assert_int_gt(v[i].id, v[i - 1].id);
	}
	ck_assert_int_eq(v[0].actor, 0);          /* the new database's */
	ck_assert_int_eq(v[2].actor, 0);          /* init: the system */
	ck_assert_ptr_null(v[2].actor_name);
	ck_assert_str_eq(v[4].actor_name, "root");
	ck_assert_ptr_nonnull(strstr(v[4].detail, "agent-1"));
	ck_assert_ptr_nonnull(strstr(v[4].detail, "person=alice"));
	ck_assert_int_eq(v[5].actor, agent);
	ck_assert_int_eq(v[5].submission, id);
	ck_assert_int_eq(v[5].at, 12);
	ck_assert_int_eq(v[6].actor, 0);
	ck_assert_int_eq(v[10].actor, admin);
	ck_assert_int_eq(v[10].submission, 0);
	db_event_list_free(v, n);

	ck_assert_int_eq(db_event_list(db, id, &v, &n), 0);
	ck_assert_uint_eq(n, sizeof(one) / sizeof(one[0]));
	for (i = 0; i < n; i++)
		ck_assert_str_eq(v[i].action, one[i]);
	db_event_list_free(v, n);
}
END_TEST

/* ---- review --------------------------------------------------------------- */

static const struct db_policy pol = {1, 1, 2, 2};

/* A submission scanned (held) with these findings' fingerprints at worst
 * severity worst; returns its id. */
static int64_t
held_with(int64_t who, int blob, const char *verdict, const char *worst,
    const char *const *fps, size_t nfp, int64_t now)
{
	struct db_finding f[4];
	struct db_scan_job j;
	int64_t id = submit(db, who, blob, now);
	size_t i;

	for (i = 0; i < nfp; i++) {
		f[i].rule = "r";
		f[i].severity = (enum al_severity)al_severity_parse(worst);
		f[i].path = "x";
		f[i].line = 1;
		f[i].column = 1;
		f[i].excerpt = NULL;
		f[i].fingerprint = (char *)(uintptr_t)fps[i];
	}
	ck_assert_int_eq(db_scan_claim(db, "rs1", "v", now + 1, &j), 0);
	ck_assert_int_eq(j.submission_id, id);
	ck_assert_int_eq(db_scan_finish(db, &j,
	    (enum al_verdict)al_verdict_parse(verdict), nfp ?
	    (enum al_severity)al_severity_parse(worst) : AL_SEV_NONE,
	    AL_KIND_PATCH, f,
	    nfp, NULL, 0, NULL, now + 2), 0);
	db_scan_job_clear(&j);
	return id;
}

static int
approve(int64_t id, int64_t who, const char *sha, const char *rs,
    struct db_review *r)
{
	return db_approve(db, id, who, sha, rs, NULL, &pol, 100, r);
}

START_TEST(approvals_checked_and_counted)
{
	static const char *const fp[] = {"f1"};
	int64_t agent = principal("agent-1", DB_ROLE_AGENT, 1);
	int64_t bob = principal("bob", DB_ROLE_REVIEWER, 2);
	int64_t carol = principal("carol", DB_ROLE_REVIEWER, 3);
	int64_t alice = principal("alice", DB_ROLE_REVIEWER, 4);
	struct db_review r;
	char sha[65], other[65];
	int64_t id;

	int64_t alice2, bob2;
	char h[65];

	/* agent-1 launched for Alice (as the person "alice" is spelled
	 * under any case); alice and bob hold a second token each. */
	hex(h, 90);
	ck_assert_int_eq(db_principal_create(db, "agent-2", DB_ROLE_AGENT, h,
	    "ALICE", 0, 10, 0, &agent), 0);
	hex(h, 91);
	ck_assert_int_eq(db_principal_create(db, "alice-laptop",
	    DB_ROLE_REVIEWER, h, "alice", 0, 10, 0, &alice2), 0);
	hex(h, 92);
	ck_assert_int_eq(db_principal_create(db, "bob-laptop", DB_ROLE_REVIEWER,
	    h, "Bob", 0, 10, 0, &bob2), 0);
	id = held_with(agent, 7, "flagged", "critical", fp, 1, 10);
	hex(sha, 7);
	hex(other, 8);
	/* Not viewed yet. */
	ck_assert_int_eq(approve(id, bob, sha, "rs1", &r), AL_EDENIED);
	viewed(id, bob, 50);
	viewed(id, alice, 50);
	viewed(id, agent, 50);
	/* Other bytes, other rules, the submitter, the person behind it. */
	ck_assert_int_eq(approve(id, bob, other, "rs1", &r), AL_EDENIED);
	ck_assert_int_eq(approve(id, bob, sha, "rs0", &r), AL_EDENIED);
	ck_assert_int_eq(approve(id, agent, sha, "rs1", &r), AL_EDENIED);
	ck_assert_int_eq(approve(id, alice, sha, "rs1", &r), AL_EDENIED);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "separation of duties"));
	viewed(id, alice2, 50);
	ck_assert_int_eq(approve(id, alice2, sha, "rs1", &r), AL_EDENIED);
	ck_assert_int_eq(db_reject(db, id, alice2, "no", 51), AL_EDENIED);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM approvals"), 0);
	/* A range is not a reading. */
	ck_assert_int_eq(db_view_record(db, id, carol, -1, NULL, 1, NULL, 0,
	    "0-0", 52), 0);
	/* Critical: two distinct reviewers; the same one twice counts once. */
	ck_assert_int_eq(approve(id, bob, sha, "rs1", &r), 0);
	ck_assert_str_eq(al_state_name(r.state), "held");
	ck_assert_int_eq(r.approvals, 1);
	ck_assert_int_eq(r.needed, 2);
	db_review_clear(&r);
	ck_assert_int_eq(approve(id, bob, sha, "rs1", &r), AL_EEXIST);
	/* Bob's other token: the same person, counted once. */
	viewed(id, bob2, 55);
	ck_assert_int_eq(approve(id, bob2, sha, "rs1", &r), AL_EEXIST);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "counts once"));
	ck_assert_int_eq(approve(id, carol, sha, "rs1", &r), AL_EDENIED);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "review evidence"));
	viewed(id, carol, 60);
	ck_assert_int_eq(approve(id, carol, sha, "rs1", &r), 0);
	ck_assert_str_eq(al_state_name(r.state), "approved");
	ck_assert_int_eq(r.approvals, 2);
	db_review_clear(&r);
	/* Approved: no more approvals; release once. */
	viewed(id, alice, 60);
	ck_assert_int_eq(approve(id, alice, sha, "rs1", &r), AL_EDENIED);
	/* The launched-for person cannot release either. */
	ck_assert_int_eq(db_release(db, id, alice2, "{}", 199), AL_EDENIED);
	ck_assert_ptr_nonnull(strstr(al_err_msg(), "alice"));
	ck_assert_int_eq(db_release(db, id, carol, "{}", 200), 0);
	ck_assert_int_eq(db_release(db, id, carol, "{}", 201), AL_EDENIED);
	/* Decisions are append-only. */
	ck_assert_int_ne(raw_exec("DELETE FROM approvals", NULL, 0), SQLITE_OK);
	ck_assert_int_ne(raw_exec("UPDATE releases SET attestation = 'x'", NULL,
	    0), SQLITE_OK);
}
END_TEST

START_TEST(rescan_keeps_approvals_only_without_news)
{
	static const char *const one[] = {"f1"};
	static const char *const two[] = {"f1", "f2"};
	int64_t agent = principal("agent-1", DB_ROLE_AGENT, 1);
	int64_t bob = principal("bob", DB_ROLE_REVIEWER, 2);
	struct db_review r;
	struct db_scan_job j;
	struct db_finding f[2];
	char sha[65];
	size_t n, i;
	int64_t id = held_with(agent, 9, "flagged", "medium", one, 1, 10);

	hex(sha, 9);
	viewed(id, bob, 50);
	ck_assert_int_eq(approve(id, bob, sha, "rs1", &r), 0);
	ck_assert_str_eq(al_state_name(r.state), "approved");
	db_review_clear(&r);
	/* New rules: back in the queue; the same findings again: approved. */
	ck_assert_int_eq(db_rescan_stale(db, "rs2", 300, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(db_rescan_stale(db, "rs2", 301, &n), 0);
	ck_assert_uint_eq(n, 0);   /* nothing approved or held is stale */
	for (i = 0; i < 2; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].rule = "r";
		f[i].severity = AL_SEV_MEDIUM;
		f[i].path = "x";
		f[i].fingerprint = (char *)(uintptr_t)two[i];
	}
	ck_assert_int_eq(db_scan_claim(db, "rs2", "v", 302, &j), 0);
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_FLAGGED, AL_SEV_MEDIUM, AL_KIND_FILE, f, 1, NULL,
	    0, NULL, 303), 0);
	db_scan_job_clear(&j);
	ck_assert_int_eq(db_review_settle(db, id, &pol, 304, &r), 0);
	ck_assert_str_eq(al_state_name(r.state), "approved");
	db_review_clear(&r);
	/* Newer rules again, and this time the scan finds more: held, and the
	 * old approval no longer counts. */
	ck_assert_int_eq(db_rescan_stale(db, "rs3", 400, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(db_scan_claim(db, "rs3", "v", 401, &j), 0);
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_FLAGGED, AL_SEV_MEDIUM, AL_KIND_FILE, f, 2, NULL,
	    0, NULL, 402), 0);
	db_scan_job_clear(&j);
	ck_assert_int_eq(db_review_settle(db, id, &pol, 403, &r), 0);
	ck_assert_str_eq(al_state_name(r.state), "held");
	ck_assert_int_eq(r.approvals, 0);
	db_review_clear(&r);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM events WHERE action = "
	    "'rescan'"), 2);
}
END_TEST

START_TEST(unscannable_needs_override_and_reject_is_final)
{
	int64_t agent = principal("agent-1", DB_ROLE_AGENT, 1);
	int64_t bob = principal("bob", DB_ROLE_REVIEWER, 2);
	int64_t carol = principal("carol", DB_ROLE_REVIEWER, 3);
	int64_t root = principal("root", DB_ROLE_ADMIN, 4);
	struct db_review r;
	char sha[65];
	int64_t id = held_with(agent, 11, "unscannable", "high", NULL, 0, 10);
	int64_t id2;

	hex(sha, 11);
	viewed(id, bob, 50);
	viewed(id, carol, 50);
	ck_assert_int_eq(approve(id, bob, sha, "rs1", &r), 0);
	db_review_clear(&r);
	ck_assert_int_eq(approve(id, carol, sha, "rs1", &r), 0);
	ck_assert_str_eq(al_state_name(r.state), "held");     /* two, but no override */
	db_review_clear(&r);
	ck_assert_int_eq(db_override(db, id, root, "read by hand", &pol, 60, &r),
	    0);
	ck_assert_str_eq(al_state_name(r.state), "approved");
	ck_assert(r.override);
	db_review_clear(&r);
	/* Rejected bytes stay rejected. */
	id2 = held_with(agent, 12, "clean", NULL, NULL, 0, 70);
	hex(sha, 12);
	ck_assert_int_eq(db_reject(db, id2, bob, "no", 80), 0);
	viewed(id2, bob, 81);
	ck_assert_int_eq(approve(id2, bob, sha, "rs1", &r), AL_EDENIED);
	ck_assert_int_eq(db_release(db, id2, bob, "{}", 90), AL_EDENIED);
	ck_assert_int_eq(db_reject(db, id2, bob, "again", 91), AL_EDENIED);
	/* Held too long: expired, and then not approvable. */
	{
		int64_t id3 = held_with(agent, 13, "clean", NULL, NULL, 0, 95);
		size_t n = 0;

		hex(sha, 13);
		ck_assert_int_eq(db_expire_held(db, 90, 1001, &n), 0);
		ck_assert_uint_eq(n, 0);          /* received at 95: not yet */
		ck_assert_int_eq(db_expire_held(db, 1000, 1001, &n), 0);
		ck_assert_uint_eq(n, 1);
		viewed(id3, bob, 1002);
		ck_assert_int_eq(approve(id3, bob, sha, "rs1", &r), AL_EDENIED);
	}
}
END_TEST

/* ---- what db_on_commit hears --------------------------------------------- */

static int64_t heard_change;
static int heard_calls, heard_revoked;

static void
hear(int64_t change, int revoked)
{
	heard_calls++;
	heard_change = change;
	heard_revoked += revoked;
}

static void
heard_reset(void)
{
	heard_calls = heard_revoked = 0;
	heard_change = 0;
}

/* The long-poll's wake-up (gate/serve/changes.c): each commit that
 * appended a change is heard once, with its newest change's id (the
 * submit, the scan thread's claim and result, a decision, a release, an
 * expiry); reads, refusals and events of no submission are not heard; a
 * revocation or a disabled person is heard as such, with no change; a
 * write that failed is not heard at all. */
START_TEST(commit_hook_hears_changes_only)
{
	int64_t agent = principal("agent-1", DB_ROLE_AGENT, 1);
	int64_t bob = principal("bob", DB_ROLE_REVIEWER, 2);
	int64_t root = principal("root", DB_ROLE_ADMIN, 3);
	struct db_scan_job j;
	struct db_review r;
	char sha[65];
	int64_t id, id2;
	size_t n;

	db_on_commit(hear);
	heard_reset();
	id = submit(db, agent, 1, 10);
	ck_assert_int_eq(heard_calls, 1);
	ck_assert_int_eq(heard_change, db_event_last_id(db));
	ck_assert_int_eq(heard_revoked, 0);
	ck_assert_int_eq(db_scan_claim(db, "rs1", "v", 11, &j), 0);
	ck_assert_int_eq(heard_calls, 2);
	ck_assert_int_eq(heard_change, db_event_last_id(db));
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_CLEAN, AL_SEV_NONE,
	    AL_KIND_FILE, NULL, 0, NULL, 0, NULL, 12), 0);
	db_scan_job_clear(&j);
	ck_assert_int_eq(heard_calls, 3);
	ck_assert_int_eq(heard_change, db_event_last_id(db));

	/* Reads, refusals, and what is on no submission. */
	heard_reset();
	viewed(id, bob, 20);
	ck_assert_int_eq(db_event_add(db, 21, bob, "approve.refused", id,
	    "no"), 0);
	ck_assert_int_eq(db_event_add(db, 22, bob, "login.refused", id,
	    "reason=role"), 0);
	ck_assert_int_eq(db_event_add(db, 23, 0, "login.refused", 0,
	    "reason=no-token"), 0);
	ck_assert_int_eq(db_event_add(db, 24, root, "rules.reload", 0, NULL),
	    0);
	ck_assert_int_eq(heard_calls, 0);

	/* A decision and a release; then the same approval again, refused
	 * and rolled back: not heard. */
	hex(sha, 1);
	ck_assert_int_eq(db_approve(db, id, bob, sha, "rs1", NULL, &pol, 30,
	    &r), 0);
	db_review_clear(&r);
	ck_assert_int_eq(heard_calls, 1);
	ck_assert_int_eq(heard_change, db_event_last_id(db));
	heard_reset();
	ck_assert_int_ne(db_approve(db, id, bob, sha, "rs1", NULL, &pol, 31,
	    &r), 0);
	ck_assert_int_eq(heard_calls, 0);
	ck_assert_int_eq(db_release(db, id, bob, "{}", 32), 0);
	ck_assert_int_eq(heard_calls, 1);
	ck_assert_int_eq(heard_change, db_event_last_id(db));

	/* An expiry, set-wise. */
	id2 = held_with(agent, 2, "clean", NULL, NULL, 0, 40);
	heard_reset();
	ck_assert_int_eq(db_expire_held(db, 1000, 1001, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(heard_calls, 1);
	ck_assert_int_eq(heard_change, db_event_last_id(db));
	ck_assert_int_gt(id2, id);

	/* Revocations: heard, with no change. */
	heard_reset();
	ck_assert_int_eq(db_principal_revoke(db, "agent-1", 50, root), 0);
	ck_assert_int_eq(heard_calls, 1);
	ck_assert_int_eq(heard_revoked, 1);
	ck_assert_int_eq(heard_change, 0);
	ck_assert_int_ne(db_principal_revoke(db, "agent-1", 51, root), 0);
	ck_assert_int_eq(heard_calls, 1);
	ck_assert_int_eq(db_person_disable(db, "bob", 52, root, &n), 0);
	ck_assert_int_eq(heard_calls, 2);
	ck_assert_int_eq(heard_revoked, 2);
	ck_assert_int_eq(heard_change, 0);

	db_on_commit(NULL);
	heard_reset();
	(void)submit(db, root, 3, 60);
	ck_assert_int_eq(heard_calls, 0);
}
END_TEST

/* Every row of the page of all submissions stands as db_review_get says
 * it does; the row of id in *out. */
static void
page_as_get(int64_t id, struct db_review *out)
{
	struct db_page_query q = page_any();
	struct db_page_row *v;
	struct db_review r;
	size_t n, i;
	int more, found = 0;

	ck_assert_int_eq(db_submission_page(db, &q, &pol, &v, &n, &more), 0);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(db_review_get(db, v[i].sub.id, &pol, &r), 0);
		ck_assert_msg(r.state == v[i].review.state &&
		    r.approvals == v[i].review.approvals &&
		    r.needed == v[i].review.needed &&
		    r.override == v[i].review.override, "submission %lld: the "
		    "page says %s %d/%d override %d, db_review_get %s %d/%d "
		    "override %d", (long long)v[i].sub.id,
		    al_state_name(v[i].review.state), v[i].review.approvals,
		    v[i].review.needed, v[i].review.override,
		    al_state_name(r.state), r.approvals, r.needed, r.override);
		if (v[i].sub.id == id) {
			*out = v[i].review;
			found = 1;
		}
	}
	db_submission_page_free(v, n);
	ck_assert_msg(found, "submission %lld is not on the page",
	    (long long)id);
}

/* Asserts the page's (and db_review_get's) standing of id. */
static void
stands(int64_t id, const char *state, int approvals, int needed, int ov)
{
	struct db_review r;

	page_as_get(id, &r);
	ck_assert_str_eq(al_state_name(r.state), state);
	ck_assert_int_eq(r.approvals, approvals);
	ck_assert_int_eq(r.needed, needed);
	ck_assert_int_eq(r.override, ov);
}

/* The rescan after a rule change: each claimed scan finishes with what
 * its submission finds now, then the standing is settled (as scanq.c
 * does). */
static void
rescan_all(int64_t d, int64_t f, const char *rs, int64_t now)
{
	static const char *const news[] = {"d1", "d2"};
	struct db_finding fd[2];
	struct db_scan_job j;
	struct db_review r;
	size_t i;

	for (i = 0; i < 2; i++) {
		memset(&fd[i], 0, sizeof(fd[i]));
		fd[i].rule = "r";
		fd[i].severity = AL_SEV_MEDIUM;
		fd[i].path = "x";
		fd[i].fingerprint = (char *)(uintptr_t)news[i];
	}
	while (db_scan_claim(db, rs, "v", now++, &j) == 0) {
		struct db_finding *ff = NULL;
		size_t nf = 0;
		enum al_verdict vd = AL_VERDICT_FLAGGED;
		enum al_severity w = AL_SEV_CRITICAL;
		struct db_finding one;
		char fp[8];

		if (j.submission_id == d) {
			ff = fd;
			nf = 2;         /* d2 is new: d's approval is void */
			w = AL_SEV_MEDIUM;
		} else if (j.submission_id == f) {
			vd = AL_VERDICT_UNSCANNABLE;
			w = AL_SEV_HIGH;
		} else {
			/* The same finding as before: approvals stand. */
			snprintf(fp, sizeof(fp), "x%lld",
			    (long long)j.submission_id);
			memset(&one, 0, sizeof(one));
			one.rule = "r";
			one.severity = AL_SEV_CRITICAL;
			one.path = "x";
			one.fingerprint = fp;
			ff = &one;
			nf = 1;
		}
		ck_assert_int_eq(db_scan_finish(db, &j, vd, w, AL_KIND_FILE, ff,
		    nf, NULL, 0, NULL, now++), 0);
		ck_assert_int_eq(db_review_settle(db, j.submission_id, &pol,
		    now++, &r), 0);
		db_scan_job_clear(&j);
	}
}

/* A critical submission of who, its one finding "x<id>"; its id. */
static int64_t
critical_of(int64_t who, int blob, int64_t now)
{
	struct db_finding f;
	struct db_scan_job j;
	char fp[8];
	int64_t id = submit(db, who, blob, now);

	snprintf(fp, sizeof(fp), "x%lld", (long long)id);
	memset(&f, 0, sizeof(f));
	f.rule = "r";
	f.severity = AL_SEV_CRITICAL;
	f.path = "x";
	f.fingerprint = fp;
	ck_assert_int_eq(db_scan_claim(db, "rs1", "v", now + 1, &j), 0);
	ck_assert_int_eq(j.submission_id, id);
	ck_assert_int_eq(db_scan_finish(db, &j, AL_VERDICT_FLAGGED,
	    AL_SEV_CRITICAL, AL_KIND_FILE, &f, 1, NULL, 0, NULL, now + 2), 0);
	db_scan_job_clear(&j);
	return id;
}

/*
 * The queue's counts are the decision's: a page of every submission
 * stands, row by row, as db_review_get says (and as approval and release
 * decide), through no approval, one, two (approved), an approval voided
 * by a rescan that found something new, approvals kept by one that did
 * not, a rejection, an override and an override voided by a rescan, and
 * a submission never scanned.
 */
START_TEST(page_counts_as_review_get)
{
	static const char *const d1[] = {"d1"};
	int64_t agent = principal("agent-1", DB_ROLE_AGENT, 1);
	int64_t bob = principal("bob", DB_ROLE_REVIEWER, 2);
	int64_t carol = principal("carol", DB_ROLE_REVIEWER, 3);
	int64_t root = principal("root", DB_ROLE_ADMIN, 4);
	struct db_review r;
	char sha[65];
	int64_t a, b, c, d, e, f, h;

	a = critical_of(agent, 21, 10);                 /* none */
	b = critical_of(agent, 22, 20);                 /* one */
	c = critical_of(agent, 23, 30);                 /* two */
	d = held_with(agent, 24, "flagged", "medium", d1, 1, 40);
	e = critical_of(agent, 25, 50);                 /* rejected */
	f = held_with(agent, 26, "unscannable", "high", NULL, 0, 60);
	stands(a, "held", 0, 2, 0);
	viewed(b, bob, 70);
	hex(sha, 22);
	ck_assert_int_eq(approve(b, bob, sha, "rs1", &r), 0);
	stands(b, "held", 1, 2, 0);
	viewed(c, bob, 71);
	viewed(c, carol, 71);
	hex(sha, 23);
	ck_assert_int_eq(approve(c, bob, sha, "rs1", &r), 0);
	ck_assert_int_eq(approve(c, carol, sha, "rs1", &r), 0);
	stands(c, "approved", 2, 2, 0);
	viewed(d, bob, 72);
	hex(sha, 24);
	ck_assert_int_eq(approve(d, bob, sha, "rs1", &r), 0);
	stands(d, "approved", 1, 1, 0);
	ck_assert_int_eq(db_reject(db, e, bob, "no", 73), 0);
	stands(e, "rejected", 0, 2, 0);
	viewed(f, bob, 74);
	viewed(f, carol, 74);
	hex(sha, 26);
	ck_assert_int_eq(approve(f, bob, sha, "rs1", &r), 0);
	ck_assert_int_eq(approve(f, carol, sha, "rs1", &r), 0);
	stands(f, "held", 2, 2, 0);
	ck_assert_int_eq(db_override(db, f, root, "read by hand", &pol, 75,
	    &r), 0);
	stands(f, "approved", 2, 2, 1);

	/* New rules: every held and approved one is scanned again. */
	{
		size_t n;

		ck_assert_int_eq(db_rescan_stale(db, "rs2", 100, &n), 0);
		ck_assert_uint_eq(n, 5);
	}
	stands(c, "received", 2, 2, 0); /* still the old scan's standing */
	rescan_all(d, f, "rs2", 110);
	stands(a, "held", 0, 2, 0);
	stands(b, "held", 1, 2, 0);     /* kept: nothing new */
	stands(c, "approved", 2, 2, 0);
	stands(d, "held", 0, 1, 0);     /* void: d2 is new */
	stands(e, "rejected", 0, 2, 0);
	stands(f, "held", 2, 2, 0);     /* the override was of the old scan */
	h = submit(db, agent, 27, 200);
	stands(h, "received", 0, 1, 0);
}
END_TEST

/* Events a page at a time (after an id, of one action, bounded), and a
 * rejection with its reason. */
START_TEST(event_page_and_rejection)
{
	int64_t agent = principal("agent-1", DB_ROLE_AGENT, 1);
	int64_t bob = principal("bob", DB_ROLE_REVIEWER, 2);
	struct db_event *v;
	char *who, *why;
	int64_t at, id = held_with(agent, 21, "clean", NULL, NULL, 0, 10);
	size_t n, i, total;

	ck_assert_int_eq(db_rejection_get(db, id, &who, &why, &at),
	    AL_ENOTFOUND);
	ck_assert_ptr_null(who);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(db_event_add(db, 20 + (int64_t)i, 0,
		    "login.refused", 0, "reason=unknown-token"), 0);
	ck_assert_int_eq(db_reject(db, id, bob, "pipes into sh", 40), 0);
	ck_assert_int_eq(db_rejection_get(db, id, &who, &why, &at), 0);
	ck_assert_str_eq(who, "bob");
	ck_assert_str_eq(why, "pipes into sh");
	ck_assert_int_eq(at, 40);
	free(who);
	free(why);

	ck_assert_int_eq(db_event_list(db, 0, &v, &n), 0);
	total = n;
	db_event_list_free(v, n);
	ck_assert_int_eq(db_event_page(db, 0, "login.refused", 3, &v, &n), 0);
	ck_assert_uint_eq(n, 3);
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(v[i].action, "login.refused");
		ck_assert_int_eq(v[i].submission, 0);
		ck_assert_ptr_null(v[i].actor_name);
	}
	at = v[2].id;
	db_event_list_free(v, n);
	ck_assert_int_eq(db_event_page(db, at, "login.refused", 100, &v, &n),
	    0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_gt(v[0].id, at);
	db_event_list_free(v, n);
	ck_assert_int_eq(db_event_page(db, 0, NULL, 1000, &v, &n), 0);
	ck_assert_uint_eq(n, total);
	ck_assert_str_eq(v[n - 1].action, "reject");
	ck_assert_int_eq(v[n - 1].submission, id);
	db_event_list_free(v, n);
}
END_TEST

static Suite *
db_suite(void)
{
	Suite *s = suite_create("db");
	TCase *tc;

	tc = tcase_create("open");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reopen_keeps_data_and_schema);
	tcase_add_test(tc, wal_and_foreign_keys_on);
	tcase_add_test(tc, missing_without_create);
	tcase_add_test(tc, created_0600_whatever_the_umask);
	tcase_add_test(tc, newer_schema_refused);
	tcase_add_test(tc, not_a_database);
	suite_add_tcase(s, tc);
	tc = tcase_create("principals");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, principals_create_lookup);
	tcase_add_test(tc, principal_duplicates_refused);
	tcase_add_test(tc, revoke_once);
	tcase_add_test(tc, guard_refuses_writes_of_a_token_gone_bad);
	tcase_add_test(tc, role_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("submissions");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, submission_with_labels);
	tcase_add_test(tc, submission_atomic);
	tcase_add_test(tc, same_bytes_one_blob);
	tcase_add_test(tc, list_filters);
	tcase_add_test(tc, page_filters_sort_and_cursor);
	suite_add_tcase(s, tc);
	tc = tcase_create("scans");
	tcase_add_checked_fixture(tc, setup, teardown);
	/* Hundreds of durable (fsync'd) commits: slow on a loaded disk. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, claim_in_order);
	tcase_add_test(tc, concurrent_claims_disjoint);
	tcase_add_test(tc, requeue_after_crash);
	tcase_add_test(tc, finish_records_findings);
	tcase_add_test(tc, unscannable_with_error);
	suite_add_tcase(s, tc);
	tc = tcase_create("review");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, approvals_checked_and_counted);
	tcase_add_test(tc, rescan_keeps_approvals_only_without_news);
	tcase_add_test(tc, unscannable_needs_override_and_reject_is_final);
	tcase_add_test(tc, commit_hook_hears_changes_only);
	tcase_add_test(tc, page_counts_as_review_get);
	suite_add_tcase(s, tc);
	tc = tcase_create("events");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, events_append_only);
	tcase_add_test(tc, event_trail);
	tcase_add_test(tc, event_page_and_rejection);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(db_suite()) ? 1 : 0;
}
