/*
 * serve.c - `airlock serve`: start-up, signals and the end; see serve.h
 * for the service's files and docs/api.md for its contract.
 *
 * Start-up order matters: the rules compile and the scan launchers fork
 * while the process is still single-threaded and holds no secrets (no
 * database, no tokens); only then do the database, the store and the HTTP
 * threads start. SIGTERM stops the listeners (libmicrohttpd lets requests
 * in flight finish), then the scan threads after their current artifact;
 * what was mid-scan is scanned again at the next start (the queue is in
 * the database).
 *
 * Trust: requests are hostile until authenticated, and bounded before:
 * header sizes by libmicrohttpd, bodies by --max-body, JSON by
 * SERVE_MAX_JSON. Artifact bytes are never parsed here: they go to the
 * store, and from there to a scan child.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest.h"
#include "dirs.h"
#include "err.h"
#include "gate.h"
#include "os.h"
#include "scan.h"
#include "serve.h"
#include "util.h"

static const char serve_usage[] =
    "usage: airlock serve [options]\n"
    "\n"
    "Runs the gate: the review/API listener on loopback TCP and the intake\n"
    "unix socket for agent sandboxes; scans submissions in sandboxed\n"
    "children as they arrive. Stops cleanly on SIGTERM or SIGINT; SIGHUP\n"
    "(or airlock rules reload) reloads the rules and the policy and rescans\n"
    "what is held; a reload whose rules or policy do not load is refused,\n"
    "and the gate goes on with the old ones. One gate per data directory\n"
    "(DIR/serve.lock).\n"
    "\n"
    "options:\n"
    "  --data DIR            data directory made by `airlock init`\n"
    "                        (default: $AIRLOCK_DATA, or ./var)\n"
    "  --listen HOST:PORT    API listener (default 127.0.0.1:8420)\n"
    "  --intake-socket PATH  intake socket (default DIR/intake.sock)\n"
    "  --scanners N          artifacts scanned at once (default: CPUs)\n"
    "  --max-body SIZE       largest artifact accepted (default 256M)\n"
    "  --max-connections N   connections open per listener (default 256;\n"
    "                        a quarter of it per client)\n"
    "  --header-timeout S    seconds a request's headers may take (default 10)\n"
    "  --body-timeout S      seconds in which a body must bring 16 KiB, and\n"
    "                        an answer move (default 60)\n"
    "  --rules DIR           rule directory (default as airlock scan)\n"
    "  --ui DIR              the review UI's files, served at /ui/ (default:\n"
    "                        $AIRLOCK_UI_DIR, else review-ui/ beside the\n"
    "                        build directory, else the installed one)\n"
    "  --timeout SECONDS     wall-clock limit per artifact scan (default 120)\n"
    "  --signing-key FILE    the private signing key, kept outside the data\n"
    "                        directory (default: $AIRLOCK_SIGNING_KEY, else\n"
    "                        DATA/keys/signing.key); mode 0600, and the key\n"
    "                        DATA/keys/signing.pub names\n"
    "  --check-config        load the rules, DATA/policy and the review UI,\n"
    "                        check the data directory, and exit: 0 valid,\n"
    "                        1 not, 2 usage\n"
    "  -h, --help            this help\n";

static volatile sig_atomic_t got_signal;
static char **serve_argv;         /* to start again on SIGHUP */

/* This thread's database connection, opened on first use. */
struct db *
srv_db(struct srv *s)
{
	struct db *db = pthread_getspecific(s->dbkey);

	if (db != NULL)
		return db;
	if (db_open(&db, s->dbpath, 0) < 0)
		return NULL;
	pthread_mutex_lock(&s->dbs_lock);
	if (s->ndbs == sizeof(s->dbs) / sizeof(s->dbs[0])) {
		pthread_mutex_unlock(&s->dbs_lock);
		db_close(db);
		al_err_set(AL_ELIMIT, "too many database connections");
		return NULL;
	}
	s->dbs[s->ndbs++] = db;
	pthread_mutex_unlock(&s->dbs_lock);
	pthread_setspecific(s->dbkey, db);
	return db;
}

/*
 * A reload must not stop the gate over a typo: the rules on disk are loaded
 * and compiled, and the policy read into a scratch copy, before anything is
 * restarted; if either fails the reload is refused, the gate goes on with
 * what it has, and the reason goes to the log (and to `airlock rules
 * reload`). `serve --check-config` runs the same check.
 */
