/*
 * intake_load.c - a load generator for airlock's intake (and for any HTTP
 * server that takes a POSTed body), used by bench/intake_bench.sh.
 *
 * N client threads, each with its own libcurl easy handle and so its own
 * keep-alive connection, POST a body of S bytes to one URL, one request
 * after the other, for a duration or until a total count is reached. Each
 * body is distinct (a stamp of run nonce, thread and counter in its first
 * bytes) so that a content-addressed store cannot deduplicate it. Latency is
 * the wall time of one curl_easy_perform: from the start of the request to
 * the last byte of the response, i.e. to the acknowledgement.
 *
 * Prints a human line and one machine-readable line (starting "RESULT ")
 * of key=value pairs; percentiles are of the successful requests (status
 * -e, default 201), nearest rank.
 *
 * Trust: a benchmarking tool run against a local server; the token comes
 * from the environment (INTAKE_LOAD_TOKEN) so that it does not show in ps.
 */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define LOAD_MAX_CLIENTS 1024u
#define LOAD_MAX_BODY (1ULL << 30)        /* one body per client in memory */
#define LOAD_MAX_STATUS 600               /* HTTP status codes counted */
#define LOAD_STAMP_MAX 64u

static const char load_usage[] =
    "usage: intake_load -u URL [options]\n"
    "\n"
    "POSTs distinct bodies to URL from N keep-alive clients and reports\n"
    "requests/s and latency percentiles (to the full response).\n"
    "\n"
    "options:\n"
    "  -u URL        where to POST (required)\n"
    "  -c N          concurrent clients, one thread each (default 32)\n"
    "  -s SIZE       body size in bytes; K and M suffixes are KiB, MiB\n"
    "                (default 10K)\n"
    "  -d SECONDS    run for this long (default 10)\n"
    "  -n COUNT      or: send this many requests in all\n"
    "  -f FILE       body text: FILE repeated (default: generated words)\n"
    "  -e STATUS     the status that counts as success (default 201)\n"
    "  -t SECONDS    per-request timeout (default 120)\n"
    "  -h            this help\n"
    "\n"
    "The environment variable INTAKE_LOAD_TOKEN, when set, is sent as\n"
    "Authorization: Bearer TOKEN.\n";

struct load_conf {
	const char *url;
	unsigned clients;
	size_t size;               /* bytes per body */
	double seconds;            /* 0 when count is used */
	uint64_t count;            /* 0 when seconds is used */
	long expect;               /* the success status */
	long timeout;              /* seconds per request */
	const char *auth;          /* "Authorization: Bearer ..." or NULL */
	const unsigned char *tmpl; /* body text, repeated */
	size_t tmpl_len;
	uint64_t nonce;            /* distinguishes runs */
};

struct load_client {
	const struct load_conf *conf;
	unsigned idx;
	double *lat;               /* ms, successful requests */
	size_t nlat, caplat;
	uint64_t status[LOAD_MAX_STATUS]; /* [0]: transport errors */
	uint64_t requests;
	uint64_t bytes;            /* body bytes acknowledged */
	long connects;             /* new connections opened */
	char first_err[160];
	int failed;                /* could not set up */
	pthread_t th;
};

static pthread_barrier_t load_start;
static atomic_uint_fast64_t load_issued; /* -n: requests handed out */

