/*
 * keys.c - `airlock key show|list|rotate`: the gate's signing keys on its
 * data directory, like `airlock init` (whoever can read DATA/keys is the
 * gate's admin already; no token is asked).
 *
 * Layout of DATA/keys:
 *   signing.key    the current private key (PKCS#8 PEM, 0600), unless it
 *                  is kept outside the data directory ($AIRLOCK_SIGNING_KEY:
 *                  attest_key_path; rotation then replaces that file)
 *   signing.pub    its public half
 *   KEYID.pub      the public half of every key the gate ever signed with
 *   keyring.json   {"keys": [{"key_id", "created", "retired"}]}: the
 *                  validity window of each (ms since the epoch; retired
 *                  null for the current key)
 * A data directory made before rotation existed has no keyring.json: its
 * one key counts as created when signing.key (or signing.pub, when the
 * key is not at hand) was written.
 *
 * Rotation writes the new key's public half and the keyring first, then
 * renames the new private key over signing.key (atomic: a release reads
 * either key, whole) and the new public half over signing.pub. The gate
 * reads signing.key at every release (release.c), so the new key signs
 * from the next release on, without a restart. Old public keys stay, so
 * that `airlock verify` with the keyring (`key show --all`) still
 * verifies what they signed. The rotation is an event in the audit log.
 *
 * Trust: the files are the gate's own; still, keyring.json is parsed
 * with limits and a key id from it is used as a file name only once it
 * is 64 hex digits.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest.h"
#include "audit.h"
#include "db.h"
#include "dirs.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "os.h"
#include "util.h"

static const char key_usage[] =
    "usage: airlock key show [--all] [--data DIR]\n"
    "       airlock key list [--data DIR]\n"
    "       airlock key rotate [--data DIR]\n"
    "\n"
    "show     prints the gate's current public signing key (PEM; its key id\n"
    "         on stderr), to pin in CI for airlock verify; with --all, every\n"
    "         key the gate ever signed with (a keyring for verify --key)\n"
    "list     the keys, each with its validity window (created, retired)\n"
    "rotate   makes a new signing key; the running gate signs with it from\n"
    "         the next release on. The old key's public half stays listed,\n"
    "         so that what it signed still verifies with the keyring.\n"
    "\n"
    "These work on the data directory (run them as the gate's user, as\n"
    "airlock init); rotate is recorded in the audit log. A private key kept\n"
    "outside the data directory is found as serve finds it:\n"
    "$AIRLOCK_SIGNING_KEY (rotate replaces that file; a gate that reads a\n"
    "copy of it, as systemd's LoadCredential= gives, signs again after a\n"
    "restart).\n"
    "\n"
    "options:\n"
    "  --all        (show) every key, current and retired\n"
    "  --data DIR   the data directory (default: $AIRLOCK_DATA, or ./var)\n"
    "  -h, --help   this help\n";

#define KEYRING_MAX_BYTES (1u << 20) /* 64 keys take a few KiB */

/* DATA/keys/NAME into b (reset first). */
static int
key_path(struct dynbuf *b, const char *dir, const char *name)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
	return dynbuf_addf(b, "%s/keys/%s", dir, name) < 0 ?
	    al_err_set(AL_ENOMEM, "out of memory") : 0;
}

json_t *
key_ring_parse(const char *text, size_t len)
{
	json_error_t jerr;
	json_t *kr = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *e;
	size_t i;

	if (kr == NULL || !json_is_array(json_object_get(kr, "keys")))
		goto bad;
	json_array_foreach(json_object_get(kr, "keys"), i, e)
		if (!al_is_hex(json_string_value(json_object_get(e, "key_id")), 64)
		    || !json_is_integer(json_object_get(e, "created")) ||
		    !(json_is_integer(json_object_get(e, "retired")) ||
		    json_is_null(json_object_get(e, "retired"))))
			goto bad;
	return kr;
bad:
	json_decref(kr);
	return NULL;
}

/*
 * The keyring: keyring.json, or for a data directory older than rotation
 * its one key, created when it was written.
 */
