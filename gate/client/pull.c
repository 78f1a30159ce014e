/*
 * pull.c - `airlock pull`: fetches the bytes of a released submission,
 * checks them against the released sha256 (nothing is written when they
 * differ) and delivers them by kind: a patch or mailbox to standard output
 * (or -o FILE), an archive unpacked beneath the directory -o DIR, a bundle
 * or a file written to -o PATH (default: its base name).
 *
 * The kind is the gate's: the one its scan read the content as (the
 * submission's "kind"), never sniffed here from the bytes; the dispatch on
 * it is cmd_pull's one if/else. The archive itself is never
 * parsed in this process: pull_archive hands the bytes, in a memfd, to
 * extract_archive_fd (scanners/parent/extract.c), whose sandboxed child
 * unpacks them beneath a temporary directory inside DIR; this process
 * checks that tree and moves it into DIR whole, or removes it.
 *
 * Trust: the bytes were scanned and approved before their release, but the
 * unpacking treats the archive as hostile (extract.h). Names from the
 * archive and refusals from the gate are escaped before they are printed.
 * The token is never printed.
 *
 * Exit status: 0 written, 1 refused by the gate (or not released), 2
 * usage, transport or server errors, bytes that do not match, and an
 * archive that is refused or cannot be unpacked.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "client_int.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "os.h"
#include "scan.h"
#include "term.h"
#include "util.h"
#include "vocab.h"

static const char pull_usage[] =
    "usage: airlock pull [options] ID [-o PATH]\n"
    "\n"
    "Fetches released bytes (checked against their sha256): a patch or\n"
    "mailbox goes to stdout (airlock pull 42 | git am); a bundle is written\n"
    "to PATH (default: its name), for git fetch; a file is written to PATH\n"
    "(default: its name).\n"
    "\n"
    "An archive (tar in any compression, zip, 7z, cpio) is unpacked into the\n"
    "directory PATH (required; made if missing, its parent must exist),\n"
    "top level only (archives inside stay files), by a sandboxed child that\n"
    "writes only beneath PATH/.airlock-pull.XXXXXXXXXXXX. When every entry\n"
    "is written and the tree checked, its top-level names are moved into\n"
    "PATH; a name PATH has already stops the pull before anything moves (it\n"
    "never overwrites or merges). Any refusal leaves PATH as it was (and\n"
    "removes PATH if pull made it). Refused: absolute names, '..', .git in\n"
    "any spelling, an entry beneath a symbolic link, links that are absolute\n"
    "or lead out of PATH, hard links, devices, FIFOs, sockets, a name twice.\n"
    "setuid, setgid and sticky bits are dropped; modes less the umask;\n"
    "directories keep owner rwx. Each entry written is listed on stdout.\n"
    "\n"
    "options:\n"
    "  -o, --output PATH    where to write (see above)\n"
    CLIENT_USAGE_OPTIONS;

static const char *
entry_type_name(enum extract_type t)
{
	return t == EXTRACT_DIR ? "dir " : t == EXTRACT_LINK ? "link" : "file";
}

/* The entries written, then one line of totals. */
static void
pull_summary(const struct extract_report *rep, const char *dir)
{
	char size[32];
	size_t i;

	for (i = 0; i < rep->n; i++) {
		const struct extract_entry *e = &rep->v[i];

		al_human_size(size, sizeof(size), (int64_t)e->size);
		printf("%s %04o %12s  ", entry_type_name(e->type),
		    (unsigned)e->mode, e->type == EXTRACT_FILE ? size : "-");
		al_term_put(stdout, e->path);
		if (e->link != NULL) {
			fputs(" -> ", stdout);
			al_term_put(stdout, e->link);
		}
		fputc('\n', stdout);
	}
	al_human_size(size, sizeof(size), (int64_t)rep->bytes);
	printf("%zu entries (%llu files, %llu directories, %llu links, %s) "
	    "unpacked into ", rep->n, (unsigned long long)rep->files,
	    (unsigned long long)rep->dirs, (unsigned long long)rep->links, size);
	al_term_put(stdout, dir);
	fputc('\n', stdout);
}

/*
 * The archive in body, unpacked into dir (made if missing, and removed
 * again if the pull fails). body is freed before the child is forked: the
 * child gets the bytes in a memfd, and no more of this process's memory
 * than it must.
 */