static double
load_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
load_since(const struct timespec *t0)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - t0->tv_sec) +
	    (double)(ts.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The response body is not needed: only its arrival. */
static size_t
load_discard(char *ptr, size_t size, size_t nmemb, void *ud)
{
	(void)ptr;
	(void)ud;
	return size * nmemb;
}

static int
load_lat_add(struct load_client *cl, double ms)
{
	if (cl->nlat == cl->caplat) {
		size_t ncap = cl->caplat ? cl->caplat * 2 : 4096;
		double *n = realloc(cl->lat, ncap * sizeof(*n));

		if (n == NULL)
			return -1;
		cl->lat = n;
		cl->caplat = ncap;
	}
	cl->lat[cl->nlat++] = ms;
	return 0;
}

/* Fills the body from the template, or with pseudo-random words (text,
 * so that the scanner sees what it mostly sees: source and prose). */
static void
load_fill(const struct load_conf *conf, unsigned char *body, unsigned seed)
{
	static const char *const words[] = {
		"the", "static", "int", "return", "buffer", "length", "const",
		"char", "if", "else", "for", "while", "struct", "void", "size_t",
		"error", "value", "index", "count", "result", "node", "list",
		"free", "alloc", "check", "parse", "read", "write", "open", "close",
	};
	uint32_t x = seed * 2654435761u + 1;
	size_t i = 0, col = 0;

	if (conf->tmpl_len > 0) {
		for (i = 0; i < conf->size; i++)
			body[i] = conf->tmpl[i % conf->tmpl_len];
		return;
	}
	while (i < conf->size) {
		const char *w;
		size_t n;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		w = words[x % (sizeof(words) / sizeof(words[0]))];
		n = strlen(w);
		while (*w != '\0' && i < conf->size)
			body[i++] = (unsigned char)*w++;
		col += n + 1;
		if (i < conf->size)
			body[i++] = col > 72 ? '\n' : ' ';
		if (col > 72)
			col = 0;
	}
}

/* Makes the body distinct: nonce, client and counter, without a NUL. */
static void
load_stamp(const struct load_client *cl, unsigned char *body, uint64_t n)
{
	char s[LOAD_STAMP_MAX];
	int len;

	len = snprintf(s, sizeof(s), "intake-load %016" PRIx64 " %u %" PRIu64
	    "\n", cl->conf->nonce, cl->idx, n);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(s))
		len = (int)sizeof(s) - 1;
	memcpy(body, s, (size_t)len < cl->conf->size ? (size_t)len :
	    cl->conf->size);
}

static int
load_more(const struct load_conf *conf, double deadline)
{
	if (conf->count > 0)
		return atomic_fetch_add(&load_issued, 1) < conf->count;
	return load_now() < deadline;
}

static void *
load_client_run(void *arg)
{
	struct load_client *cl = arg;
	const struct load_conf *conf = cl->conf;
	struct curl_slist *hdrs = NULL, *h;
	unsigned char *body = NULL;
	CURL *e = NULL;
	double deadline;
	uint64_t n = 0;

	body = malloc(conf->size ? conf->size : 1);
	e = curl_easy_init();
	hdrs = curl_slist_append(NULL, "Content-Type: application/octet-stream");
	/* No 100-continue round trip: the client sends at once. */
	if (hdrs != NULL && (h = curl_slist_append(hdrs, "Expect:")) != NULL)
		hdrs = h;
	else
		cl->failed = 1;
	if (conf->auth != NULL && hdrs != NULL) {
		if ((h = curl_slist_append(hdrs, conf->auth)) != NULL)
			hdrs = h;
		else
			cl->failed = 1;
	}
	if (body == NULL || e == NULL || hdrs == NULL)
		cl->failed = 1;
	if (!cl->failed) {
		load_fill(conf, body, cl->idx + 1);
		curl_easy_setopt(e, CURLOPT_URL, conf->url);
		curl_easy_setopt(e, CURLOPT_POST, 1L);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, (char *)body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)conf->size);
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, load_discard);
		curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
		curl_easy_setopt(e, CURLOPT_TIMEOUT, conf->timeout);
		curl_easy_setopt(e, CURLOPT_PROXY, "");
	}
	/* Everyone starts together, set up or not (the barrier counts all). */
	pthread_barrier_wait(&load_start);
	deadline = load_now() + conf->seconds;
	while (!cl->failed && load_more(conf, deadline)) {
		CURLcode rc;
		long status = 0, nc = 0;
		double t0, ms;

		load_stamp(cl, body, n++);
		t0 = load_now();
		rc = curl_easy_perform(e);
		ms = (load_now() - t0) * 1e3;
		cl->requests++;
		if (rc == CURLE_OK)
			curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
		if (curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &nc) == CURLE_OK)
			cl->connects += nc;
		if (rc != CURLE_OK || status <= 0 || status >= LOAD_MAX_STATUS) {
			cl->status[0]++;
			if (cl->first_err[0] == '\0')
				snprintf(cl->first_err, sizeof(cl->first_err),
				    "transport: %s", curl_easy_strerror(rc));
			continue;
		}
		cl->status[status]++;
		if (status != conf->expect) {
			if (cl->first_err[0] == '\0')
				snprintf(cl->first_err, sizeof(cl->first_err),
				    "HTTP %ld", status);
			continue;
		}
		cl->bytes += conf->size;
		if (load_lat_add(cl, ms) < 0) {
			cl->failed = 1;
			snprintf(cl->first_err, sizeof(cl->first_err),
			    "out of memory");
		}
	}
	curl_easy_cleanup(e);
	curl_slist_free_all(hdrs);
	free(body);
	return NULL;
}

