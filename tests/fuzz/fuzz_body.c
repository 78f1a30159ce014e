/*
 * fuzz_body.c - fuzz target for what the review API reads from a request
 * before it touches the database (gate/serve/): the JSON bodies of POST
 * /v1/tokens (srv_token_body), of approve, reject and override
 * (srv_decide_body) and of POST /v1/persons (srv_person_body), and the
 * Range header of a content request (srv_range_parse).
 *
 * Input layout: the first byte picks the reader (modulo 6); the rest is
 * the body, or for a range 8 bytes of content size then the header (up
 * to a NUL, as libmicrohttpd hands it over).
 *
 * Nothing may crash or leak, and what a reader accepts must hold what the
 * endpoint then relies on: a token's role is known, its name is letters,
 * digits and . _ - @ (at most 64), its ttl from 1s to 365d, on_behalf_of
 * for an agent only and always for one; an approval names a sha256 and a
 * rule set; a reason is not empty and no longer than 4096 bytes; a
 * person's name and email are bounded and the email has an @; a range
 * lies within the content and is not empty. A refusal says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "serve.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
token(const char *p, size_t n)
{
	struct srv_token_body b;
	const char *why = NULL;

	if (srv_token_body(&b, p, n, &why) < 0) {
		if (why == NULL || why[0] == '\0' || b.json != NULL)
			abort();
		return;
	}
	if (b.json == NULL || b.role_id < 0 || b.role_id >= DB_ROLE_MAX ||
	    strcmp(db_role_name((enum db_role)b.role_id), b.role) != 0 ||
	    !srv_name_ok(b.name, 64) ||
	    (b.ttl == NULL) != (b.ttl_ms == 0) ||
	    (b.ttl != NULL && (b.ttl_ms < 1000 ||
	    b.ttl_ms > 365LL * 86400000)) ||
	    (b.role_id == DB_ROLE_AGENT) != (b.on_behalf_of != NULL) ||
	    (b.role_id == DB_ROLE_AGENT && b.person != NULL))
		abort();
	json_decref(b.json);
}

static void
decide(enum route route, const char *p, size_t n)
{
	struct srv_decide_body b;
	const char *why = NULL;

	if (srv_decide_body(&b, route, p, n, &why) < 0) {
		if (why == NULL || why[0] == '\0' || b.json != NULL)
			abort();
		return;
	}
	if (b.json == NULL ||
	    (route == R_APPROVE && (b.sha256 == NULL || b.ruleset == NULL)) ||
	    (route != R_APPROVE && (b.text == NULL || b.text[0] == '\0' ||
	    b.sha256 != NULL || b.ruleset != NULL)) ||
	    (b.text != NULL && strlen(b.text) > 4096))
		abort();
	json_decref(b.json);
}

static void
person(const char *p, size_t n)
{
	struct srv_person_body b;
	const char *why = NULL;

	if (srv_person_body(&b, p, n, &why) < 0) {
		if (why == NULL || why[0] == '\0' || b.json != NULL)
			abort();
		return;
	}
	if (b.json == NULL || b.name == NULL || strlen(b.name) > 256 ||
	    (b.email != NULL && (strlen(b.email) > 256 ||
	    strchr(b.email, '@') == NULL)))
		abort();
	json_decref(b.json);
}

static void
range(const uint8_t *p, size_t n)
{
	uint64_t size = 0, off = 0, len = 0;
	char h[256];
	size_t i;

	for (i = 0; i < 8 && i < n; i++)
		size = size << 8 | p[i];
	/* Small sizes too, where the edges are. */
	if (size >> 63)
		size &= 0xffff;
	p += i;
	n -= i;
	if (n >= sizeof(h))
		n = sizeof(h) - 1;
	memcpy(h, p, n);
	h[n] = '\0';
	if (srv_range_parse(h, size, &off, &len) == 0 &&
	    (len == 0 || off >= size || len > size - off))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The body in a buffer of exactly its size (no NUL after it), as a
	 * (pointer, length) reader must take it. */
	char *body;
	size_t n = size > 0 ? size - 1 : 0;

	if (size == 0)
		return 0;
	if (data[0] % 6 == 5) {
		range(data + 1, n);
		return 0;
	}
	if ((body = malloc(n ? n : 1)) == NULL)
		abort();
	memcpy(body, data + 1, n);
	switch (data[0] % 6) {
	case 0:
		token(body, n);
		break;
	case 1:
		decide(R_APPROVE, body, n);
		break;
	case 2:
		decide(R_REJECT, body, n);
		break;
	case 3:
		decide(R_OVERRIDE, body, n);
		break;
	default:
		person(body, n);
		break;
	}
	free(body);
	return 0;
}
