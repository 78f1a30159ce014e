/*
 * inproc.c - the scan child's API served in the calling process, for
 * `airlock scan --no-sandbox`; see scan_child.h.
 *
 * Trust: none of the sandbox's. Hostile bytes reach libarchive, libgit2,
 * libmagic and the regex engines here, in a process that can open files
 * and use the network. It exists to debug the readers (a debugger, a
 * sanitizer's report) and is only ever used when asked for, with a
 * warning; the gate service never uses it.
 */
#include <stdlib.h>

#include "err.h"
#include "parent.h"
#include "scan_archive.h"
#include "scan_artifact.h"
#include "scan_patch.h"

int
scan_inproc_start(struct scan_child **out, const struct scan_engine *e)
{
	static int started;
	struct scan_child *c;
	int rc;

	*out = NULL;
	/* Process-wide, once: libgit2, and the character sets (and locale)
	 * archive names are converted with. */
	if (!started) {
		if ((rc = scan_git_init()) < 0 || (rc = scan_archive_warm()) < 0)
			return rc;
		started = 1;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	c->e = e;
	c->sock = -1;
	if ((rc = scan_worker_new(&c->inproc, e)) < 0 ||
	    (rc = scan_worker_enable_types(c->inproc)) < 0) {
		scan_worker_free(c->inproc);
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int
inproc_scan_batch(struct scan_child *c, const struct scan_req *reqs,
    size_t nreqs)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < nreqs && rc == 0; i++) {
		const struct scan_req *r = &reqs[i];

		if (r->items != NULL &&
		    (rc = scan_worker_collect_items(c->inproc, r->items)) < 0)
			break;
		rc = scan_artifact_fd(c->inproc, r->fd, r->path, r->relpath,
		    r->kind, r->out, r->bytes, r->digest, r->kind_read);
		if (r->items != NULL)
			(void)scan_worker_collect_items(c->inproc, NULL);
	}
	return rc;
}
