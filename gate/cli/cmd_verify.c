/*
 * cmd_verify.c - `airlock verify` and `airlock key show`: offline checks of
 * release attestations, for CI, and the key to check them with.
 *
 * Trust: the attestation and the artifact are read from wherever CI got
 * them: hostile. Only a statement signed by the pinned key, whose subject
 * digest is the artifact's own sha256, passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirs.h"
#include "attest.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "util.h"

static const char verify_usage[] =
    "usage: airlock verify [--key PUBKEY] ATTESTATION [ARTIFACT]\n"
    "\n"
    "Checks a release attestation offline: a DSSE envelope whose payload is\n"
    "an in-toto statement of an airlock release, signed (Ed25519) by the\n"
    "gate's key; with ARTIFACT, also that its sha256 is the statement's\n"
    "subject. Exits 0 only if every check holds, 1 if one fails, 2 on a\n"
    "usage error. Prints what was verified.\n"
    "\n"
    "options:\n"
    "  --key PUBKEY   the gate's public key, PEM (default: $AIRLOCK_PUBKEY,\n"
    "                 else DATA/keys/signing.pub with DATA from\n"
    "                 $AIRLOCK_DATA or ./var)\n"
    "  -h, --help     this help\n";

static const char key_usage[] =
    "usage: airlock key show [--data DIR]\n"
    "\n"
    "Prints the gate's public signing key (PEM) and its key id, to pin in\n"
    "CI for airlock verify.\n"
    "\n"
    "options:\n"
    "  --data DIR   the data directory (default: $AIRLOCK_DATA, or ./var)\n"
    "  -h, --help   this help\n";

/* SHA-256 of a file, streamed. */
static int
file_sha256(const char *path, char out[AL_SHA256_HEX])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	rc = al_sha256_fd(fd, out);
	close(fd);
	return rc;
}

static char *
default_pubkey(void)
{
	const char *env = getenv("AIRLOCK_PUBKEY");
	char *dir, *p = NULL;
	struct dynbuf b;

	if (env != NULL && env[0] != '\0')
		return strdup(env);
	if ((dir = gate_data_dir(NULL)) == NULL)
		return NULL;
	dynbuf_init(&b, 8192);
	if (dynbuf_addf(&b, "%s/keys/signing.pub", dir) == 0)
		p = dynbuf_take(&b, NULL);
	dynbuf_free(&b);
	free(dir);
	return p;
}

int
cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{"key", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *key_opt = NULL;
	char *keypath = NULL, *text = NULL, sha[AL_SHA256_HEX], keyid[65];
	EVP_PKEY *pub = NULL;
	json_t *st = NULL, *subj;
	const char *want, *name;
	size_t len = 0;
	int c, ret = EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			key_opt = optarg;
			break;
		case 'h':
			fputs(verify_usage, stdout);
			return EXIT_OK;
		default:
			fputs(verify_usage, stderr);
			return EXIT_ERROR;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		fprintf(stderr, "airlock verify: ATTESTATION [ARTIFACT]\n\n%s",
		    verify_usage);
		return EXIT_ERROR;
	}
	keypath = key_opt ? strdup(key_opt) : default_pubkey();
	if (keypath == NULL || attest_pub_load(keypath, &pub) < 0 ||
	    attest_keyid(pub, keyid) < 0) {
		fprintf(stderr, "airlock verify: %s\n", keypath ? al_err_msg() :
		    "out of memory");
		goto out;
	}
	if (al_read_file(argv[optind], 64u << 20, &text, &len) < 0) {
		fprintf(stderr, "airlock verify: %s\n", al_err_msg());
		goto out;
	}
	ret = EXIT_FINDINGS;
	if (attest_verify(text, len, pub, &st) < 0) {
		fprintf(stderr, "airlock verify: FAILED: %s\n", al_err_msg());
		goto out;
	}
	subj = json_array_get(json_object_get(st, "subject"), 0);
	want = json_string_value(json_object_get(json_object_get(subj,
	    "digest"), "sha256"));
	name = json_string_value(json_object_get(subj, "name"));
	if (want == NULL || strlen(want) != 64 ||
	    json_array_size(json_object_get(st, "subject")) != 1) {
		fprintf(stderr, "airlock verify: FAILED: the statement names no "
		    "single sha256 subject\n");
		goto out;
	}
	if (argc - optind == 2) {
		if (file_sha256(argv[optind + 1], sha) < 0) {
			fprintf(stderr, "airlock verify: %s\n", al_err_msg());
			ret = EXIT_ERROR;
			goto out;
		}
		if (strcmp(sha, want) != 0) {
			fprintf(stderr, "airlock verify: FAILED: %s has sha256 %s, "
			    "the attestation is for %s\n", argv[optind + 1], sha,
			    want);
			goto out;
		}
	}
	printf("verified: signed by key %.16s…; subject ", keyid);
	{
		struct dynbuf esc;

		dynbuf_init(&esc, 4096);
		(void)al_term_escape(&esc, name ? name : "?", strlen(name ? name :
		    "?"));
		printf("%s", dynbuf_str(&esc));
		dynbuf_free(&esc);
	}
	printf(" sha256:%s%s\n", want, argc - optind == 2 ?
	    "; the artifact matches" : " (no artifact given)");
	ret = EXIT_OK;
out:
	json_decref(st);
	EVP_PKEY_free(pub);
	free(text);
	free(keypath);
	return ret;
}

int
cmd_key(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *data_opt = NULL;
	char *dir = NULL, *pem = NULL, keyid[65];
	struct dynbuf p;
	EVP_PKEY *pub = NULL;
	size_t len = 0;
	int c, ret = EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			data_opt = optarg;
			break;
		case 'h':
			fputs(key_usage, stdout);
			return EXIT_OK;
		default:
			fputs(key_usage, stderr);
			return EXIT_ERROR;
		}
	}
	if (argc - optind != 1 || strcmp(argv[optind], "show") != 0) {
		fputs(key_usage, stderr);
		return EXIT_ERROR;
	}
	dir = gate_data_dir(data_opt);
	dynbuf_init(&p, 8192);
	if (dir == NULL || dynbuf_addf(&p, "%s/keys/signing.pub", dir) < 0 ||
	    al_read_file(dynbuf_str(&p), 1u << 16, &pem, &len) < 0 ||
	    attest_pub_load(dynbuf_str(&p), &pub) < 0 ||
	    attest_keyid(pub, keyid) < 0) {
		fprintf(stderr, "airlock key: %s\n", al_err_msg());
		goto out;
	}
	fwrite(pem, 1, len, stdout);
	fprintf(stderr, "airlock key: key id %s\n", keyid);
	ret = EXIT_OK;
out:
	EVP_PKEY_free(pub);
	free(pem);
	free(dir);
	dynbuf_free(&p);
	return ret;
}