static int
keyring_read(const char *dir, json_t **out)
{
	struct dynbuf p;
	struct stat st;
	EVP_PKEY *k = NULL;
	char *text = NULL, id[65];
	size_t len = 0;
	int rc;

	*out = NULL;
	dynbuf_init(&p, 8192);
	if ((rc = key_path(&p, dir, "keyring.json")) < 0)
		goto out;
	if (access(dynbuf_str(&p), F_OK) == 0) {
		if ((rc = al_read_file(dynbuf_str(&p), KEYRING_MAX_BYTES, &text,
		    &len)) < 0)
			goto out;
		if ((*out = key_ring_parse(text, len)) == NULL)
			goto bad;
		rc = 0;
		goto out;
	}
	if ((rc = key_path(&p, dir, "signing.pub")) < 0 ||
	    (rc = attest_pub_load(dynbuf_str(&p), &k)) < 0 ||
	    (rc = attest_keyid(k, id)) < 0)
		goto out;
	/* The key's own time; a verifier that has not the key (it may be
	 * kept outside: attest_key_path) takes its public half's, written
	 * with it. */
	if ((rc = attest_key_path(dir, &p, NULL)) < 0 ||
	    (stat(dynbuf_str(&p), &st) < 0 && errno == ENOENT &&
	    (rc = key_path(&p, dir, "signing.pub")) < 0))
		goto out;
	if (stat(dynbuf_str(&p), &st) < 0) {
		rc = al_err_set(AL_EIO, "%s: %s", dynbuf_str(&p), strerror(errno));
		goto out;
	}
	*out = json_pack("{s:[{s:s, s:I, s:n}]}", "keys", "key_id", id,
	    "created", (json_int_t)st.st_mtime * 1000, "retired");
	rc = *out ? 0 : al_err_set(AL_ENOMEM, "out of memory");
	goto out;
bad:
	json_decref(*out);
	*out = NULL;
	rc = al_err_set(AL_EINVAL, "%s is not a keyring of this gate",
	    dynbuf_str(&p));
out:
	EVP_PKEY_free(k);
	free(text);
	dynbuf_free(&p);
	return rc;
}

/* fsync of the directory holding path: the renames in it are durable. */
static int
dir_sync(const char *path)
{
	struct dynbuf p;
	char *slash;
	int fd, rc = 0;

	dynbuf_init(&p, 8192);
	/* "./" first: a relative name's directory is never "". */
	if (dynbuf_addf(&p, "%s%s", path[0] == '/' ? "" : "./", path) < 0)
		return al_err_set(AL_ENOMEM, "out of memory");
	slash = strrchr(p.data, '/');
	slash[slash == p.data] = '\0';  /* "/" stays "/" */
	fd = open(p.data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		rc = al_err_set(AL_EIO, "%s: %s", p.data, strerror(errno));
	if (fd >= 0)
		close(fd);
	dynbuf_free(&p);
	return rc;
}

/*
 * Writes path (mode) with a PEM of k, or text when k is NULL; fsynced; an
 * existing file is replaced only by the caller's rename. owner: the
 * uid/gid to give it when running as root (the gate's user), or NULL.
 */
static int
write_new(const char *path, mode_t mode, EVP_PKEY *k, int private,
    const char *text, const struct stat *owner)
{
	int fd, ok;
	FILE *f;

	(void)unlink(path);       /* a leftover of an interrupted rotation */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd < 0)
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	if (owner != NULL && geteuid() == 0 &&
	    fchown(fd, owner->st_uid, owner->st_gid) < 0) {
		close(fd);
		(void)unlink(path);
		return al_err_set(AL_EIO, "chown %s: %s", path, strerror(errno));
	}
	if ((f = fdopen(fd, "w")) == NULL) {
		close(fd);
		(void)unlink(path);
		return al_err_set(AL_EIO, "%s: %s", path, strerror(errno));
	}
	if (k == NULL)
		ok = fputs(text, f) >= 0;
	else
		ok = private ? PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL,
		    NULL) : PEM_write_PUBKEY(f, k);
	ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok) {
		(void)unlink(path);
		return al_err_set(AL_EIO, "cannot write %s", path);
	}
	return 0;
}

/* Writes to dst.new, then renames it to dst. */
static int
replace_path(const char *dst, mode_t mode, EVP_PKEY *k, int private,
    const char *text, const struct stat *owner)
{
	struct dynbuf tmp;
	int rc;

	dynbuf_init(&tmp, 8192);
	if (dynbuf_addf(&tmp, "%s.new", dst) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = write_new(dynbuf_str(&tmp), mode, k, private, text,
	    owner)) < 0)
		goto out;
	if (rename(dynbuf_str(&tmp), dst) < 0) {
		rc = al_err_set(AL_EIO, "rename %s: %s", dynbuf_str(&tmp),
		    strerror(errno));
		(void)unlink(dynbuf_str(&tmp));
	}