int
srv_config_check(struct srv *s, struct dynbuf *why)
{
	struct rule_set *rs = NULL;
	struct scan_engine *e = NULL;
	struct srv scratch;
	size_t nerr = 0;
	int rc;

	if ((rc = rule_set_load(&rs, s->rules_dir, 0, why, &nerr)) == 0)
		rc = scan_engine_new(&e, rs, s->cache);
	if (rc < 0) {
		char m[512];          /* al_err_set writes over al_err_msg() */

		(void)snprintf(m, sizeof(m), "%s", al_err_msg());
		rc = al_err_set(rc, "the rules in %s: %s", s->rules_dir, m);
	}
	scan_engine_free(e);
	rule_set_free(rs);
	if (rc < 0)
		return rc;
	memset(&scratch, 0, sizeof(scratch));
	scratch.datadir = s->datadir;
	if ((rc = srv_policy_load(&scratch)) < 0)
		return rc;
	/* The UI a restart would read: one that would not start the gate
	 * refuses the reload. */
	rc = srv_ui_load(&scratch.ui, s->ui_dir, why);
	srv_ui_free(scratch.ui);
	return rc;
}

/* The review UI, read once (ui.c): what it skips and why it fails go to
 * the log. */
static int
load_ui(struct srv *s)
{
	struct dynbuf warn;
	int rc;

	dynbuf_init(&warn, 1 << 16);
	rc = srv_ui_load(&s->ui, s->ui_dir, &warn);
	fputs(dynbuf_str(&warn), stderr);
	if (rc < 0)
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
	dynbuf_free(&warn);
	return rc;
}

/* What the log and --check-config say of the UI that was read. */
static void
ui_summary(const struct srv *s, char *buf, size_t n)
{
	if (srv_ui_present(s->ui))
		snprintf(buf, n, "review UI %s (%zu file%s)", s->ui_dir,
		    srv_ui_files(s->ui), srv_ui_files(s->ui) == 1 ? "" : "s");
	else
		snprintf(buf, n, "no review UI (%s does not exist: the API is "
		    "served alone)", s->ui_dir);
}

/*
 * On the record at every start (a SIGHUP's too, from whoever sent it):
 * "serve.start", by the gate, naming what it runs with: its pid, the rule
 * set's digest and size, the policy file's sha256 ("default": none), the
 * signing key's id.
 */
