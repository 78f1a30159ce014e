/*
 * cmd_scan.c - `airlock scan`: offline scan of files and directories.
 *
 * The walk runs first (so a missing path is a usage error before any work),
 * then a few worker threads, each with its own Hyperscan scratch and PCRE2
 * match data, take files from a shared counter. Results are kept per entry
 * and printed in walk order, so output does not depend on thread timing.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dirs.h"
#include "al_limits.h"
#include "allowlist.h"
#include "err.h"
#include "os.h"
#include "gate.h"
#include "report.h"
#include "scan.h"
#include "util.h"

static const char scan_usage[] =
    "usage: airlock scan [options] PATH...\n"
    "\n"
    "Scans files and directories with the rule set and reports what is\n"
    "dangerous to let out of a sandbox. Directories are walked recursively;\n"
    "symbolic links are reported, never followed; .git/objects is skipped.\n"
    "A PATH that is a file is read as the artifact its content shows: an\n"
    "archive (tar, zip, 7z, cpio; unpacked in memory), a patch or a\n"
    "format-patch mailbox (the lines it adds), a git bundle (every commit),\n"
    "or a plain file. Files inside directories and archives are plain files\n"
    "or archives. Parsing runs in sandboxed child processes.\n"
    "\n"
    "options:\n"
    "  --rules DIR          rule directory (default: $AIRLOCK_RULES, or the\n"
    "                       rules/ shipped with airlock)\n"
    "  --format FMT         text (default), json or sarif\n"
    "  --fail-on SEVERITY   exit 1 when a finding is at or above SEVERITY:\n"
    "                       info, low, medium (default), high, critical;\n"
    "                       or 'never'\n"
    "  --threads N          worker threads (default: number of CPUs)\n"
    "  --allowlist FILE     the gate's allow-list (default: $AIRLOCK_ALLOWLIST):\n"
    "                       findings accepted by (rule, path glob, sha256)\n"
    "  --no-cache           compile the rules, do not use the database cache\n"
    "  --kind KIND          what each PATH should be: auto (default), file,\n"
    "                       archive, patch, mbox, bundle or directory. The\n"
    "                       content decides how it is read: a kind it\n"
    "                       contradicts is a finding (airlock.kind-mismatch),\n"
    "                       one it does not show at all is unscannable\n"
    "  --timeout SECONDS    wall-clock limit per file in the scan child\n"
    "                       (default 120); past it the file is unscannable\n"
    "  --no-sandbox         scan in this process, not in sandboxed children\n"
    "                       (debugging only: hostile input reaches the parsers\n"
    "                       unconfined)\n"
    "  --color WHEN         auto (default), always or never\n"
    "  -h, --help           this help\n"
    "\n"
    "exit status: 0 nothing at or above --fail-on, 1 findings, 2 error\n";

struct scan_job {
	const struct walk_list *entries;
	struct finding_list *results;   /* one list per entry */
	uint64_t *bytes;                /* per entry */
	struct scan_engine *engine;
	const struct allowlist *allow;  /* NULL: none */
	enum al_kind kind;            /* for PATHs that are files */
	struct scan_child **children;   /* one per thread (in-process ones
	                                 * with --no-sandbox) */
	atomic_size_t next_child;
	atomic_size_t allowed;          /* findings the allow-list removed */
	atomic_size_t next;
	atomic_int failed;
	char errmsg[256];
	pthread_mutex_t lock;
};

static void
job_fail(struct scan_job *job, const char *msg)
{
	pthread_mutex_lock(&job->lock);
	if (!atomic_load(&job->failed))
		snprintf(job->errmsg, sizeof(job->errmsg), "%s", msg);
	atomic_store(&job->failed, 1);
	pthread_mutex_unlock(&job->lock);
}

/* Opens a walked file without following links or blocking on a FIFO that
 * replaced it since the walk; -1 (and a finding in out) when it cannot. */
static int
open_entry(const struct walk_entry *e, struct finding_list *out, int *rc)
{
	char msg[300];
	struct stat st;
	int fd;

	*rc = 0;
	fd = open(e->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, sizeof(msg), "cannot open: %s", strerror(errno));
		*rc = finding_add_builtin(out, AL_RULE_UNSCANNABLE, e->path, msg);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*rc = finding_add_builtin(out, AL_RULE_UNSCANNABLE, e->path,
		    "changed into something other than a file during the scan");
		return -1;
	}
	return fd;
}

/* Entries a thread takes at a time; their files are queued in its child. */
#define SCAN_BATCH 32