out:
	dynbuf_free(&tmp);
	return rc;
}

/* DATA/keys/NAME, replaced (replace_path). */
static int
replace_file(const char *dir, const char *name, mode_t mode, EVP_PKEY *k,
    int private, const char *text, const struct stat *owner)
{
	struct dynbuf dst;
	int rc;

	dynbuf_init(&dst, 8192);
	if ((rc = key_path(&dst, dir, name)) == 0)
		rc = replace_path(dynbuf_str(&dst), mode, k, private, text,
		    owner);
	dynbuf_free(&dst);
	return rc;
}

/* DATA/keys/ID.pub with k's public half, unless it is there already. */
static int
keep_public(const char *dir, const char *id, EVP_PKEY *k)
{
	struct dynbuf p;
	int rc;

	dynbuf_init(&p, 8192);
	if ((rc = key_path(&p, dir, id)) < 0 || (rc = dynbuf_adds(&p, ".pub") <
	    0 ? al_err_set(AL_ENOMEM, "out of memory") : 0) < 0)
		goto out;
	if (access(dynbuf_str(&p), F_OK) == 0) {
		rc = 0;
		goto out;
	}
	dynbuf_free(&p);
	dynbuf_init(&p, 8192);
	if (dynbuf_addf(&p, "%s.pub", id) < 0) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	rc = replace_file(dir, dynbuf_str(&p), 0644, k, 0, NULL, NULL);
out:
	dynbuf_free(&p);
	return rc;
}