static int
load_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% at or below it. */
static double
load_pct(const double *v, size_t n, unsigned p)
{
	size_t r;

	if (n == 0)
		return 0;
	r = (n * p + 99) / 100;
	return v[r > 0 ? r - 1 : 0];
}

static int
load_parse_size(const char *s, size_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	if (*end == 'K' || *end == 'k')
		mul = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mul = 1024 * 1024, end++;
	if (*end != '\0' || v > LOAD_MAX_BODY / mul)
		return -1;
	*out = (size_t)(v * mul);
	return 0;
}

static int
load_parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

static int
load_read_file(const char *path, unsigned char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL, *nb;
	size_t cap = 0, n = 0, r;

	if (f == NULL)
		return -1;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > LOAD_MAX_BODY || (nb = realloc(buf, cap)) ==
			    NULL) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f) || n == 0) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	*out = buf;
	*len = n;
	return 0;
}

static void
load_report(const struct load_conf *conf, struct load_client *cls,
    double elapsed)
{
	uint64_t status[LOAD_MAX_STATUS] = {0}, requests = 0, bytes = 0, ok;
	size_t nlat = 0, i, j, k = 0;
	long connects = 0;
	double *all, sum = 0, rps, cpu;
	const char *first_err = "";
	struct rusage ru;
	char errs[512];
	size_t elen = 0;

	for (i = 0; i < conf->clients; i++) {
		requests += cls[i].requests;
		bytes += cls[i].bytes;
		connects += cls[i].connects;
		nlat += cls[i].nlat;
		for (j = 0; j < LOAD_MAX_STATUS; j++)
			status[j] += cls[i].status[j];
		if (first_err[0] == '\0' && cls[i].first_err[0] != '\0')
			first_err = cls[i].first_err;
	}
	all = malloc((nlat ? nlat : 1) * sizeof(*all));
	if (all == NULL) {
		fprintf(stderr, "intake_load: out of memory\n");
		exit(1);
	}
	for (i = 0; i < conf->clients; i++)
		for (j = 0; j < cls[i].nlat; j++) {
			all[k++] = cls[i].lat[j];
			sum += cls[i].lat[j];
		}
	qsort(all, nlat, sizeof(*all), load_cmp);
	ok = (uint64_t)nlat;
	rps = elapsed > 0 ? (double)ok / elapsed : 0;
	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	errs[0] = '\0';
	for (j = 0; j < LOAD_MAX_STATUS; j++) {
		int w;

		if (status[j] == 0 || (long)j == conf->expect)
			continue;
		if (j == 0)
			w = snprintf(errs + elen, sizeof(errs) - elen, "%stransport "
			    "x%" PRIu64, elen ? ", " : "", status[j]);
		else
			w = snprintf(errs + elen, sizeof(errs) - elen, "%sHTTP %zu "
			    "x%" PRIu64, elen ? ", " : "", j, status[j]);
		if (w < 0 || (size_t)w >= sizeof(errs) - elen)
			break;
		elen += (size_t)w;
	}
	printf("intake_load: %u clients, %zu-byte bodies, %.2f s: %" PRIu64
	    " acknowledged (%" PRIu64 " errors%s%s), %.1f/s, %.1f MB/s; "
	    "latency ms p50 %.2f p90 %.2f p99 %.2f max %.2f; %ld connections; "
	    "client CPU %.2f s\n", conf->clients, conf->size, elapsed, ok,
	    requests - ok, elen ? ": " : "", errs, rps, (double)bytes / 1e6 / (elapsed > 0 ? elapsed : 1),
	    load_pct(all, nlat, 50), load_pct(all, nlat, 90),
	    load_pct(all, nlat, 99), nlat ? all[nlat - 1] : 0, connects, cpu);
	if (first_err[0] != '\0')
		printf("intake_load: first error: %s\n", first_err);
	printf("RESULT clients=%u size=%zu seconds=%.3f requests=%" PRIu64
	    " ok=%" PRIu64 " errors=%" PRIu64 " rps=%.2f mbps=%.3f "
	    "mean_ms=%.3f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f "
	    "connects=%ld client_cpu_s=%.3f\n", conf->clients, conf->size,
	    elapsed, requests, ok, requests - ok, rps,
	    (double)bytes / 1e6 / (elapsed > 0 ? elapsed : 1),
	    nlat ? sum / (double)nlat : 0, load_pct(all, nlat, 50),
	    load_pct(all, nlat, 90), load_pct(all, nlat, 99),
	    nlat ? all[nlat - 1] : 0, connects, cpu);
	free(all);
}

