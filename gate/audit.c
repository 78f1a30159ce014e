/*
 * audit.c - checkpoints of the gate's audit log: made (signed with the
 * gate's key and stored) and opened (verified against a keyring and
 * parsed). audit.h says what the origin is and why.
 *
 * Trust: a note given to gate_checkpoint_open is hostile (a file an
 * auditor was handed, a server's answer); it is verified before its body
 * is parsed, and the body is parsed strictly (gate/note.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "err.h"

int
gate_audit_origin(const char *datadir, char **out)
{
	struct attest_keyring kr = {0};
	char first[65] = "";
	int rc;

	*out = NULL;
	rc = gate_keyring_load(datadir, &kr, first);
	attest_keyring_clear(&kr);
	if (rc < 0)
		return rc;
	if (asprintf(out, AUDIT_ORIGIN_PREFIX "%.16s", first) < 0) {
		*out = NULL;
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	return 0;
}

int
gate_checkpoint_make(struct db *db, const char *datadir, const char *reason,
    int64_t now, int force, int *made)
{
	struct checkpoint c = {0};
	struct db_checkpoint dc = {0}, *last = NULL;
	struct note_signer signer;
	EVP_PKEY *key = NULL;
	char *text = NULL, *note = NULL, keyid[65];
	size_t nlast = 0, tlen = 0, nlen = 0;
	uint64_t size = 0;
	int rc;

	*made = 0;
	if ((rc = db_audit_root(db, &size, c.root)) < 0 ||
	    (rc = db_checkpoint_list(db, 1, &last, &nlast)) < 0)
		goto out;
	if (!force && nlast == 1 && last[0].size == size)
		goto out;
	c.size = size;
	if ((rc = gate_audit_origin(datadir, &c.origin)) < 0 ||
	    (rc = attest_key_load(datadir, &key)) < 0 ||
	    (rc = attest_keyid(key, keyid)) < 0 ||
	    (rc = checkpoint_format(&text, &tlen, &c)) < 0)
		goto out;
	signer.name = c.origin;
	signer.key = key;
	if ((rc = note_sign(&note, &nlen, text, tlen, &signer, 1)) < 0)
		goto out;
	dc.size = size;
	memcpy(dc.root, c.root, 32);
	dc.key_id = keyid;
	dc.at = now;
	dc.reason = (char *)reason;
	dc.note = note;
	if ((rc = db_checkpoint_add(db, &dc)) == 0)
		*made = 1;
out:
	db_checkpoint_list_free(last, nlast);
	checkpoint_clear(&c);
	EVP_PKEY_free(key);
	free(text);
	free(note);
	return rc;
}

/* The origin line of a note's text, without verifying anything: only to
 * pick the key name the signatures are under. */
static int
note_origin(const char *note, size_t len, char name[NOTE_NAME_MAX + 1])
{
	const char *nl = memchr(note, '\n', len);
	size_t n = nl ? (size_t)(nl - note) : 0;

	if (nl == NULL || n == 0 || n > NOTE_NAME_MAX ||
	    !note_name_ok(note, n))
		return al_err_set(AL_EINVAL, "not a checkpoint of an airlock "
		    "audit log: its first line is not an origin");
	memcpy(name, note, n);
	name[n] = '\0';
	return 0;
}

int
gate_checkpoint_open(const char *note, size_t len,
    const struct attest_keyring *kr, const char *origin,
    struct checkpoint *out, size_t *key_index)
{
	struct note_verifier v[ATTEST_KEYRING_MAX];
	char name[NOTE_NAME_MAX + 1];
	size_t i, nv = 0, text_len = 0, nok = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = note_origin(note, len, name)) < 0)
		return rc;
	if (origin != NULL && strcmp(name, origin) != 0)
		return al_err_set(AL_EINVAL, "the checkpoint is of the log '%s', "
		    "not of this gate's ('%s')", name, origin);
	memset(v, 0, sizeof(v));
	for (i = 0; i < kr->n && rc == 0; i++)
		if ((rc = note_verifier_init(&v[i], name, kr->key[i])) == 0)
			nv++;
	/* One key at a time, to say which signed. */
	for (i = 0; rc == 0 && i < nv; i++) {
		if (note_verify(&text_len, &nok, note, len, &v[i], 1) == 0 &&
		    nok > 0) {
			*key_index = i;
			break;
		}
	}
	if (rc == 0 && i == nv)
		rc = note_verify(&text_len, &nok, note, len, v, nv) < 0 ? -1 :
		    al_err_set(AL_EINVAL, "the checkpoint is signed by no key of "
		    "the keyring");
	if (rc == 0)
		rc = checkpoint_parse(out, note, text_len);
	for (i = 0; i < nv; i++)
		note_verifier_clear(&v[i]);
	return rc;
}
