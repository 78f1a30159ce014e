/*
 * pull.c - `airlock pull`: fetches the bytes of a released submission,
 * checks them against the released sha256 (nothing is written when they
 * differ) and delivers them by kind: a patch or mailbox to standard output
 * (or -o FILE), an archive unpacked into the directory -o DIR, a bundle or
 * a file written to -o PATH (default: its base name).
 *
 * A known, documented exception to "folders say the process": this file
 * reads artifact bytes in the CLI client process, outside the scan child
 * and its sandbox. It sniffs the kind of the released bytes with
 * scan_sniff_kind (scanners/scan.h) and unpacks an archive with
 * libarchive, here. A later issue is to remove the exception; until then
 * the code stays as it is, alone in this file, so that it is easy to find
 * and the rest of gate/client/ parses no artifact.
 *
 * Trust: the bytes were scanned and approved before their release, but the
 * unpacking still treats the archive as hostile: absolute names, '..',
 * names that are a problem (al_name_problem) and symbolic links that leave
 * the directory stop it (nothing more is unpacked); hard links, devices,
 * FIFOs and sockets are skipped; nothing is overwritten; setuid, setgid and
 * sticky bits are dropped; files are not written through links. The name
 * of a skipped entry is printed to stderr as the archive has it (not
 * escaped), as it was before this file was split out. Refusals from the
 * gate are escaped before they are printed. The token is never printed.
 *
 * Exit status: 0 written, 1 refused by the gate (or not released), 2
 * usage, transport or server errors and bytes that do not match.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

#include "client.h"
#include "client_int.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "path.h"
#include "scan.h"
#include "util.h"
#include "vocab.h"

static const char pull_usage[] =
    "usage: airlock pull [options] ID [-o PATH]\n"
    "\n"
    "Fetches released bytes (checked against their sha256): a patch or\n"
    "mailbox goes to stdout (airlock pull 42 | git am); a bundle is written\n"
    "to PATH (default: its name), for git fetch; an archive is unpacked into\n"
    "the directory PATH (required), safely: no absolute names, no '..', no\n"
    "links leaving it, no special files; a file is written to PATH.\n"
    "\n"
    "options:\n"
    "  -o, --output PATH    where to write (see above)\n"
    CLIENT_USAGE_OPTIONS;

/* Unpacks the archive in data into the directory dir, refusing what would
 * land outside it or is not a plain file, directory or inner link. */
static int
unpack_safely(const char *data, size_t n, const char *dir)
{
	struct archive *a = archive_read_new();
	struct archive *w = archive_write_disk_new();
	struct archive_entry *e;
	int r, rc = 0;

	if (a == NULL || w == NULL) {
		archive_read_free(a);
		archive_write_free(w);
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
	    ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS |
	    ARCHIVE_EXTRACT_NO_OVERWRITE);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		rc = al_err_set(AL_EIO, "%s: %s", dir, strerror(errno));
		goto out;
	}
	if (archive_read_open_memory(a, data, n) != ARCHIVE_OK) {
		rc = al_err_set(AL_EINVAL, "not an archive: %s",
		    archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN) {
		mode_t t = archive_entry_filetype(e);
		const char *name = archive_entry_pathname(e);
		struct dynbuf full;

		if (t != AE_IFREG && t != AE_IFDIR && t != AE_IFLNK) {
			fprintf(stderr, "airlock pull: skipped %s: not a file, "
			    "directory or link\n", name ? name : "?");
			continue;
		}
		if (archive_entry_hardlink(e) != NULL) {
			fprintf(stderr, "airlock pull: skipped a hard link\n");
			continue;
		}
		/* libarchive's secure flags stop writes through links, not
		 * links that point out: those are refused here. */
		if (t == AE_IFLNK && (archive_entry_symlink(e) == NULL ||
		    name == NULL || al_link_escapes(name,
		    archive_entry_symlink(e)))) {
			rc = al_err_set(AL_EINVAL, "entry %s: a symbolic link out of "
			    "the directory; nothing more is unpacked", name ? name :
			    "?");
			break;
		}
		if (name == NULL || al_name_problem(name, 1) != NULL) {
			rc = al_err_set(AL_EINVAL, "entry %s: %s; nothing more is "
			    "unpacked", name ? name : "?", name ?
			    al_name_problem(name, 1) : "no name");
			break;
		}
		/* setuid, setgid and sticky bits are dropped. */
		archive_entry_set_perm(e, archive_entry_perm(e) & 0777);
		dynbuf_init(&full, 8192);
		if (dynbuf_addf(&full, "%s/%s", dir, name) < 0) {
			dynbuf_free(&full);
			rc = al_err_set(AL_ENOMEM, "out of memory");
			break;
		}
		archive_entry_set_pathname(e, dynbuf_str(&full));
		dynbuf_free(&full);
		if (archive_write_header(w, e) < ARCHIVE_WARN ||
		    archive_write_data_block(w, NULL, 0, 0) < ARCHIVE_WARN) {
			rc = al_err_set(AL_EIO, "unpacking: %s",
			    archive_error_string(w));
			break;
		}
		if (t == AE_IFREG) {
			const void *buf;
			size_t len;
			la_int64_t off;

			while ((r = archive_read_data_block(a, &buf, &len, &off)) ==
			    ARCHIVE_OK)
				if (archive_write_data_block(w, buf, len, off) <
				    ARCHIVE_WARN) {
					r = ARCHIVE_FATAL;
					break;
				}
			if (r != ARCHIVE_EOF) {
				rc = al_err_set(AL_EIO, "unpacking: %s",
				    archive_error_string(a));
				break;
			}
		}
		archive_write_finish_entry(w);
	}
	if (rc == 0 && r != ARCHIVE_EOF && r != ARCHIVE_OK)
		rc = al_err_set(AL_EINVAL, "a damaged archive: %s",
		    archive_error_string(a));
out:
	archive_read_free(a);
	archive_write_free(w);
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
		ret = unpack_safely(body.data, body.len, output) < 0 ?
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