/* The rotation proper, with keys/rotate.lock held. */
static int
rotate(const char *dir, char oldid[65], char newid[65])
{
	EVP_PKEY *old = NULL, *fresh = NULL;
	json_t *kr = NULL, *e;
	struct dynbuf p;
	struct stat owner;
	int64_t now = al_now_ms();
	char *text = NULL;
	size_t i;
	int rc;

	dynbuf_init(&p, 8192);
	if ((rc = attest_key_load(dir, &old)) < 0 ||
	    (rc = attest_keyid(old, oldid)) < 0 ||
	    (rc = keyring_read(dir, &kr)) < 0 ||
	    (rc = attest_key_path(dir, &p, NULL)) < 0)
		goto out;
	if (stat(dynbuf_str(&p), &owner) < 0) {
		rc = al_err_set(AL_EIO, "%s: %s", dynbuf_str(&p), strerror(errno));
		goto out;
	}
	if (json_array_size(json_object_get(kr, "keys")) >=
	    ATTEST_KEYRING_MAX) {
		rc = al_err_set(AL_ELIMIT, "the keyring holds %d keys already",
		    ATTEST_KEYRING_MAX);
		goto out;
	}
	if ((fresh = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519")) == NULL) {
		rc = al_err_set(AL_EENGINE, "libcrypto cannot make an Ed25519 key");
		goto out;
	}
	if ((rc = attest_keyid(fresh, newid)) < 0 ||
	    (rc = keep_public(dir, oldid, old)) < 0 ||
	    (rc = keep_public(dir, newid, fresh)) < 0)
		goto out;
	/* The window of the old key closes now; the new one's opens. */
	json_array_foreach(json_object_get(kr, "keys"), i, e)
		if (json_is_null(json_object_get(e, "retired")))
			json_object_set_new(e, "retired", json_integer(now));
	if (json_array_append_new(json_object_get(kr, "keys"), json_pack(
	    "{s:s, s:I, s:n}", "key_id", newid, "created", (json_int_t)now,
	    "retired")) < 0 || (text = json_dumps(kr, JSON_INDENT(2) |
	    JSON_SORT_KEYS)) == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	/* In this order, so that a failure half-way fails closed: until the
	 * public key and the keyring name the new key, what the new key
	 * signs does not verify; nothing the old key signs is called new. */
	if ((rc = replace_path(dynbuf_str(&p), 0600, fresh, 1, NULL,
	    &owner)) < 0 || (rc = dir_sync(dynbuf_str(&p))) < 0 ||
	    (rc = replace_file(dir, "signing.pub", 0644, fresh, 0, NULL,
	    NULL)) < 0 ||
	    (rc = replace_file(dir, "keyring.json", 0644, NULL, 0, text,
	    NULL)) < 0)
		goto out;
	if ((rc = key_path(&p, dir, "keyring.json")) == 0)
		rc = dir_sync(dynbuf_str(&p));
out:
	EVP_PKEY_free(old);
	EVP_PKEY_free(fresh);
	json_decref(kr);
	free(text);
	dynbuf_free(&p);
	return rc;
}

static int
key_rotate(const char *dir)
{
	char oldid[65], newid[65];
	struct dynbuf p;
	struct db *db = NULL;
	int fd = -1, ret = EXIT_ERROR;

	dynbuf_init(&p, 8192);
	if (key_path(&p, dir, "rotate.lock") < 0)
		goto fail;
	/* One rotation at a time. */
	fd = open(dynbuf_str(&p), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		al_err_set(AL_EIO, "%s: %s", dynbuf_str(&p), strerror(errno));
		goto fail;
	}
	if (rotate(dir, oldid, newid) < 0)
		goto fail;
	fprintf(stderr, "airlock key: rotated: key %s retired, key %s signs "
	    "from the next release on\n", oldid, newid);
	/* On the record. The keys changed already: a failure here is said,
	 * and the exit status says it too. */
	dynbuf_free(&p);
	dynbuf_init(&p, 8192);
	if (dynbuf_addf(&p, "%s/airlock.db", dir) < 0 ||
	    db_open(&db, dynbuf_str(&p), 0) < 0) {
		fprintf(stderr, "airlock key: the rotation is not in the audit "
		    "log: %s\n", al_err_msg());
		goto out;
	}
	dynbuf_free(&p);
	dynbuf_init(&p, 8192);
	if (dynbuf_addf(&p, "retired %s, new %s", oldid, newid) < 0 ||
	    db_event_add(db, al_now_ms(), 0, "key.rotate", 0,
	    dynbuf_str(&p)) < 0) {
		fprintf(stderr, "airlock key: the rotation is not in the audit "
		    "log: %s\n", al_err_msg());
		goto out;
	}
	ret = EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "airlock key: %s\n", al_err_msg());
out:
	db_close(db);
	if (fd >= 0)
		close(fd);
	dynbuf_free(&p);
	return ret;
}

static int
key_list(const char *dir)
{
	json_t *kr = NULL, *e;
	char cur[65] = "", c[32], r[32];
	EVP_PKEY *k = NULL;
	struct dynbuf p;
	size_t i;
	int ret = EXIT_ERROR;

	dynbuf_init(&p, 8192);
	if (keyring_read(dir, &kr) < 0 || key_path(&p, dir, "signing.pub") < 0 ||
	    attest_pub_load(dynbuf_str(&p), &k) < 0 || attest_keyid(k, cur) < 0) {
		fprintf(stderr, "airlock key: %s\n", al_err_msg());
		goto out;
	}
	printf("%-64s  %-24s  %s\n", "KEY ID", "CREATED", "RETIRED");
	json_array_foreach(json_object_get(kr, "keys"), i, e) {
		const char *id = json_string_value(json_object_get(e, "key_id"));
		json_t *ret_at = json_object_get(e, "retired");

		al_time_iso(json_integer_value(json_object_get(e, "created")), c);
		if (json_is_integer(ret_at))
			al_time_iso(json_integer_value(ret_at), r);
		printf("%-64s  %-24s  %-24s%s\n", id, c, json_is_integer(ret_at) ?
		    r : "-", strcmp(id, cur) == 0 ? "  (current)" : "");
	}
	ret = EXIT_OK;
out:
	EVP_PKEY_free(k);
	json_decref(kr);
	dynbuf_free(&p);
	return ret;
}

/*
 * Every key the gate ever signed with, into kr: the public half of each
 * key of keyring.json (KEYID.pub; the one key of an old data directory is
 * signing.pub), oldest first. *first_id (if not NULL): the oldest key's
 * id, which names the gate's audit log (gate/audit.c).
 */
int
gate_keyring_load(const char *dir, struct attest_keyring *kr,
    char first_id[65])
{
	json_t *ring = NULL, *e;
	struct dynbuf p;
	size_t i;
	int rc;

	dynbuf_init(&p, 8192);
	if ((rc = keyring_read(dir, &ring)) < 0)
		goto out;
	json_array_foreach(json_object_get(ring, "keys"), i, e) {
		const char *id = json_string_value(json_object_get(e, "key_id"));

		if (i == 0 && first_id != NULL)
			snprintf(first_id, 65, "%s", id);
		if ((rc = key_path(&p, dir, id)) < 0 ||
		    (rc = dynbuf_adds(&p, ".pub") < 0 ?
		    al_err_set(AL_ENOMEM, "out of memory") : 0) < 0)
			goto out;
		if (access(dynbuf_str(&p), F_OK) != 0 &&
		    (rc = key_path(&p, dir, "signing.pub")) < 0)
			goto out;
		if ((rc = attest_keyring_load(kr, dynbuf_str(&p))) < 0)
			goto out;
	}
	if (kr->n == 0)
		rc = al_err_set(AL_EINVAL, "%s/keys holds no key", dir);
out:
	json_decref(ring);
	dynbuf_free(&p);
	return rc;
}

/* Prints a PEM file; its key id on stderr. */
static int
show_one(const char *path)
{
	EVP_PKEY *k = NULL;
	char *pem = NULL, id[65];
	size_t len = 0;
	int rc;

	if ((rc = al_read_file(path, 1u << 16, &pem, &len)) == 0 &&
	    (rc = attest_pub_load(path, &k)) == 0 &&
	    (rc = attest_keyid(k, id)) == 0) {
		fwrite(pem, 1, len, stdout);
		fprintf(stderr, "airlock key: key id %s\n", id);
	}
	EVP_PKEY_free(k);
	free(pem);
	return rc;
}

static int
key_show(const char *dir, int all)
{
	json_t *kr = NULL, *e;
	struct dynbuf p;
	size_t i;
	int ret = EXIT_ERROR;

	dynbuf_init(&p, 8192);
	if (!all) {
		if (key_path(&p, dir, "signing.pub") < 0 ||
		    show_one(dynbuf_str(&p)) < 0)
			goto fail;
		ret = EXIT_OK;
		goto out;
	}
	if (keyring_read(dir, &kr) < 0)
		goto fail;
	json_array_foreach(json_object_get(kr, "keys"), i, e) {
		const char *id = json_string_value(json_object_get(e, "key_id"));

		if (key_path(&p, dir, id) < 0 || dynbuf_adds(&p, ".pub") < 0)
			goto fail;
		/* The one key of an old data directory has no KEYID.pub. */
		if (access(dynbuf_str(&p), F_OK) != 0 &&
		    key_path(&p, dir, "signing.pub") < 0)
			goto fail;
		if (show_one(dynbuf_str(&p)) < 0)
			goto fail;
	}
	ret = EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "airlock key: %s\n", al_err_msg());
out:
	json_decref(kr);
	dynbuf_free(&p);
	return ret;
}