int
main(int argc, char **argv)
{
	struct load_conf conf;
	struct load_client *cls;
	unsigned char *tmpl = NULL;
	const char *tok, *tmpl_path = NULL;
	char *auth = NULL;
	struct timespec t0;
	double v, elapsed;
	unsigned i, started = 0;
	int c, ret = 1;

	memset(&conf, 0, sizeof(conf));
	conf.clients = 32;
	conf.size = 10 * 1024;
	conf.seconds = 10;
	conf.expect = 201;
	conf.timeout = 120;
	while ((c = getopt(argc, argv, "u:c:s:d:n:f:e:t:h")) != -1) {
		switch (c) {
		case 'u': conf.url = optarg; break;
		case 'f': tmpl_path = optarg; break;
		case 'c':
			if (load_parse_num(optarg, 1, LOAD_MAX_CLIENTS, &v) < 0)
				goto usage;
			conf.clients = (unsigned)v;
			break;
		case 's':
			if (load_parse_size(optarg, &conf.size) < 0)
				goto usage;
			break;
		case 'd':
			if (load_parse_num(optarg, 0.01, 86400, &v) < 0)
				goto usage;
			conf.seconds = v;
			conf.count = 0;
			break;
		case 'n':
			if (load_parse_num(optarg, 1, 1e12, &v) < 0)
				goto usage;
			conf.count = (uint64_t)v;
			conf.seconds = 0;
			break;
		case 'e':
			if (load_parse_num(optarg, 100, LOAD_MAX_STATUS - 1, &v) < 0)
				goto usage;
			conf.expect = (long)v;
			break;
		case 't':
			if (load_parse_num(optarg, 1, 86400, &v) < 0)
				goto usage;
			conf.timeout = (long)v;
			break;
		case 'h':
			fputs(load_usage, stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (optind != argc || conf.url == NULL)
		goto usage;
	if (tmpl_path != NULL && load_read_file(tmpl_path, &tmpl,
	    &conf.tmpl_len) < 0) {
		fprintf(stderr, "intake_load: cannot read %s (or it is empty)\n",
		    tmpl_path);
		return 1;
	}
	conf.tmpl = tmpl;
	if ((tok = getenv("INTAKE_LOAD_TOKEN")) != NULL && tok[0] != '\0') {
		size_t n = strlen(tok) + sizeof("Authorization: Bearer ");

		if ((auth = malloc(n)) == NULL)
			goto out;
		snprintf(auth, n, "Authorization: Bearer %s", tok);
		conf.auth = auth;
	}
	conf.nonce = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^
	    ((uint64_t)(uintptr_t)&conf << 7);
	if (curl_global_init(CURL_GLOBAL_ALL) != 0) {
		fprintf(stderr, "intake_load: curl_global_init failed\n");
		goto out;
	}
	cls = calloc(conf.clients, sizeof(*cls));
	if (cls == NULL || pthread_barrier_init(&load_start, NULL,
	    conf.clients + 1) != 0) {
		fprintf(stderr, "intake_load: out of memory\n");
		free(cls);
		goto out_curl;
	}
	for (i = 0; i < conf.clients; i++) {
		cls[i].conf = &conf;
		cls[i].idx = i;
		if (pthread_create(&cls[i].th, NULL, load_client_run, &cls[i]) != 0)
			break;
		started++;
	}
	if (started < conf.clients) {
		/* The barrier waits for all: say so and stop the hard way. */
		fprintf(stderr, "intake_load: could start only %u of %u clients\n",
		    started, conf.clients);
		exit(1);
	}
	pthread_barrier_wait(&load_start);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < conf.clients; i++)
		pthread_join(cls[i].th, NULL);
	elapsed = load_since(&t0);
	for (i = 0; i < conf.clients; i++)
		if (cls[i].failed && cls[i].nlat == 0 && cls[i].requests == 0) {
			fprintf(stderr, "intake_load: client %u could not be set "
			    "up\n", i);
			break;
		}
	if (i == conf.clients) {
		load_report(&conf, cls, elapsed);
		ret = 0;
	}
	for (i = 0; i < conf.clients; i++)
		free(cls[i].lat);
	free(cls);
	pthread_barrier_destroy(&load_start);
out_curl:
	curl_global_cleanup();
out:
	free(auth);
	free(tmpl);
	return ret;
usage:
	fputs(load_usage, stderr);
	return 1;
}
