/*
 * cmd_audit_log.c - `airlock audit log` and `airlock audit query NAME`:
 * the auditor's questions, answered from the audit log's entries (what the
 * log says, as `audit verify` checks it), on the gate's data directory.
 *
 * log lists entries, filtered by time (--since, --until: an ISO 8601 date
 * or time in UTC, or ms since the epoch), actor (a token's name), person,
 * action and submission. query NAME answers one of the common questions:
 *
 *   approvals          everything approved (by --person, in the window)
 *   overrides          every override and who made it
 *   unscannable        every unscannable scan, and what became of it
 *   self-approvals     approvals by the submitter or the person the agent
 *                      was launched for                    (must be empty)
 *   unattested         releases without an attestation     (must be empty)
 *   after-revocation   tokens that acted after their revocation, after
 *                      their person was disabled, or once the expiry in
 *                      their token.create had passed (must be empty;
 *                      refused attempts are not acts)
 *
 * Output: text, or --json (one JSON object per entry and line, every field
 * of the entry, the text scheme of json_text.h for text), or --csv (RFC
 * 4180, the same fields). Exit 0, or 1 when a must-be-empty query is not.
 *
 * Trust: the data directory's entries are read as they are stored; run
 * `airlock audit verify` to know they are the log's.
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit.h"
#include "dirs.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "json_text.h"
#include "os.h"
#include "util.h"

static const char log_usage[] =
    "usage: airlock audit log [--since T] [--until T] [--actor NAME]\n"
    "           [--person NAME] [--action A] [--submission ID]\n"
    "           [--json|--csv] [--data DIR]\n"
    "       airlock audit query NAME [--since T] [--until T] [--person NAME]\n"
    "           [--json|--csv] [--data DIR]\n"
    "\n"
    "log     the audit log's entries, filtered; T is an ISO 8601 date or time\n"
    "        in UTC (2026-12-01, 2026-12-01T10:00:00Z) or ms since the epoch\n"
    "query   approvals | overrides | unscannable | self-approvals |\n"
    "        unattested | after-revocation (the last three must be empty:\n"
    "        exit 1 when they are not)\n"
    "  --json   one JSON object per entry and line\n"
    "  --csv    RFC 4180 CSV with a header line\n";

/* The fields of an entry, in order (docs/audit.md). */
static const char *const fields[] = {
	"index", "event", "at", "action", "actor", "actor-name", "actor-role",
	"person", "person-name", "submission", "sha256", "detail",
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
#define FIELD_MAX 8192

enum { OUT_TEXT, OUT_JSON, OUT_CSV };

struct row {
	char v[NFIELDS][FIELD_MAX];
};

struct filter {
	int has_since, has_until;
	int64_t since, until;
	const char *actor, *person, *action;
	int64_t submission;       /* 0: any */
};

enum query { Q_LOG, Q_APPROVALS, Q_OVERRIDES, Q_UNSCANNABLE, Q_SELF,
	Q_UNATTESTED, Q_REVOKED };

static const char *const query_names[] = {
	[Q_APPROVALS] = "approvals", [Q_OVERRIDES] = "overrides",
	[Q_UNSCANNABLE] = "unscannable", [Q_SELF] = "self-approvals",
	[Q_UNATTESTED] = "unattested", [Q_REVOKED] = "after-revocation",
};

/* What a query remembers while reading the log in order. */
struct seen {
	int64_t sub;              /* submit: the submission, its actor, person */
	char actor[256], person[32];
};
enum rev_kind { REV_TOKEN, REV_PERSON, REV_EXPIRY };
struct revoked {
	char name[1024];          /* a token's name, or a person's */
	enum rev_kind kind;       /* REV_PERSON: every token of theirs */
	int64_t at;               /* revoked, disabled or expired then */
};

struct ctx {
	struct filter f;
	enum query q;
	int out;
	size_t printed;
	struct row *r;            /* scratch */
	struct seen *subs;
	size_t nsubs, capsubs;
	struct revoked *rev;
	size_t nrev, caprev;
	/* unscannable: the submissions whose latest scan was, by index */
	struct row *unsc;
	size_t nunsc, capunsc;
	char (*fate)[64];
};

/* "2026-12-01", "2026-12-01T10:00:00Z", "...:00.123Z" or ms. */
static int
parse_time(const char *s, int64_t *out)
{
	struct tm tm;
	const char *end;
	int64_t ms = 0;

	if (*s < '0' || *s > '9')
		return al_err_set(AL_EINVAL, "%s: not a time (2026-12-01, "
		    "2026-12-01T10:00:00Z or ms since the epoch)", s);
	if (strspn(s, "0123456789") == strlen(s)) {
		*out = strtoll(s, NULL, 10);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL) {
		memset(&tm, 0, sizeof(tm));
		if ((end = strptime(s, "%Y-%m-%d", &tm)) == NULL || *end != '\0')
			return al_err_set(AL_EINVAL, "%s: not a time (2026-12-01, "
			    "2026-12-01T10:00:00Z or ms since the epoch)", s);
	} else {
		if (*end == '.') {
			int k;

			for (k = 0, end++; k < 3 && *end >= '0' && *end <= '9';
			    k++, end++)
				ms = ms * 10 + (*end - '0');
			if (k == 0)
				return al_err_set(AL_EINVAL, "%s: no digits after the "
				    "point", s);
			for (; k < 3; k++)
				ms *= 10;
		}
		if (strcmp(end, "Z") != 0 && *end != '\0')
			return al_err_set(AL_EINVAL, "%s: a time is in UTC (Z)", s);
	}
	{
		/* Strict: a date that timegm would move (2026-02-31) is not. */
		struct tm back, want = tm;
		time_t t = timegm(&tm);

		if (gmtime_r(&t, &back) == NULL || back.tm_year != want.tm_year ||
		    back.tm_mon != want.tm_mon || back.tm_mday != want.tm_mday ||
		    back.tm_hour != want.tm_hour || back.tm_min != want.tm_min ||
		    back.tm_sec != want.tm_sec)
			return al_err_set(AL_EINVAL, "%s: no such time", s);
		*out = (int64_t)t * 1000 + ms;
	}
	return 0;
}

static int
read_row(const struct db_audit_leaf *l, struct row *r)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		if (gate_entry_field(l->entry, l->entry_len, fields[i], r->v[i],
		    FIELD_MAX) < 0)
			r->v[i][0] = '\0';
	return 0;
}

