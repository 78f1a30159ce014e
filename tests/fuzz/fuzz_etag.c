/*
 * fuzz_etag.c - fuzz target for what the review UI reads of a request
 * (gate/serve/ui.c): arbitrary bytes as an If-None-Match header against a
 * file's ETag (srv_ui_etag_match), and as a path (srv_ui_route).
 *
 * Nothing may crash or read past the header's end; a match needs the ETag
 * or "*" in the header; the ETag alone, its weak form, and the header
 * followed by ", *" always match; a path's route is what its prefix says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char etag[] = "\"sha256:0123456789abcdef0123456789abcdef\"";

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
check_route(const char *url)
{
	enum route r = srv_ui_route(url);
	int ui = strncmp(url, "/ui/", 4) == 0;

	if ((r == R_UI_ROOT) != (strcmp(url, "/") == 0) ||
	    (r == R_UI_INDEX) != (strcmp(url, "/ui/") == 0) ||
	    (r == R_UI_IMG) != (ui && strncmp(url + 4, "img/", 4) == 0) ||
	    (r == R_UI_FILE) != (ui && url[4] != '\0' &&
	    strncmp(url + 4, "img/", 4) != 0) ||
	    (r == R_NONE) != (!ui && strcmp(url, "/") != 0))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *h, *more;
	int m;

	/* Exactly its size and a NUL, as libmicrohttpd hands a header. */
	if ((h = malloc(size + 1)) == NULL || (more = malloc(size + 4)) ==
	    NULL)
		abort();
	memcpy(h, data, size);
	h[size] = '\0';
	m = srv_ui_etag_match(h, etag);
	if (m != 0 && m != 1)
		abort();
	if (m && strchr(h, '*') == NULL && strstr(h, etag) == NULL)
		abort();
	if (!srv_ui_etag_match(etag, etag) ||
	    !srv_ui_etag_match("W/" "\"sha256:0123456789abcdef0123456789abcdef\"",
	    etag))
		abort();
	/* A "*" after a well-formed list matches; after anything else, the
	 * header is not a list and nothing is promised. */
	memcpy(more, h, strlen(h));
	memcpy(more + strlen(h), ", *", 4);
	if (m && !srv_ui_etag_match(more, etag))
		abort();
	check_route(h);
	free(more);
	free(h);
	return 0;
}