/*
 * Scans entries [first, first + n): notes become findings, files are opened
 * here and scanned in the thread's child (or in-process with --no-sandbox),
 * then the allow-list is applied.
 */
static int
scan_entries(struct scan_job *job, struct scan_child *child, size_t first,
    size_t n)
{
	struct scan_req reqs[SCAN_BATCH];
	char digests[SCAN_BATCH][AL_SHA256_HEX];
	size_t idx[SCAN_BATCH], nreq = 0, k;
	int rc = 0;

	for (k = 0; k < n && rc == 0; k++) {
		size_t i = first + k;
		const struct walk_entry *e = &job->entries->v[i];
		int fd;

		if (e->kind == WALK_NOTE) {
			rc = finding_add_builtin(&job->results[i], e->rule_id,
			    e->path, e->message);
			continue;
		}
		if ((fd = open_entry(e, &job->results[i], &rc)) < 0)
			continue;
		digests[nreq][0] = '\0';
		reqs[nreq] = (struct scan_req){fd, e->path, e->relpath,
		    &job->results[i], &job->bytes[i],
		    job->allow ? digests[nreq] : NULL,
		    e->top ? job->kind : AL_KIND_MEMBER, NULL, NULL};
		idx[nreq++] = i;
	}
	if (rc == 0 && nreq > 0)
		rc = scan_child_scan_batch(child, reqs, nreq);
	for (k = 0; k < nreq; k++) {
		close(reqs[k].fd);
		if (rc == 0 && job->allow != NULL)
			atomic_fetch_add(&job->allowed, allowlist_apply(job->allow,
			    &job->results[idx[k]], 0,
			    job->entries->v[idx[k]].relpath, digests[k]));
	}
	return rc;
}

static void *
scan_thread(void *arg)
{
	struct scan_job *job = arg;
	struct scan_child *child;
	size_t i;

	child = job->children[atomic_fetch_add(&job->next_child, 1)];
	while (!atomic_load(&job->failed)) {
		i = atomic_fetch_add(&job->next, SCAN_BATCH);
		if (i >= job->entries->n)
			break;
		if (scan_entries(job, child, i, job->entries->n - i <
		    SCAN_BATCH ? job->entries->n - i : SCAN_BATCH) < 0)
			job_fail(job, al_err_msg());
	}
	return NULL;
}

/* 1 if path lies at or below dir (both resolved). */
static int
path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/*
 * Loads the allow-list, refusing one that lies inside what is scanned: the
 * artifact must never be able to bring its own exceptions.
 */
static int
load_allowlist(const char *file, char **roots, int nroots,
    struct allowlist **out)
{
	char real_file[PATH_MAX], real_root[PATH_MAX];
	struct dynbuf diags;
	int i, rc;

	if (realpath(file, real_file) == NULL) {
		fprintf(stderr, "airlock scan: allow-list %s: %s\n", file,
		    strerror(errno));
		return -1;
	}
	for (i = 0; i < nroots; i++) {
		if (realpath(roots[i], real_root) != NULL &&
		    path_within(real_file, real_root)) {
			fprintf(stderr, "airlock scan: refusing allow-list %s: it "
			    "is inside %s, which is being scanned\n", file,
			    roots[i]);
			return -1;
		}
	}
	dynbuf_init(&diags, 1 << 20);
	rc = allowlist_load(out, file, &diags);
	if (rc < 0)
		fprintf(stderr, "%sairlock scan: %s\n", dynbuf_str(&diags),
		    al_err_msg());
	dynbuf_free(&diags);
	return rc;
}

static int
parse_fail_on(const char *s, int *out)
{
	int sev;

	if (strcmp(s, "never") == 0) {
		*out = AL_SEV_MAX;
		return 0;
	}
	if ((sev = al_severity_parse(s)) < 0)
		return -1;
	*out = sev;
	return 0;
}

static int
run_threads(struct scan_job *job, unsigned nthreads)
{
	pthread_t tids[AL_MAX_THREADS];
	unsigned i, started = 0;

	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&tids[i], NULL, scan_thread, job) != 0)
			break;
		started++;
	}
	if (started == 0)
		scan_thread(job); /* no threads: scan on this one */
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	return atomic_load(&job->failed) ? -1 : 0;
}