static int
start_event(struct srv *s, struct db *db)
{
	char pol[AL_SHA256_HEX] = "default";
	struct dynbuf p, d;
	int fd, rc;

	dynbuf_init(&p, 8192);
	dynbuf_init(&d, 8192);
	if (dynbuf_addf(&p, "%s/policy", s->datadir) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((fd = open(dynbuf_str(&p), O_RDONLY | O_CLOEXEC)) >= 0) {
		rc = al_sha256_fd(fd, pol);
		close(fd);
		if (rc < 0)
			goto out;
	}
	if (dynbuf_addf(&d, "pid=%ld rules=%s nrules=%zu policy=%s key=%s",
	    (long)getpid(), s->rs->digest, s->rs->nrules, pol, s->keyid) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	rc = db_event_add(db, al_now_ms(), 0, "serve.start", 0, dynbuf_str(&d));
out:
	dynbuf_free(&p);
	dynbuf_free(&d);
	return rc;
}

/* The reload asked for by SIGHUP: 1 to go ahead (restart), 0 refused. */
static int
reload_ok(struct srv *s)
{
	struct dynbuf diags;
	int ok;

	dynbuf_init(&diags, 1 << 20);
	ok = srv_config_check(s, &diags) == 0;
	if (!ok)
		fprintf(stderr, "%sairlock serve: reload refused: the rules, the "
		    "policy and the review UI were NOT reloaded, the gate goes on "
		    "with the old ones: %s\n", dynbuf_str(&diags), al_err_msg());
	dynbuf_free(&diags);
	return ok;
}

/*
 * One gate per data directory: two would scan, settle and release from one
 * database and store, each with its own rules and policy. The lock is an
 * flock on DATA/serve.lock, which holds the holder's pid for the message.
 * The kernel drops an flock with the last descriptor of its open file, so a
 * lock file left by a killed gate stops nothing (the scan launchers close
 * every inherited descriptor, so they do not keep it either). A SIGHUP
 * restart execs with the descriptor open and its number in
 * SERVE_LOCK_ENV; the new image takes it back if it is the same file and
 * the same process.
 */
#define SERVE_LOCK_ENV "AIRLOCK_SERVE_LOCK_FD"

static int
lock_inherited(const char *path)
{
	const char *v = getenv(SERVE_LOCK_ENV);
	struct stat a, b;
	char buf[32], *end;
	long fd, pid;
	ssize_t n;

	if (v == NULL)
		return -1;
	errno = 0;
	fd = strtol(v, &end, 10);
	(void)unsetenv(SERVE_LOCK_ENV);
	if (errno != 0 || *end != '\0' || end == v || fd < 3 || fd > 65535 ||
	    fstat((int)fd, &a) < 0 || stat(path, &b) < 0 || a.st_dev !=
	    b.st_dev || a.st_ino != b.st_ino)
		return -1;
	/* The pid in the file is ours: an exec keeps the pid. */
	n = pread((int)fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	if (pid != (long)getpid() || flock((int)fd, LOCK_EX | LOCK_NB) < 0 ||
	    fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	return (int)fd;
}

int
srv_lock_data(const char *datadir, int *fd_out)
{
	struct dynbuf p, pid;
	char buf[32];
	ssize_t n;
	int fd = -1, rc = 0;

	*fd_out = -1;
	dynbuf_init(&p, 8192);
	dynbuf_init(&pid, 64);
	if (dynbuf_addf(&p, "%s/serve.lock", datadir) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((fd = lock_inherited(dynbuf_str(&p))) >= 0)
		goto done;
	fd = open(dynbuf_str(&p), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0) {
		rc = al_err_set(AL_EIO, "%s: %s", dynbuf_str(&p), strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			rc = al_err_set(AL_EIO, "flock %s: %s", dynbuf_str(&p),
			    strerror(errno));
			goto out;
		}
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		rc = al_err_set(AL_EEXIST, "%s is held by another gate (pid %s; "
		    "the lock is %s); stop it first", datadir, buf[0] ? buf :
		    "not yet written", dynbuf_str(&p));
		goto out;
	}
done:
	if (dynbuf_addf(&pid, "%ld\n", (long)getpid()) < 0 ||
	    ftruncate(fd, 0) < 0 || pwrite(fd, pid.data, pid.len, 0) !=
	    (ssize_t)pid.len) {
		rc = al_err_set(AL_EIO, "cannot write %s: %s", dynbuf_str(&p),
		    strerror(errno));
		goto out;
	}
	*fd_out = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	dynbuf_free(&p);
	dynbuf_free(&pid);
	return rc;
}

void
srv_unlock_data(int fd)
{
	if (fd < 0)
		return;
	/* The file stays (unlinking a lock file races with its next taker);
	 * emptied, it names no pid that has gone. */
	if (ftruncate(fd, 0) < 0)
		fprintf(stderr, "airlock: cannot empty serve.lock: %s "
		    "(harmless: the lock, not the pid, is what counts)\n",
		    strerror(errno));
	close(fd);
}

/* --check-config: what serve would load, loaded, and nothing started. */
static int
check_config(struct srv *s)
{
	struct dynbuf diags;
	EVP_PKEY *key = NULL;
	struct dynbuf pol;
	char ui[PATH_MAX + 96];
	int rc;

	dynbuf_init(&diags, 1 << 20);
	dynbuf_init(&pol, 8192);
	if (access(s->datadir, R_OK | X_OK) != 0) {
		fprintf(stderr, "airlock serve: %s: %s\n", s->datadir,
		    strerror(errno));
		goto bad;
	}
	if (access(s->dbpath, R_OK | W_OK) != 0) {
		fprintf(stderr, "airlock serve: %s: %s%s\n", s->dbpath,
		    strerror(errno), errno == ENOENT ? "; run `airlock init` "
		    "first" : "");
		goto bad;
	}
	if (attest_key_load(s->datadir, &key) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto bad;
	}
	EVP_PKEY_free(key);
	if ((rc = srv_config_check(s, &diags)) < 0) {
		fprintf(stderr, "%sairlock serve: %s\n", dynbuf_str(&diags),
		    al_err_msg());
		goto bad;
	}
	if (dynbuf_addf(&pol, "%s/policy", s->datadir) < 0) {
		fprintf(stderr, "airlock serve: out of memory\n");
		goto bad;
	}
	/* Again, for its warnings and its count. */
	if (load_ui(s) < 0)
		goto bad;
	ui_summary(s, ui, sizeof(ui));
	printf("airlock serve: the configuration is valid: data %s, rules %s, "
	    "policy %s, %s\n", s->datadir, s->rules_dir, access(dynbuf_str(&pol),
	    F_OK) == 0 ? dynbuf_str(&pol) : "the defaults (no DATA/policy)", ui);
	dynbuf_free(&diags);
	dynbuf_free(&pol);
	return EXIT_OK;
bad:
	dynbuf_free(&diags);
	dynbuf_free(&pol);
	return EXIT_FINDINGS;     /* 1: the configuration is not valid */
}

/* The gate db_on_storage_fatal stops: one per process. */
static struct srv *fatal_srv;

/* The database can no longer say for certain what it recorded: stop, with
 * a non-zero status, so that the restart's recovery decides. */
static void
storage_fatal(const char *why)
{
	fprintf(stderr, "airlock serve: %s; stopping\n", why);
	if (fatal_srv != NULL)
		atomic_store(&fatal_srv->fatal, 1);
	kill(getpid(), SIGTERM);
}

/*
 * --routes (not in --help: it is for tests/route_matrix.py and for reading):
 * the route table as JSON, who may call what on which listener, release
 * narrowed by DATA/policy (the defaults when there is none). The suite
 * that walks every route x role x listener is generated from it.
 */
static int
print_routes(struct srv *s)
{
	json_t *j = NULL;
	int ok;

	if (srv_policy_load(s) < 0 || srv_routes_json(s, &j) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		return EXIT_ERROR;
	}
	ok = json_dumpf(j, stdout, JSON_INDENT(2)) == 0 && fputc('\n',
	    stdout) != EOF && fflush(stdout) == 0;
	json_decref(j);
	if (!ok) {
		fprintf(stderr, "airlock serve: cannot write the routes\n");
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

int
cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"listen", required_argument, NULL, 'l'},
		{"intake-socket", required_argument, NULL, 'i'},
		{"scanners", required_argument, NULL, 'n'},
		{"max-body", required_argument, NULL, 'm'},
		{"max-connections", required_argument, NULL, 'M'},
		{"header-timeout", required_argument, NULL, 'H'},
		{"body-timeout", required_argument, NULL, 'B'},
		{"rules", required_argument, NULL, 'r'},
		{"ui", required_argument, NULL, 'u'},
		{"timeout", required_argument, NULL, 'T'},
		{"signing-key", required_argument, NULL, 'k'},
		{"check-config", no_argument, NULL, 'C'},
		{"routes", no_argument, NULL, 'R'},  /* for tests; see below */
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *data_opt = NULL, *listen_opt = "127.0.0.1:8420";
	const char *sock_opt = NULL, *rules_opt = NULL, *ui_opt = NULL;
	struct srv s;
	struct srv_listener lapi, lintake;
	struct scan_slot *slots = NULL;
	struct dynbuf diags, p;
	sigset_t sigs;
	int sig = 0;
	char *rules_dir = NULL, *cache = NULL, *ui_dir = NULL;
	char ui[PATH_MAX + 96];
	size_t nerr = 0, i, timeout = 0, nstarted = 0, requeued = 0;
	size_t rescans = 0, max_conns = SERVE_MAX_CONNS;
	int c, ret = EXIT_ERROR, sfd = -1, lockfd = -1, check = 0, routes = 0;
	struct db *db;
	char tname[16];

	memset(&s, 0, sizeof(s));
	memset(&lapi, 0, sizeof(lapi));
	memset(&lintake, 0, sizeof(lintake));
	s.max_body = SERVE_DEFAULT_BODY;
	s.lim.header_timeout = SERVE_HEADER_TIMEOUT;
	s.lim.body_timeout = SERVE_BODY_TIMEOUT;
	serve_argv = argv - 1;    /* "airlock" "serve" ... (argv of main) */
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': data_opt = optarg; break;
		case 'l': listen_opt = optarg; break;
		case 'i': sock_opt = optarg; break;
		case 'r': rules_opt = optarg; break;
		case 'u': ui_opt = optarg; break;
		case 'k':
			if (gate_signing_key_opt(optarg) < 0) {
				fprintf(stderr, "airlock serve: %s\n", al_err_msg());
				return EXIT_ERROR;
			}
			break;
		case 'C': check = 1; break;
		case 'R': routes = 1; break;
		case 'n':
			if (al_parse_size(optarg, &s.nscan) != 0 || s.nscan == 0 ||
			    s.nscan > 64) {
				fprintf(stderr, "airlock serve: --scanners takes 1 to "
				    "64\n");
				return EXIT_ERROR;
			}
			break;
		case 'm': {
			uint64_t v;

			if (al_parse_bytes(optarg, &v) != 0 || v == 0) {
				fprintf(stderr, "airlock serve: --max-body takes a size "
				    "like 64M\n");
				return EXIT_ERROR;
			}
			s.max_body = v;
			break;
		}
		case 'M':
			if (al_parse_size(optarg, &max_conns) != 0 || max_conns <
			    SERVE_MIN_CONNS || max_conns > 100000) {
				fprintf(stderr, "airlock serve: --max-connections "
				    "takes %u to 100000\n", SERVE_MIN_CONNS);
				return EXIT_ERROR;
			}
			break;
		case 'H':
		case 'B': {
			size_t v;

			if (al_parse_size(optarg, &v) != 0 || v == 0 || v > 3600) {
				fprintf(stderr, "airlock serve: --%s-timeout takes 1 "
				    "to 3600 seconds\n", c == 'H' ? "header" : "body");
				return EXIT_ERROR;
			}
			*(c == 'H' ? &s.lim.header_timeout : &s.lim.body_timeout) =
			    (unsigned)v;
			break;
		}
		case 'T':
			if (al_parse_size(optarg, &timeout) != 0 || timeout == 0 ||
			    timeout > 86400) {
				fprintf(stderr, "airlock serve: --timeout takes 1 to "
				    "86400 seconds\n");
				return EXIT_ERROR;
			}
			break;
		case 'h':
			fputs(serve_usage, stdout);
			return EXIT_OK;
		default:
			fputs(serve_usage, stderr);
			return EXIT_ERROR;
		}
	}
	if (optind != argc || srv_parse_listen(listen_opt, s.host, sizeof(s.host),
	    &s.port) < 0) {
		fprintf(stderr, "airlock serve: --listen takes HOST:PORT with an "
		    "IPv4 address\n\n%s", serve_usage);
		return EXIT_ERROR;
	}
	if (s.nscan == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		s.nscan = n > 0 ? (size_t)n : 1;
	}
	s.datadir = gate_data_dir(data_opt);
	dynbuf_init(&p, 8192);
	dynbuf_init(&diags, 1 << 20);
	if (s.datadir == NULL || dynbuf_addf(&p, "%s/airlock.db",
	    s.datadir) < 0 || (s.dbpath = strdup(dynbuf_str(&p))) == NULL) {
		fprintf(stderr, "airlock serve: out of memory\n");
		goto out;
	}
	dynbuf_reset(&p);
	if (sock_opt == NULL && dynbuf_addf(&p, "%s/intake.sock",
	    s.datadir) < 0) {
		fprintf(stderr, "airlock serve: out of memory\n");
		goto out;
	}
	s.sock_path = strdup(sock_opt ? sock_opt : dynbuf_str(&p));
	s.rules_dir = rules_dir = gate_rules_dir(rules_opt);
	s.cache = cache = gate_cache_dir();
	s.ui_dir = ui_dir = gate_ui_dir(ui_opt);
	if (s.sock_path == NULL || rules_dir == NULL) {
		fprintf(stderr, "airlock serve: out of memory\n");
		goto out;
	}
	if (check) {
		ret = check_config(&s);
		goto out;
	}
	if (routes) {
		ret = print_routes(&s);
		goto out;
	}
	if (access(s.dbpath, F_OK) != 0) {
		fprintf(stderr, "airlock serve: %s has no database; run `airlock "
		    "init --data %s` first\n", s.datadir, s.datadir);
		goto out;
	}
	if (srv_lock_data(s.datadir, &lockfd) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	/* Single-threaded, holding no secret: rules, engine, launchers. */
	if (rule_set_load(&s.rs, rules_dir, 0, &diags, &nerr) < 0) {
		fprintf(stderr, "%sairlock serve: %s\n", dynbuf_str(&diags),
		    al_err_msg());
		goto out;
	}
	if (scan_engine_new(&s.engine, s.rs, cache) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	s.launchers = calloc(s.nscan, sizeof(*s.launchers));
	s.scanners = calloc(s.nscan, sizeof(*s.scanners));
	slots = calloc(s.nscan, sizeof(*slots));
	if (s.launchers == NULL || s.scanners == NULL || slots == NULL) {
		fprintf(stderr, "airlock serve: out of memory\n");
		goto out;
	}
	for (i = 0; i < s.nscan; i++)
		if (scan_launcher_start(&s.launchers[i], s.engine,
		    (double)timeout) < 0) {
			fprintf(stderr, "airlock serve: %s\n", al_err_msg());
			goto out;
		}
	/* The secrets come after the launchers were forked. */
	if (srv_policy_load(&s) < 0 || attest_key_load(s.datadir, &s.key) < 0 ||
	    attest_keyid(s.key, s.keyid) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	if (load_ui(&s) < 0)
		goto out;
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.wake, NULL);
	pthread_rwlock_init(&s.sweep_lock, NULL);
	fatal_srv = &s;
	db_on_storage_fatal(storage_fatal);
	pthread_mutex_init(&s.dbs_lock, NULL);
	pthread_key_create(&s.dbkey, NULL);
	if (store_open(&s.store, s.datadir, 0) < 0 || (db = srv_db(&s)) ==
	    NULL || db_audit_track(db) < 0 ||
	    db_scan_requeue(db, al_now_ms(), &requeued) < 0 ||
	    db_rescan_stale(db, s.rs->digest, al_now_ms(), &rescans) < 0 ||
	    start_event(&s, db) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	if (srv_net_limits(&s, (unsigned)max_conns) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	if ((sfd = srv_intake_socket(s.sock_path)) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto out;
	}
	/* The main thread alone takes SIGTERM, SIGINT and SIGHUP, with
	 * sigwait; every thread started from here on has them blocked. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	lapi.s = lintake.s = &s;
	lapi.intake = 0;
	lintake.intake = 1;
	if (srv_changes_start(&s, db) < 0) {
		fprintf(stderr, "airlock serve: %s\n", al_err_msg());
		goto stop;
	}
	s.api = srv_start_daemon(&lapi, -1, s.port);
	s.intake = s.api ? srv_start_daemon(&lintake, sfd, 0) : NULL;
	if (s.api == NULL || s.intake == NULL) {
		fprintf(stderr, "airlock serve: cannot listen on %s%s%s\n",
		    s.api ? s.sock_path : listen_opt, s.api ? "" : " (in use?)",
		    "");
		goto stop;
	}
	sfd = -1;                 /* the daemon owns it now */
	s.slots = slots;
	for (i = 0; i < s.nscan; i++) {
		slots[i].s = &s;
		slots[i].l = s.launchers[i];
		slots[i].index = i;
		if (pthread_create(&s.scanners[i], NULL, srv_scan_thread,
		    &slots[i]) != 0)
			break;
		nstarted++;
		/* Named, for ps, gdb and the fault-injection tests. */
		snprintf(tname, sizeof(tname), "al-scan-%u", (unsigned)(i % 1000));
		(void)pthread_setname_np(s.scanners[i], tname);
	}
	fprintf(stderr, "airlock serve: listening on http://%s:%u, intake on "
	    "%s; %zu scanners; rules %.19s (%zu); %zu scan%s resumed; %zu "
	    "rescan%s for new rules; %u connections per listener (open-file "
	    "limit %u), headers within %u s\n", s.host, s.port, s.sock_path,
	    s.nscan, s.rs->digest, s.rs->nrules, requeued, requeued == 1 ? "" :
	    "s", rescans, rescans == 1 ? "" : "s", s.lim.max_conns, s.lim.nofile,
	    s.lim.header_timeout);
	ui_summary(&s, ui, sizeof(ui));
	fprintf(stderr, "airlock serve: %s\n", ui);
	for (;;) {
		if (sigwait(&sigs, &sig) != 0)
			continue;
		if (sig != SIGHUP || reload_ok(&s))
			break;
	}
	got_signal = sig;
	fprintf(stderr, "airlock serve: %s (signal %d)\n", got_signal ==
	    SIGHUP ? "reloading the rules and the policy: restarting" :
	    atomic_load(&s.fatal) ? "stopping after a fatal error (see above): "
	    "exit status 2, for a supervisor to restart the gate" : "stopping",
	    (int)got_signal);
	/* A stop a thread asked for because it cannot go on is a failure. */
	ret = atomic_load(&s.fatal) ? EXIT_ERROR : EXIT_OK;
stop:
	/* Requests in flight finish; then the scanners end after their
	 * current artifact. */
	if (s.api)
		(void)MHD_quiesce_daemon(s.api);
	if (s.intake)
		(void)MHD_quiesce_daemon(s.intake);
	/* Connections waiting for a request (or slow in sending one) close
	 * now; those with an admitted request finish. */
	srv_listener_quiesce(&lapi);
	srv_listener_quiesce(&lintake);
	/* Requests waiting for changes are answered now (the cursor as it
	 * is, the connection closed), and no other waits. */
	srv_changes_quiesce(&s);
	/* No new connections; those open get up to 10 s to finish. */
	for (i = 0; i < 100 && (srv_open_connections(s.api) +
	    srv_open_connections(s.intake)) > 0; i++)
		usleep(100000);
	if (s.api)
		MHD_stop_daemon(s.api);
	if (s.intake)
		MHD_stop_daemon(s.intake);
	srv_listener_stop(&lapi);
	srv_listener_stop(&lintake);
	pthread_mutex_lock(&s.lock);
	s.stopping = 1;
	pthread_cond_broadcast(&s.wake);
	pthread_mutex_unlock(&s.lock);
	/* A few seconds for the scans in flight; then they are cut short,
	 * and scanned again at the next start. */
	for (i = 0; i < 30 && atomic_load(&s.active) > 0; i++)
		usleep(100000);
	if (atomic_load(&s.active) > 0) {
		fprintf(stderr, "airlock serve: cutting %lu scan%s short; they "
		    "run again at the next start\n", atomic_load(&s.active),
		    atomic_load(&s.active) == 1 ? "" : "s");
		for (i = 0; i < s.nscan; i++)
			scan_launcher_abort(s.launchers[i]);
	}
	for (i = 0; i < nstarted; i++)
		pthread_join(s.scanners[i], NULL);
	(void)unlink(s.sock_path);
out:
	/* After the listeners and the scan threads: nothing commits now. */
	srv_changes_stop(&s);
	if (sfd >= 0)
		close(sfd);
	for (i = 0; s.launchers && i < s.nscan; i++)
		scan_launcher_stop(s.launchers[i]);
	for (i = 0; i < s.ndbs; i++)
		db_close(s.dbs[i]);
	store_close(s.store);
	scan_engine_free(s.engine);
	rule_set_free(s.rs);
	srv_ui_free(s.ui);
	EVP_PKEY_free(s.key);
	free(s.launchers);
	free(s.scanners);
	free(slots);
	free(rules_dir);
	free(ui_dir);
	free(cache);
	free(s.datadir);
	free(s.dbpath);
	free(s.sock_path);
	dynbuf_free(&diags);
	dynbuf_free(&p);
	/* SIGHUP: the rules are reloaded by starting afresh (the launchers
	 * must be forked single-threaded, with the new engine); held and
	 * approved submissions scanned by other rules are scanned again. */
	if (ret == EXIT_OK && got_signal == SIGHUP) {
		char num[16];

		/* The lock goes over the exec, open; see srv_lock_data. */
		if (snprintf(num, sizeof(num), "%d", lockfd) > 0 &&
		    fcntl(lockfd, F_SETFD, 0) == 0 && setenv(SERVE_LOCK_ENV, num,
		    1) == 0)
			execv("/proc/self/exe", serve_argv);
		fprintf(stderr, "airlock serve: cannot restart: %s\n",
		    strerror(errno));
		srv_unlock_data(lockfd);
		return EXIT_ERROR;
	}
	srv_unlock_data(lockfd);
	return ret;
}