static int
pull_archive(struct dynbuf *body, const char *name, const char *dir)
{
	struct extract_report rep;
	int made = 0, dfd = -1, mfd = -1, rc;

	if (mkdir(dir, 0755) == 0)
		made = 1;
	else if (errno != EEXIST)
		return al_err_set(AL_EIO, "%s: %s", dir, strerror(errno));
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = al_err_set(AL_EIO, "%s: %s", dir, strerror(errno));
		goto out;
	}
	if ((mfd = memfd_create("airlock-pull", MFD_CLOEXEC)) < 0 ||
	    al_write_full(mfd, body->data ? body->data : "", body->len) < 0) {
		rc = al_err_set(AL_EIO, "memfd: %s", strerror(errno));
		goto out;
	}
	dynbuf_free(body);
	if ((rc = extract_archive_fd(&rep, mfd, name, dfd)) < 0)
		goto out;
	if (!rep.landlock)
		fputs("airlock pull: warning: this kernel has no Landlock: the "
		    "unpacking child was kept beneath the directory by seccomp "
		    "and its own openat2 calls only\n", stderr);
	pull_summary(&rep, dir);
	extract_report_free(&rep);
out:
	if (mfd >= 0)
		(void)close(mfd);
	if (rc < 0 && made)
		(void)rmdir(dir);
	if (dfd >= 0)
		(void)close(dfd);
	return rc;
}

int
cmd_pull(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		CLIENT_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct client_conf conf = {0};
	struct client_reply r = {0, NULL};
	struct client *c = NULL;
	struct dynbuf body;
	const char *output = NULL, *sha, *name;
	char path[96], got[AL_SHA256_HEX];
	long status = 0;
	int ch, ret = EXIT_ERROR;
	enum al_kind kind;

	dynbuf_init(&body, (size_t)1 << 30);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (client_conf_option(&conf, ch, optarg))
			continue;
		if (ch == 'o') {
			output = optarg;
			continue;
		}
		if (ch == 'h') {
			fputs(pull_usage, stdout);
			return EXIT_OK;
		}
		return cli_usage_error(pull_usage, "pull", NULL, NULL, 0);
	}
	if (argc - optind != 1 || cli_parse_id(argv[optind]) < 0)
		return cli_usage_error(pull_usage, "pull", "one submission ID "
		    "is needed", NULL, 1);
	snprintf(path, sizeof(path), "/v1/submissions/%s", argv[optind]);
	if (client_new(&c, &conf) < 0 || client_get(c, path, &r) < 0) {
		ret = cli_fail("pull");
		goto out;
	}
	if ((ret = cli_reply_check("pull", c, &r, 200)) != EXIT_OK)
		goto out;
	ret = EXIT_ERROR;
	sha = cli_jstr(r.json, "sha256");
	name = cli_jstr(r.json, "name");
	if (sha == NULL || name == NULL ||
	    al_state_parse(cli_jstr(r.json, "state")) != AL_STATE_RELEASED) {
		fprintf(stderr, "airlock pull: submission %s is not released\n",
		    argv[optind]);
		ret = EXIT_REFUSED;
		goto out;
	}
	snprintf(path, sizeof(path), "/v1/submissions/%s/content",
	    argv[optind]);
	if (client_get_raw(c, path, &body, &status) < 0) {
		ret = cli_fail("pull");
		goto out;
	}
	if (status != 200) {
		fprintf(stderr, "airlock pull: the gate refused the content (HTTP "
		    "%ld)\n", status);
		ret = EXIT_REFUSED;
		goto out;
	}
	/* The bytes are those released, or nothing is written. */
	al_sha256_hex(got, body.data ? body.data : "", body.len);
	if (strcmp(got, sha) != 0) {
		fprintf(stderr, "airlock pull: the bytes received do not match the "
		    "released sha256; nothing written\n");
		goto out;
	}
	/* Delivered only as the gate read it (a kind it never read: as the
	 * plain file it is), never as the bytes look now. */
	kind = (enum al_kind)al_kind_parse(cli_jstr(r.json, "kind") ?
	    cli_jstr(r.json, "kind") : "file");
	if (kind == AL_KIND_PATCH || kind == AL_KIND_MBOX) {
		ret = output ? (cli_write_file(output, body.data, body.len) <
		    0 ? cli_fail("pull") : EXIT_OK) : (fwrite(body.data, 1,
		    body.len, stdout) == body.len ? EXIT_OK : EXIT_ERROR);
	} else if (kind == AL_KIND_ARCHIVE) {
		if (output == NULL) {
			ret = cli_usage_error(pull_usage, "pull", "an archive "
			    "needs -o DIR to unpack into", NULL, 0);
			goto out;
		}
		client_free(c);
		c = NULL;
		ret = pull_archive(&body, name, output) < 0 ?
		    cli_fail("pull") : EXIT_OK;
	} else {
		const char *base = strrchr(name, '/');

		ret = cli_write_file(output ? output : base ? base + 1 : name,
		    body.data ? body.data : "", body.len) < 0 ?
		    cli_fail("pull") : EXIT_OK;
	}
out:
	dynbuf_free(&body);
	client_reply_free(&r);
	client_free(c);
	return cli_finish("pull", ret);
}