int
cmd_scan(int argc, char **argv)
{
	static const struct option opts[] = {
		{"rules", required_argument, NULL, 'r'},
		{"format", required_argument, NULL, 'f'},
		{"fail-on", required_argument, NULL, 'F'},
		{"threads", required_argument, NULL, 't'},
		{"no-cache", no_argument, NULL, 'N'},
		{"allowlist", required_argument, NULL, 'A'},
		{"timeout", required_argument, NULL, 'T'},
		{"no-sandbox", no_argument, NULL, 'S'},
		{"kind", required_argument, NULL, 'K'},
		{"color", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *format = "text", *rules_opt = NULL, *color_opt = "auto";
	const char *allow_file = getenv("AIRLOCK_ALLOWLIST");
	struct allowlist *allow = NULL;
	struct walk_list entries = {0};
	struct finding_list all = {0};
	struct rule_set *rs = NULL;
	struct scan_job job;
	struct scan_report rep;
	struct dynbuf diags;
	char *rules_dir = NULL, *cache = NULL, *doc = NULL;
	size_t nerr = 0, threads = 0, timeout = 0, i;
	int c, fail_on = AL_SEV_MEDIUM, no_cache = 0, ret = EXIT_ERROR, worst = -1;
	int no_sandbox = 0, kind = AL_KIND_AUTO;
	double t0 = al_mono_now();

	memset(&job, 0, sizeof(job));
	dynbuf_init(&diags, (size_t)1 << 20);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			rules_opt = optarg;
			break;
		case 'f':
			format = optarg;
			if (strcmp(format, "text") && strcmp(format, "json") &&
			    strcmp(format, "sarif")) {
				fprintf(stderr, "airlock scan: unknown format '%s' "
				    "(text, json, sarif)\n", format);
				return EXIT_ERROR;
			}
			break;
		case 'F':
			if (parse_fail_on(optarg, &fail_on) != 0) {
				fprintf(stderr, "airlock scan: bad --fail-on '%s' "
				    "(info, low, medium, high, critical, never)\n",
				    optarg);
				return EXIT_ERROR;
			}
			break;
		case 't':
			if (al_parse_size(optarg, &threads) != 0 || threads == 0 ||
			    threads > AL_MAX_THREADS) {
				fprintf(stderr, "airlock scan: --threads takes 1 to "
				    "%u\n", AL_MAX_THREADS);
				return EXIT_ERROR;
			}
			break;
		case 'N':
			no_cache = 1;
			break;
		case 'A':
			allow_file = optarg;
			break;
		case 'T':
			if (al_parse_size(optarg, &timeout) != 0 || timeout == 0 ||
			    timeout > 86400) {
				fprintf(stderr, "airlock scan: --timeout takes 1 to "
				    "86400 seconds\n");
				return EXIT_ERROR;
			}
			break;
		case 'S':
			no_sandbox = 1;
			break;
		case 'K':
			if ((kind = al_kind_parse(optarg)) < 0) {
				fprintf(stderr, "airlock scan: unknown kind '%s' (auto, "
				    "file, archive, patch, mbox, bundle, directory)\n",
				    optarg);
				return EXIT_ERROR;
			}
			break;
		case 'c':
			color_opt = optarg;
			if (strcmp(color_opt, "auto") && strcmp(color_opt, "always") &&
			    strcmp(color_opt, "never")) {
				fprintf(stderr, "airlock scan: --color takes auto, "
				    "always or never\n");
				return EXIT_ERROR;
			}
			break;
		case 'h':
			fputs(scan_usage, stdout);
			return EXIT_OK;
		default:
			fputs(scan_usage, stderr);
			return EXIT_ERROR;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "airlock scan: no PATH given\n\n%s", scan_usage);
		return EXIT_ERROR;
	}
	/* Every path must exist before any work is done. */
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		struct stat st;

		if (lstat(argv[i], &st) < 0) {
			fprintf(stderr, "airlock scan: %s: %s\n", argv[i],
			    strerror(errno));
			goto out;
		}
		if (kind == AL_KIND_DIRECTORY && !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "airlock scan: %s: --kind directory, but it "
			    "is not a directory\n", argv[i]);
			goto out;
		}
		if (kind != AL_KIND_AUTO && kind != AL_KIND_DIRECTORY &&
		    !S_ISREG(st.st_mode)) {
			fprintf(stderr, "airlock scan: %s: --kind %s needs a regular "
			    "file\n", argv[i], al_kind_name((enum al_kind)kind));
			goto out;
		}
	}
	if (allow_file != NULL && allow_file[0] != '\0' &&
	    load_allowlist(allow_file, argv + optind, argc - optind, &allow) < 0)
		goto out;
	job.allow = allow;
	job.kind = (enum al_kind)kind;
	rules_dir = gate_rules_dir(rules_opt);
	if (rule_set_load(&rs, rules_dir, 0, &diags, &nerr) < 0) {
		fprintf(stderr, "%sairlock scan: %s\n", dynbuf_str(&diags),
		    al_err_msg());
		goto out;
	}
	if (!no_cache)
		cache = gate_cache_dir();
	if (scan_engine_new(&job.engine, rs, cache) < 0) {
		fprintf(stderr, "airlock scan: %s\n", al_err_msg());
		goto out;
	}
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		if (scan_walk(&entries, argv[i]) < 0) {
			fprintf(stderr, "airlock scan: %s\n", al_err_msg());
			goto out;
		}
	}
	job.entries = &entries;
	job.results = calloc(entries.n ? entries.n : 1, sizeof(*job.results));
	job.bytes = calloc(entries.n ? entries.n : 1, sizeof(*job.bytes));
	if (job.results == NULL || job.bytes == NULL) {
		fprintf(stderr, "airlock scan: out of memory\n");
		goto out;
	}
	pthread_mutex_init(&job.lock, NULL);
	if (threads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		threads = n > 0 ? (size_t)n : 1;
		if (threads > AL_MAX_THREADS)
			threads = AL_MAX_THREADS;
	}
	if (threads > entries.n)
		threads = entries.n ? entries.n : 1;
	/* One scan child per thread, forked before the threads (with
	 * --no-sandbox, one in-process scanner per thread instead). */
	if (no_sandbox)
		fprintf(stderr, "airlock scan: warning: --no-sandbox: artifact "
		    "bytes are parsed in this process, unconfined\n");
	else
		signal(SIGPIPE, SIG_IGN);
	job.children = calloc(threads, sizeof(*job.children));
	if (job.children == NULL) {
		fprintf(stderr, "airlock scan: out of memory\n");
		goto out;
	}
	for (i = 0; i < threads; i++)
		if ((no_sandbox ? scan_inproc_start(&job.children[i], job.engine) :
		    scan_child_start(&job.children[i], job.engine,
		    (double)timeout)) < 0) {
			fprintf(stderr, "airlock scan: %s\n", al_err_msg());
			goto out;
		}
	if (run_threads(&job, (unsigned)threads) < 0) {
		fprintf(stderr, "airlock scan: %s\n", job.errmsg);
		pthread_mutex_destroy(&job.lock);
		goto out;
	}
	pthread_mutex_destroy(&job.lock);
	memset(&rep, 0, sizeof(rep));
	for (i = 0; i < entries.n; i++) {
		rep.files += entries.v[i].kind == WALK_FILE;
		rep.bytes += job.bytes[i];
		if (finding_list_move(&all, &job.results[i]) < 0) {
			fprintf(stderr, "airlock scan: out of memory\n");
			goto out;
		}
	}
	finding_list_sort(&all);
	for (i = 0; i < all.n; i++)
		if ((int)all.v[i].severity > worst)
			worst = (int)all.v[i].severity;
	rep.rs = rs;
	rep.findings = &all;
	rep.allowed = atomic_load(&job.allowed);
	rep.seconds = al_mono_now() - t0;
	if (strcmp(format, "text") == 0) {
		int color = strcmp(color_opt, "always") == 0 ||
		    (strcmp(color_opt, "auto") == 0 && isatty(STDOUT_FILENO) &&
		    getenv("NO_COLOR") == NULL);

		if (report_text(stdout, &rep, color) < 0)
			goto out;
	} else {
		doc = strcmp(format, "json") == 0 ? report_json(&rep) :
		    report_sarif(&rep);
		if (doc == NULL) {
			fprintf(stderr, "airlock scan: out of memory\n");
			goto out;
		}
		puts(doc);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "airlock scan: writing output: %s\n",
		    strerror(errno));
		goto out;
	}
	ret = worst >= fail_on ? EXIT_FINDINGS : EXIT_OK;
out:
	if (job.results != NULL)
		for (i = 0; i < entries.n; i++)
			finding_list_free(&job.results[i]);
	free(job.results);
	free(job.bytes);
	if (job.children != NULL)
		for (i = 0; i < threads; i++)
			scan_child_stop(job.children[i]);
	free(job.children);
	finding_list_free(&all);
	walk_list_free(&entries);
	scan_engine_free(job.engine);
	rule_set_free(rs);
	allowlist_free(allow);
	dynbuf_free(&diags);
	free(rules_dir);
	free(cache);
	free(doc);
	return ret;
}
