/*
 * load.c - the mixed load of `make load` (tests/load.py drives it): N
 * client threads, each an agent submitting on the intake socket and a
 * reviewer of its own on the TCP listener, for a duration, mixing
 *   submit   POST /v1/submissions (intake socket, distinct text bodies)
 *   list     GET /v1/submissions?limit=20
 *   show     GET /v1/submissions/ID (one of its own, at random)
 *   approve  GET .../ID, GET .../ID/content (the view approval needs), POST
 *            .../ID/approve naming the sha256 and rule set shown, for one
 *            of its own once it is held
 * in the proportions 25/30/30/15, a client with LOAD_PENDING_MAX of its
 * own waiting for approval approving instead of submitting (an agent waits
 * for review; the scan queue stays bounded). Each client keeps one keep-alive
 * connection per listener. Every request's status is checked against the
 * one it must get (201, 200; a show of a submission still being scanned
 * is a show, and its approval waits); anything else, or no answer, is an
 * error, and the first few are printed.
 *
 * Prints per operation: count, p50, p99, max latency (ms, nearest rank,
 * from the start of the request to the last byte of its answer), the total
 * requests/s, the errors, and one line "RESULT key=value ..." for the
 * driver. Exit status 0 when there were no errors, 1 otherwise, 2 on a
 * usage or set-up error.
 *
 * Trust: a test tool against a gate on loopback that the driver started;
 * the tokens come from a file (-k: the agent's on the first line, then one
 * reviewer token per client), never the command line.
 */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOAD_MAX_CLIENTS 512u
#define LOAD_MAX_ANSWER (1u << 20)        /* bytes of one answer kept */
#define LOAD_TOKEN_MAX 128u
#define LOAD_ERRORS_SHOWN 10
/* Own submissions waiting for approval before a client submits again: the
 * scan queue stays bounded (scanners run at nice 19, after intake), so
 * that approvals happen during the run, not only submissions. */
#define LOAD_PENDING_MAX 2u

enum load_op { OP_SUBMIT, OP_LIST, OP_SHOW, OP_CONTENT, OP_APPROVE, OP_MAX };

static const char *const op_names[OP_MAX] = {
	"submit", "list", "show", "content", "approve",
};

struct lat {
	double *v;                 /* ms */
	size_t n, cap;
};

struct load_client {
	unsigned idx;
	char auth_agent[LOAD_TOKEN_MAX + 32];
	char auth_rev[LOAD_TOKEN_MAX + 32];
	CURL *tcp, *unix_sock;
	char *ans;                 /* the last answer */
	size_t nans;
	int64_t *mine;             /* own submissions not yet approved */
	size_t nmine, capmine;
	int64_t *all;              /* every own submission */
	size_t nall, capall;
	struct lat lat[OP_MAX];
	uint64_t errors;
	uint32_t rnd;
	pthread_t th;
};

static const char *load_url;       /* http://127.0.0.1:PORT */
static const char *load_sock;      /* the intake socket */
static double load_deadline;
static pthread_mutex_t load_err_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned load_err_shown;

static const char load_usage[] =
    "usage: load -u URL -s SOCKET -k TOKENS [-c CLIENTS] [-d SECONDS]\n"
    "\n"
    "  -u URL      the review listener, http://127.0.0.1:PORT\n"
    "  -s SOCKET   the intake socket\n"
    "  -k TOKENS   file: the agent token, then one reviewer token per client\n"
    "  -c N        clients, one thread each (default 8)\n"
    "  -d SECONDS  how long (default 5)\n";

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t
rnd_next(struct load_client *cl)
{
	cl->rnd ^= cl->rnd << 13;
	cl->rnd ^= cl->rnd >> 17;
	cl->rnd ^= cl->rnd << 5;
	return cl->rnd;
}

static int
ids_add(int64_t **v, size_t *n, size_t *cap, int64_t id)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		int64_t *p = realloc(*v, ncap * sizeof(*p));

		if (p == NULL)
			return -1;
		*v = p;
		*cap = ncap;
	}
	(*v)[(*n)++] = id;
	return 0;
}

static int
lat_add(struct lat *l, double ms)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 4096;
		double *p = realloc(l->v, ncap * sizeof(*p));

		if (p == NULL)
			return -1;
		l->v = p;
		l->cap = ncap;
	}
	l->v[l->n++] = ms;
	return 0;
}

static size_t
on_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct load_client *cl = ud;
	size_t n = size * nmemb;

	if (cl->nans + n < LOAD_MAX_ANSWER) {
		memcpy(cl->ans + cl->nans, ptr, n);
		cl->nans += n;
		cl->ans[cl->nans] = '\0';
	}
	return n;
}