static const char *
fv(const struct row *r, const char *name)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		if (strcmp(fields[i], name) == 0)
			return r->v[i];
	return "";
}

static int
detail_has(const char *detail, const char *tok)
{
	size_t n = strlen(tok);
	const char *p = detail;

	while ((p = strstr(p, tok)) != NULL) {
		if ((p == detail || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

static void
csv_field(const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static const char *const rev_said[] = {
	[REV_TOKEN] = "after its revocation",
	[REV_PERSON] = "after its person was disabled",
	[REV_EXPIRY] = "after its expiry",
};

/* The last occurrence of needle in s, or NULL. */
static const char *
last_of(const char *s, const char *needle)
{
	const char *q, *end = NULL;

	for (q = s; (q = strstr(q, needle)) != NULL; q++)
		end = q;
	return end;
}

/* Remembers that the token (or person) name[0..n) stops at `at`. */
static int
rev_add(struct ctx *c, const char *name, size_t n, enum rev_kind kind,
    int64_t at)
{
	if (c->nrev == c->caprev) {
		size_t cap = c->caprev ? 2 * c->caprev : 16;
		void *nv = realloc(c->rev, cap * sizeof(*c->rev));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		c->rev = nv;
		c->caprev = cap;
	}
	snprintf(c->rev[c->nrev].name, sizeof(c->rev[0].name), "%.*s",
	    (int)(n < sizeof(c->rev[0].name) ? n : sizeof(c->rev[0].name) - 1),
	    name);
	c->rev[c->nrev].kind = kind;
	c->rev[c->nrev++].at = at;
	return 0;
}

static int
emit(struct ctx *c, const struct row *r, const char *extra_key,
    const char *extra)
{
	size_t i;
	char t[32];

	c->printed++;
	if (c->out == OUT_JSON) {
		json_t *o = json_object();
		char *line;

		for (i = 0; o != NULL && i < NFIELDS; i++) {
			const char *v = r->v[i];

			if (strcmp(fields[i], "index") == 0 ||
			    strcmp(fields[i], "event") == 0 ||
			    strcmp(fields[i], "at") == 0 ||
			    strcmp(fields[i], "actor") == 0 ||
			    strcmp(fields[i], "person") == 0 ||
			    strcmp(fields[i], "submission") == 0)
				json_object_set_new(o, fields[i],
				    json_integer(strtoll(v, NULL, 10)));
			else if (al_json_set_textz(o, fields[i], v) < 0)
				return al_err_set(AL_ENOMEM, "out of memory");
		}
		if (o != NULL && extra_key != NULL)
			json_object_set_new(o, extra_key, json_string(extra));
		if (o == NULL || (line = json_dumps(o, JSON_COMPACT |
		    JSON_SORT_KEYS)) == NULL) {
			json_decref(o);
			return al_err_set(AL_ENOMEM, "out of memory");
		}
		puts(line);
		free(line);
		json_decref(o);
		return 0;
	}
	if (c->out == OUT_CSV) {
		if (c->printed == 1) {
			for (i = 0; i < NFIELDS; i++)
				printf("%s%s", i ? "," : "", fields[i]);
			printf("%s%s\n", extra_key ? "," : "", extra_key ?
			    extra_key : "");
		}
		for (i = 0; i < NFIELDS; i++) {
			if (i)
				putchar(',');
			csv_field(r->v[i]);
		}
		if (extra_key != NULL) {
			putchar(',');
			csv_field(extra);
		}
		putchar('\n');
		return 0;
	}
	al_time_iso(strtoll(fv(r, "at"), NULL, 10), t);
	printf("%7s  %s  %-16s %s%s%s%s  sub %s: %s%s%s\n", fv(r, "index"), t,
	    fv(r, "action"), fv(r, "actor-name")[0] ? fv(r, "actor-name") :
	    "the gate", fv(r, "person-name")[0] ? " (" : "",
	    fv(r, "person-name"), fv(r, "person-name")[0] ? ")" : "",
	    fv(r, "submission"), fv(r, "detail"), extra_key ? "  -> " : "",
	    extra ? extra : "");
	return 0;
}

static int
passes(const struct ctx *c, const struct row *r)
{
	int64_t at = strtoll(fv(r, "at"), NULL, 10);

	return (!c->f.has_since || at >= c->f.since) &&
	    (!c->f.has_until || at < c->f.until) &&
	    (c->f.actor == NULL || strcmp(fv(r, "actor-name"), c->f.actor) == 0) &&
	    (c->f.person == NULL || strcmp(fv(r, "person-name"), c->f.person) ==
	    0) && (c->f.action == NULL || strcmp(fv(r, "action"), c->f.action) ==
	    0) && (c->f.submission == 0 || strtoll(fv(r, "submission"), NULL,
	    10) == c->f.submission);
}

static struct seen *
find_sub(struct ctx *c, int64_t sub)
{
	size_t i;

	for (i = c->nsubs; i-- > 0;)
		if (c->subs[i].sub == sub)
			return &c->subs[i];
	return NULL;
}

static int
each(void *arg, const struct db_audit_leaf *l)
{
	struct ctx *c = arg;
	struct row *r = c->r;
	const char *act;
	int64_t sub;
	size_t i;
	int rc;

	read_row(l, r);
	act = fv(r, "action");
	sub = strtoll(fv(r, "submission"), NULL, 10);
	/* What the questions need to remember, whatever the filters. */
	if (strcmp(act, "submit") == 0) {
		struct seen *s;

		if (c->nsubs == c->capsubs) {
			void *nv = realloc(c->subs, (c->capsubs = c->capsubs ?
			    2 * c->capsubs : 64) * sizeof(*c->subs));

			if (nv == NULL)
				return al_err_set(AL_ENOMEM, "out of memory");
			c->subs = nv;
		}
		s = &c->subs[c->nsubs++];
		s->sub = sub;
		snprintf(s->actor, sizeof(s->actor), "%s", fv(r, "actor-name"));
		snprintf(s->person, sizeof(s->person), "%s", fv(r, "person"));
	} else if (strcmp(act, "token.revoke") == 0 ||
	    strcmp(act, "person.disable") == 0) {
		/* A token revoked by name, or every token of a person disabled
		 * ("name=PERSON tokens_revoked=N"; a person's name may hold
		 * spaces, so up to the last " tokens_revoked="). */
		const char *d = fv(r, "detail"), *end;
		int person = act[0] == 'p';

		end = person ? last_of(d, " tokens_revoked=") : d + strlen(d);
		if (strncmp(d, "name=", 5) == 0 && end != NULL &&
		    (rc = rev_add(c, d + 5, (size_t)(end - d - 5), person ?
		    REV_PERSON : REV_TOKEN, strtoll(fv(r, "at"), NULL, 10))) < 0)
			return rc;
	} else if (strcmp(act, "token.create") == 0) {
		/* "name=N role=R ... expires=MS" (0: never; older entries do
		 * not say). */
		const char *d = fv(r, "detail"), *end = strstr(d, " role=");
		const char *x = last_of(d, " expires=");
		int64_t at = x != NULL ? strtoll(x + 9, NULL, 10) : 0;

		if (strncmp(d, "name=", 5) == 0 && end != NULL && at > 0 &&
		    (rc = rev_add(c, d + 5, (size_t)(end - d - 5), REV_EXPIRY,
		    at)) < 0)
			return rc;
	}
	switch (c->q) {
	case Q_LOG:
		return passes(c, r) ? emit(c, r, NULL, NULL) : 0;
	case Q_APPROVALS:
		return strcmp(act, "approve") == 0 && passes(c, r) ?
		    emit(c, r, NULL, NULL) : 0;
	case Q_OVERRIDES:
		return strcmp(act, "override") == 0 && passes(c, r) ?
		    emit(c, r, NULL, NULL) : 0;
	case Q_SELF: {
		const struct seen *s = find_sub(c, sub);

		return strcmp(act, "approve") == 0 && s != NULL && passes(c, r) &&
		    (strcmp(s->actor, fv(r, "actor-name")) == 0 ||
		    (strcmp(s->person, "0") != 0 && strcmp(s->person,
		    fv(r, "person")) == 0)) ? emit(c, r, NULL, NULL) : 0;
	}
	case Q_UNATTESTED:
		return strcmp(act, "release") == 0 && passes(c, r) &&
		    !detail_has(fv(r, "detail"), "attested=yes") ?
		    emit(c, r, NULL, NULL) : 0;
	case Q_REVOKED: {
		size_t n = strlen(act);

		if (n > 8 && strcmp(act + n - 8, ".refused") == 0)
			return 0;
		for (i = 0; i < c->nrev; i++)
			if (strcmp(c->rev[i].name, fv(r, c->rev[i].kind ==
			    REV_PERSON ? "person-name" : "actor-name")) == 0 &&
			    fv(r, "actor-name")[0] != '\0' &&
			    strtoll(fv(r, "at"), NULL, 10) > c->rev[i].at -
			    (c->rev[i].kind == REV_EXPIRY) && passes(c, r))
				return emit(c, r, "revoked_at", rev_said[
				    c->rev[i].kind]);
		return 0;
	}
	case Q_UNSCANNABLE:
		if (strcmp(act, "scan.finish") == 0 &&
		    detail_has(fv(r, "detail"), "verdict=unscannable") &&
		    passes(c, r)) {
			if (c->nunsc == c->capunsc) {
				size_t cap = c->capunsc ? 2 * c->capunsc : 16;
				void *nv = realloc(c->unsc, cap * sizeof(*c->unsc));

				if (nv == NULL)
					return al_err_set(AL_ENOMEM, "out of memory");
				c->unsc = nv;
				if ((nv = realloc(c->fate, cap * sizeof(*c->fate))) ==
				    NULL)
					return al_err_set(AL_ENOMEM, "out of memory");
				c->fate = nv;
				c->capunsc = cap;
			}
			memcpy(&c->unsc[c->nunsc], r, sizeof(*r));
			snprintf(c->fate[c->nunsc++], sizeof(c->fate[0]), "held");
			return 0;
		}
		/* What became of it: the last decisive event after it. */
		for (i = c->nunsc; i-- > 0;)
			if (strtoll(fv(&c->unsc[i], "submission"), NULL, 10) == sub) {
				if (strcmp(act, "override") == 0 ||
				    strcmp(act, "reject") == 0 ||
				    strcmp(act, "release") == 0 ||
				    strcmp(act, "expire") == 0 ||
				    strcmp(act, "approved") == 0 ||
				    strcmp(act, "scan.start") == 0)
					snprintf(c->fate[i], sizeof(c->fate[0]), "%s",
					    strcmp(act, "scan.start") == 0 ? "scanned again" :
					    act);
				break;
			}
		return 0;
	}
	return 0;
}

int
cmd_audit_log(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"since", required_argument, NULL, 's'},
		{"until", required_argument, NULL, 'u'},
		{"actor", required_argument, NULL, 'a'},
		{"person", required_argument, NULL, 'p'},
		{"action", required_argument, NULL, 'A'},
		{"submission", required_argument, NULL, 'S'},
		{"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct ctx c;
	const char *data_opt = NULL;
	char *dir = NULL;
	struct db *db = NULL;
	struct dynbuf p;
	size_t i;
	int ch, rc, ret = EXIT_ERROR, isquery = strcmp(argv[0], "query") == 0;

	memset(&c, 0, sizeof(c));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			data_opt = optarg;
			break;
		case 's':
		case 'u':
			if (parse_time(optarg, ch == 's' ? &c.f.since :
			    &c.f.until) < 0) {
				fprintf(stderr, "airlock audit: %s\n", al_err_msg());
				return EXIT_ERROR;
			}
			*(ch == 's' ? &c.f.has_since : &c.f.has_until) = 1;
			break;
		case 'a':
			c.f.actor = optarg;
			break;
		case 'p':
			c.f.person = optarg;
			break;
		case 'A':
			c.f.action = optarg;
			break;
		case 'S':
			if ((c.f.submission = strtoll(optarg, NULL, 10)) <= 0) {
				fprintf(stderr, "airlock audit: --submission takes an "
				    "id\n");
				return EXIT_ERROR;
			}
			break;
		case 'j':
			c.out = OUT_JSON;
			break;
		case 'c':
			c.out = OUT_CSV;
			break;
		case 'h':
			fputs(log_usage, stdout);
			return EXIT_OK;
		default:
			fputs(log_usage, stderr);
			return EXIT_ERROR;
		}
	}
	if (isquery) {
		if (argc - optind != 1)
			goto usage;
		for (i = Q_APPROVALS; i <= Q_REVOKED; i++)
			if (strcmp(argv[optind], query_names[i]) == 0)
				c.q = (enum query)i;
		if (c.q == Q_LOG) {
			fprintf(stderr, "airlock audit: no query '%s'\n\n",
			    argv[optind]);
			goto usage;
		}
		if (c.f.actor || c.f.action || c.f.submission) {
			fprintf(stderr, "airlock audit: a query takes --since, "
			    "--until and --person\n\n");
			goto usage;
		}
	} else if (argc - optind != 0) {
		goto usage;
	}
	dynbuf_init(&p, 8192);
	if ((dir = gate_data_dir(data_opt)) == NULL ||
	    dynbuf_addf(&p, "%s/airlock.db", dir) < 0) {
		al_err_set(AL_ENOMEM, "out of memory");
		goto fail;
	}
	if ((c.r = malloc(sizeof(*c.r))) == NULL) {
		al_err_set(AL_ENOMEM, "out of memory");
		goto fail;
	}
	if (db_open(&db, dynbuf_str(&p), 0) < 0 ||
	    (rc = db_audit_each(db, 0, each, &c)) != 0)
		goto fail;
	for (i = 0; i < c.nunsc; i++)
		if (emit(&c, &c.unsc[i], "fate", c.fate[i]) < 0)
			goto fail;
	if (fflush(stdout) != 0) {
		al_err_set(AL_EIO, "stdout: write failed");
		goto fail;
	}
	if (c.out == OUT_TEXT)
		fprintf(stderr, "airlock audit: %zu entr%s\n", c.printed,
		    c.printed == 1 ? "y" : "ies");
	ret = (c.q == Q_SELF || c.q == Q_UNATTESTED || c.q == Q_REVOKED) &&
	    c.printed > 0 ? EXIT_FINDINGS : EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "airlock audit: %s\n", al_err_msg());
out:
	free(c.r);
	free(c.subs);
	free(c.rev);
	free(c.unsc);
	free(c.fate);
	db_close(db);
	free(dir);
	dynbuf_free(&p);
	return ret;
usage:
	fputs(log_usage, stderr);
	return EXIT_ERROR;
}