int
cmd_key(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, NULL, 'd'},
		{"all", no_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *data_opt = NULL, *verb;
	char *dir = NULL;
	int c, all = 0, ret = EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			data_opt = optarg;
			break;
		case 'a':
			all = 1;
			break;
		case 'h':
			fputs(key_usage, stdout);
			return EXIT_OK;
		default:
			fputs(key_usage, stderr);
			return EXIT_ERROR;
		}
	}
	verb = argc - optind == 1 ? argv[optind] : "";
	if (strcmp(verb, "show") != 0 && strcmp(verb, "list") != 0 &&
	    strcmp(verb, "rotate") != 0) {
		fputs(key_usage, stderr);
		return EXIT_ERROR;
	}
	if (all && strcmp(verb, "show") != 0) {
		fprintf(stderr, "airlock key: --all is for show\n\n%s", key_usage);
		return EXIT_ERROR;
	}
	if ((dir = gate_data_dir(data_opt)) == NULL) {
		fprintf(stderr, "airlock key: out of memory\n");
		return EXIT_ERROR;
	}
	if (strcmp(verb, "show") == 0)
		ret = key_show(dir, all);
	else if (strcmp(verb, "list") == 0)
		ret = key_list(dir);
	else
		ret = key_rotate(dir);
	free(dir);
	return ret;
}