static void
load_error(struct load_client *cl, const char *what, long status,
    const char *why)
{
	cl->errors++;
	pthread_mutex_lock(&load_err_lock);
	if (load_err_shown++ < LOAD_ERRORS_SHOWN) {
		if (status == 0)      /* no answer */
			fprintf(stderr, "load: client %u: %s: %s\n", cl->idx, what, why);
		else
			fprintf(stderr, "load: client %u: %s: HTTP %ld%s%s: %.300s\n",
			    cl->idx, what, status, why ? ", " : "", why ? why : "",
			    cl->ans);
	}
	pthread_mutex_unlock(&load_err_lock);
}

/*
 * One request; its latency counted under op when the status is want. 0, or
 * -1 after counting the error (a status other than want, or no answer).
 * A want of 0 takes any status (the caller looks at it in *status).
 */
static int
request(struct load_client *cl, enum load_op op, int on_unix,
    const char *method, const char *path, const char *body, size_t blen,
    long want, long *status)
{
	CURL *h = on_unix ? cl->unix_sock : cl->tcp;
	struct curl_slist *hd = NULL;
	char url[512];
	CURLcode rc;
	long st = 0;
	double t0;

	snprintf(url, sizeof(url), "%s%s", on_unix ? "http://localhost" :
	    load_url, path);
	cl->nans = 0;
	cl->ans[0] = '\0';
	hd = curl_slist_append(hd, on_unix ? cl->auth_agent : cl->auth_rev);
	if (body != NULL)
		hd = curl_slist_append(hd, op == OP_APPROVE ?
		    "Content-Type: application/json" :
		    "Content-Type: application/octet-stream");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	if (body != NULL) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)blen);
	} else {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	}
	t0 = now_s();
	rc = curl_easy_perform(h);
	curl_slist_free_all(hd);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	if (rc != CURLE_OK) {
		load_error(cl, op_names[op], 0, curl_easy_strerror(rc));
		return -1;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st);
	if (status != NULL)
		*status = st;
	if (want != 0 && st != want) {
		load_error(cl, op_names[op], st, NULL);
		return -1;
	}
	if (lat_add(&cl->lat[op], (now_s() - t0) * 1000.0) < 0) {
		load_error(cl, op_names[op], 0, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * The value of a member of the answer's top-level object, or of the object
 * that is its member obj (NULL: the top level): a number, or a string's
 * characters (into out, at most n - 1). 0 if found. The gate indents its
 * JSON by 2 and sorts the keys (so "items" and "review" come before
 * "sha256" and "state"): a member of the top level is the key after a
 * newline and 2 spaces, of a member object after 4.
 */
static int
field(const char *ans, const char *obj, const char *key, char *out,
    size_t n)
{
	char k[80];
	const char *p = ans;
	size_t i = 0;

	if (obj != NULL) {
		snprintf(k, sizeof(k), "\n  \"%s\": {", obj);
		if ((p = strstr(ans, k)) == NULL)
			return -1;
	}
	snprintf(k, sizeof(k), "\n%s\"%s\": ", obj ? "    " : "  ", key);
	if ((p = strstr(p, k)) == NULL)
		return -1;
	p += strlen(k);
	if (*p == '"')
		p++;
	while (p[i] != '\0' && p[i] != '"' && p[i] != ',' && p[i] != '\n' &&
	    i + 1 < n) {
		out[i] = p[i];
		i++;
	}
	out[i] = '\0';
	return i > 0 ? 0 : -1;
}

static void
op_submit(struct load_client *cl, uint64_t n)
{
	char body[2048], path[128], v[32];
	size_t len = 0, lines = 8 + rnd_next(cl) % 24;

	len += (size_t)snprintf(body, sizeof(body), "load %u %" PRIu64 " %08x\n",
	    cl->idx, n, rnd_next(cl));
	while (lines-- > 0 && len + 64 < sizeof(body))
		len += (size_t)snprintf(body + len, sizeof(body) - len,
		    "int value_%08x = read_config(\"build\", %u);\n", rnd_next(cl),
		    rnd_next(cl) % 1000);
	snprintf(path, sizeof(path), "/v1/submissions?name=load-%u-%" PRIu64
	    ".c", cl->idx, n);
	if (request(cl, OP_SUBMIT, 1, "POST", path, body, len, 201, NULL) < 0)
		return;
	if (field(cl->ans, NULL, "id", v, sizeof(v)) < 0) {
		load_error(cl, "submit", 201, "no id in the answer");
		return;
	}
	if (ids_add(&cl->mine, &cl->nmine, &cl->capmine, strtoll(v, NULL, 10))
	    < 0 || ids_add(&cl->all, &cl->nall, &cl->capall,
	    strtoll(v, NULL, 10)) < 0)
		load_error(cl, "submit", 0, "out of memory");
}

static void
op_show(struct load_client *cl)
{
	char path[64];

	if (cl->nall == 0) {
		(void)request(cl, OP_LIST, 0, "GET", "/v1/submissions?limit=20",
		    NULL, 0, 200, NULL);
		return;
	}
	snprintf(path, sizeof(path), "/v1/submissions/%" PRId64,
	    cl->all[rnd_next(cl) % cl->nall]);
	(void)request(cl, OP_SHOW, 0, "GET", path, NULL, 0, 200, NULL);
}

/* Approves one of its own that is held; one still being scanned waits. */
static void
op_approve(struct load_client *cl)
{
	char path[96], state[32], sha[80], rules[96], body[320];
	size_t k;
	int64_t id;

	if (cl->nmine == 0) {
		op_show(cl);
		return;
	}
	k = 0;                        /* the oldest: scanned first */
	id = cl->mine[k];
	snprintf(path, sizeof(path), "/v1/submissions/%" PRId64, id);
	if (request(cl, OP_SHOW, 0, "GET", path, NULL, 0, 200, NULL) < 0)
		return;
	if (field(cl->ans, NULL, "state", state, sizeof(state)) < 0) {
		load_error(cl, "show", 200, "no state in the answer");
		return;
	}
	if (strcmp(state, "received") == 0 || strcmp(state, "scanning") == 0)
		return;                   /* later */
	memmove(cl->mine + k, cl->mine + k + 1, (--cl->nmine - k) *
	    sizeof(*cl->mine));
	if (strcmp(state, "held") != 0)
		return;                   /* nothing to approve */
	if (field(cl->ans, NULL, "sha256", sha, sizeof(sha)) < 0 ||
	    field(cl->ans, "scan", "ruleset", rules, sizeof(rules)) < 0) {
		load_error(cl, "show", 200, "no sha256 or ruleset in the answer");
		return;
	}
	snprintf(path, sizeof(path), "/v1/submissions/%" PRId64 "/content", id);
	if (request(cl, OP_CONTENT, 0, "GET", path, NULL, 0, 200, NULL) < 0)
		return;
	snprintf(path, sizeof(path), "/v1/submissions/%" PRId64 "/approve", id);
	snprintf(body, sizeof(body), "{\"sha256\": \"%s\", \"ruleset\": \"%s\"}",
	    sha, rules);
	(void)request(cl, OP_APPROVE, 0, "POST", path, body, strlen(body), 200,
	    NULL);
}

static void *
client_run(void *arg)
{
	struct load_client *cl = arg;
	uint64_t n = 0;

	while (now_s() < load_deadline) {
		uint32_t r = rnd_next(cl) % 100;

		if (r < 25 && cl->nmine < LOAD_PENDING_MAX)
			op_submit(cl, n++);
		else if (r < 25)
			op_approve(cl);
		else if (r < 55)
			(void)request(cl, OP_LIST, 0, "GET",
			    "/v1/submissions?limit=20", NULL, 0, 200, NULL);
		else if (r < 85)
			op_show(cl);
		else
			op_approve(cl);
	}
	return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
rank(const double *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	i = (size_t)(p * (double)n + 0.999999);
	if (i == 0)
		i = 1;
	return v[(i > n ? n : i) - 1];
}

static int
read_tokens(const char *path, unsigned nclients, struct load_client *cl)
{
	FILE *f = fopen(path, "re");
	char line[LOAD_TOKEN_MAX + 2], agent[LOAD_TOKEN_MAX + 2] = "";
	unsigned i = 0;

	if (f == NULL) {
		fprintf(stderr, "load: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (agent[0] == '\0') {
			snprintf(agent, sizeof(agent), "%s", line);
			continue;
		}
		if (i == nclients)
			break;
		snprintf(cl[i].auth_rev, sizeof(cl[i].auth_rev),
		    "Authorization: Bearer %s", line);
		snprintf(cl[i].auth_agent, sizeof(cl[i].auth_agent),
		    "Authorization: Bearer %s", agent);
		i++;
	}
	fclose(f);
	if (i < nclients) {
		fprintf(stderr, "load: %s: %u reviewer tokens for %u clients\n",
		    path, i, nclients);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *tokens = NULL;
	unsigned nclients = 8, i;
	double seconds = 5, t0, el;
	struct load_client *cl;
	struct lat all[OP_MAX];
	uint64_t errors = 0, total = 0;
	int c, op;

	while ((c = getopt(argc, argv, "u:s:k:c:d:h")) != -1) {
		switch (c) {
		case 'u': load_url = optarg; break;
		case 's': load_sock = optarg; break;
		case 'k': tokens = optarg; break;
		case 'c': nclients = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'd': seconds = strtod(optarg, NULL); break;
		default:
			fputs(load_usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (load_url == NULL || load_sock == NULL || tokens == NULL ||
	    nclients == 0 || nclients > LOAD_MAX_CLIENTS || !(seconds > 0) ||
	    seconds > 3600) {
		fputs(load_usage, stderr);
		return 2;
	}
	if ((cl = calloc(nclients, sizeof(*cl))) == NULL ||
	    read_tokens(tokens, nclients, cl) < 0 ||
	    curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		return 2;
	for (i = 0; i < nclients; i++) {
		cl[i].idx = i;
		cl[i].rnd = 2654435761u * (i + 1) ^ (uint32_t)time(NULL);
		cl[i].ans = malloc(LOAD_MAX_ANSWER);
		cl[i].tcp = curl_easy_init();
		cl[i].unix_sock = curl_easy_init();
		if (cl[i].ans == NULL || cl[i].tcp == NULL || cl[i].unix_sock == NULL)
			return 2;
		curl_easy_setopt(cl[i].unix_sock, CURLOPT_UNIX_SOCKET_PATH, load_sock);
		curl_easy_setopt(cl[i].tcp, CURLOPT_WRITEFUNCTION, on_data);
		curl_easy_setopt(cl[i].tcp, CURLOPT_WRITEDATA, &cl[i]);
		curl_easy_setopt(cl[i].unix_sock, CURLOPT_WRITEFUNCTION, on_data);
		curl_easy_setopt(cl[i].unix_sock, CURLOPT_WRITEDATA, &cl[i]);
		curl_easy_setopt(cl[i].tcp, CURLOPT_TIMEOUT, 60L);
		curl_easy_setopt(cl[i].unix_sock, CURLOPT_TIMEOUT, 60L);
		curl_easy_setopt(cl[i].tcp, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(cl[i].unix_sock, CURLOPT_NOSIGNAL, 1L);
	}
	t0 = now_s();
	load_deadline = t0 + seconds;
	for (i = 0; i < nclients; i++)
		if (pthread_create(&cl[i].th, NULL, client_run, &cl[i]) != 0) {
			fprintf(stderr, "load: cannot start client %u\n", i);
			return 2;
		}
	for (i = 0; i < nclients; i++)
		pthread_join(cl[i].th, NULL);
	el = now_s() - t0;
	memset(all, 0, sizeof(all));
	for (op = 0; op < OP_MAX; op++) {
		for (i = 0; i < nclients; i++) {
			struct lat *l = &cl[i].lat[op];
			size_t k;

			for (k = 0; k < l->n; k++)
				if (lat_add(&all[op], l->v[k]) < 0)
					return 2;
		}
		qsort(all[op].v, all[op].n, sizeof(double), cmp_double);
		total += all[op].n;
	}
	for (i = 0; i < nclients; i++)
		errors += cl[i].errors;
	printf("load: %u clients, %.1f s: %" PRIu64 " requests, %.0f/s, %"
	    PRIu64 " errors\n", nclients, el, total, (double)total / el, errors);
	printf("load: %-8s %8s %9s %9s %9s\n", "op", "count", "p50 ms", "p99 ms",
	    "max ms");
	for (op = 0; op < OP_MAX; op++)
		printf("load: %-8s %8zu %9.1f %9.1f %9.1f\n", op_names[op], all[op].n,
		    rank(all[op].v, all[op].n, 0.50), rank(all[op].v, all[op].n,
		    0.99), all[op].n ? all[op].v[all[op].n - 1] : 0.0);
	{
		struct lat every = {NULL, 0, 0};

		for (op = 0; op < OP_MAX; op++)
			for (i = 0; i < all[op].n; i++)
				if (lat_add(&every, all[op].v[i]) < 0)
					return 2;
		qsort(every.v, every.n, sizeof(double), cmp_double);
		printf("RESULT clients=%u seconds=%.1f requests=%" PRIu64
		    " rps=%.1f errors=%" PRIu64 " p50_ms=%.2f p99_ms=%.2f",
		    nclients, el, total, (double)total / el, errors,
		    rank(every.v, every.n, 0.5), rank(every.v, every.n, 0.99));
		for (op = 0; op < OP_MAX; op++)
			printf(" %s=%zu %s_p50_ms=%.2f %s_p99_ms=%.2f", op_names[op],
			    all[op].n, op_names[op], rank(all[op].v, all[op].n, 0.5),
			    op_names[op], rank(all[op].v, all[op].n, 0.99));
		printf("\n");
		free(every.v);
	}
	for (op = 0; op < OP_MAX; op++)
		free(all[op].v);
	for (i = 0; i < nclients; i++) {
		for (op = 0; op < OP_MAX; op++)
			free(cl[i].lat[op].v);
		curl_easy_cleanup(cl[i].tcp);
		curl_easy_cleanup(cl[i].unix_sock);
		free(cl[i].ans);
		free(cl[i].mine);
		free(cl[i].all);
	}
	free(cl);
	curl_global_cleanup();
	return errors == 0 ? 0 : 1;
}
