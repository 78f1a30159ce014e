/*
 * audit.c - checkpoints of the gate's audit log: made (signed with the
 * gate's key and stored) and opened (verified against a keyring and
 * parsed). audit.h says what the origin is and why. Also what a verifier
 * without the database needs: keys from a file or a server's verifier
 * key strings, and the check that an entry is a well-formed version 1
 * entry of its place.
 *
 * Trust: a note given to gate_checkpoint_open is hostile (a file an
 * auditor was handed, a server's answer); it is verified before its body
 * is parsed, and the body is parsed strictly (gate/note.c). Entries and
 * verifier keys given to the checks here are hostile too; a key is
 * trusted only as much as whoever handed it (docs/audit.md, "Verifying
 * over the API").
 */
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "b64.h"
#include "err.h"
#include "merkle.h"
#include "util.h"

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

/*
 * The checkpoint the gate signed last, in this process: deleting the
 * stored ones does not make it forget what it signed (and so sign a
 * shorter or another tree). Guarded with the lock that also keeps two
 * makers of one process from racing.
 */
static pthread_mutex_t ckpt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int valid;
	uint64_t size;
	uint8_t root[32];
} last_signed;

/*
 * Before signing the tree as it is now, what a witness would check: it
 * extends the last checkpoint signed (the newest stored one, verified,
 * or the one this process signed last, whichever is larger) by a
 * consistency proof, and every entry added since is what the tables say.
 * AL_EINVAL with why when it does not: the gate does not sign a history
 * that was cut or rewritten.
 */
/*
 * Entries [from, size) are what the gate wrote itself (db_audit_track, at
 * serve's start), or what another process may write beside it: a key
 * rotation. A writer of the live database between two checkpoints, even
 * one who keeps leaves, nodes and tables consistent, is found here, before
 * anything is signed over it.
 */
static int
own_entries(struct db *db, uint64_t from, uint64_t size)
{
	static const char *const beside[] = { "key.rotate", NULL };
	char why[512];
	int rc;

	if ((rc = db_audit_check_own(db, from, size, beside, why,
	    sizeof(why))) < 0)
		return rc;
	return why[0] != '\0' ? al_err_set(AL_EINVAL, "%s: the log is not "
	    "signed", why) : 0;
}

static int
extends_signed(struct db *db, const char *datadir, uint64_t size,
    const uint8_t root[32], int *same)
{
	struct attest_keyring kr = {0};
	struct db_checkpoint *cp = NULL;
	struct checkpoint c = {0};
	uint8_t path[MERKLE_MAX_PROOF][32], prev_root[32];
	uint64_t prev = 0;
	size_t ncp = 0, n = 0, ki = 0;
	char *origin = NULL, why[512];
	int rc, have = 0;

	*same = 0;
	if ((rc = db_checkpoint_list(db, 1, &cp, &ncp)) < 0)
		goto out;
	if (ncp == 1) {
		if ((rc = gate_keyring_load(datadir, &kr, NULL)) < 0 ||
		    (rc = gate_audit_origin(datadir, &origin)) < 0)
			goto out;
		if (gate_checkpoint_open(cp[0].note, strlen(cp[0].note), &kr,
		    origin, &c, &ki) < 0) {
			rc = al_err_set(AL_EINVAL, "the newest stored checkpoint "
			    "(#%lld) does not verify: %s", (long long)cp[0].id,
			    al_err_msg());
			goto out;
		}
		prev = c.size;
		memcpy(prev_root, c.root, 32);
		have = 1;
	}
	if (last_signed.valid && (!have || last_signed.size > prev)) {
		prev = last_signed.size;
		memcpy(prev_root, last_signed.root, 32);
		have = 1;
	}
	if (!have) {
		/* The first checkpoint: nothing to extend; what this gate
		 * wrote, still as it wrote it. */
		rc = own_entries(db, 0, size);
		goto out;
	}
	if (size < prev) {
		rc = al_err_set(AL_EINVAL, "the log has %llu entries; a checkpoint "
		    "of %llu was signed: the log was cut short, and is not signed",
		    (unsigned long long)size, (unsigned long long)prev);
		goto out;
	}
	if (size == prev) {
		if (memcmp(root, prev_root, 32) != 0)
			rc = al_err_set(AL_EINVAL, "the log's root at %llu entries is "
			    "not the one signed: the log was rewritten, and is not "
			    "signed", (unsigned long long)size);
		*same = rc == 0;
		goto out;
	}
	if (prev > 0 && ((rc = db_audit_consistency(db, prev, size, path,
	    &n)) < 0 || (rc = merkle_verify_consistency(prev, size, prev_root,
	    root, (const uint8_t (*)[32])path, n)) < 0)) {
		rc = al_err_set(AL_EINVAL, "the log no longer extends the "
		    "checkpoint of %llu entries signed before: it was rewritten, "
		    "and is not signed (%s)", (unsigned long long)prev,
		    al_err_msg());
		goto out;
	}
	if ((rc = db_audit_check_range(db, prev, size, why, sizeof(why))) < 0)
		goto out;
	if (why[0] != '\0')
		rc = al_err_set(AL_EINVAL, "%s: the log is not signed", why);
	else
		rc = own_entries(db, prev, size);
out:
	checkpoint_clear(&c);
	db_checkpoint_list_free(cp, ncp);
	attest_keyring_clear(&kr);
	free(origin);
	return rc;
}

int
gate_checkpoint_make(struct db *db, const char *datadir, const char *reason,
    int64_t now, int force, int *made)
{
	struct checkpoint c = {0};
	struct db_checkpoint dc = {0};
	struct note_signer signer;
	EVP_PKEY *key = NULL;
	char *text = NULL, *note = NULL, keyid[65];
	size_t tlen = 0, nlen = 0;
	uint64_t size = 0;
	int rc, same = 0;

	*made = 0;
	pthread_mutex_lock(&ckpt_lock);
	if ((rc = db_audit_root(db, &size, c.root)) < 0 ||
	    (rc = extends_signed(db, datadir, size, c.root, &same)) < 0)
		goto out;
	if (same && !force)
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
	if ((rc = db_checkpoint_add(db, &dc)) == 0) {
		*made = 1;
		db_audit_own_forget(size);
		last_signed.valid = 1;
		last_signed.size = size;
		memcpy(last_signed.root, c.root, 32);
	}
out:
	pthread_mutex_unlock(&ckpt_lock);
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

/* ---- keys from a file or a server ------------------------------------- */

int
gate_keyring_add_vkey(struct attest_keyring *kr, const char *vkey, size_t len,
    const char *origin)
{
	struct note_verifier v;
	EVP_PKEY *k;
	int rc;

	if ((rc = note_vkey_parse(&v, vkey, len)) < 0)
		return rc;
	if (origin != NULL && strcmp(v.name, origin) != 0) {
		rc = al_err_set(AL_EINVAL, "the verifier key is of the log '%s', "
		    "not of this gate's ('%s')", v.name, origin);
		note_verifier_clear(&v);
		return rc;
	}
	k = v.pub;
	v.pub = NULL;
	return attest_keyring_add(kr, k);
}

/* Verifier keys, one a line (blank lines and '#' comments skipped). */
static int
add_vkey_lines(struct attest_keyring *kr, const char *path, const char *t,
    size_t n, const char *origin)
{
	size_t i = 0, added = 0;
	int line = 0, rc = 0;

	while (i < n && rc == 0) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - t) : n, len = end - i;

		line++;
		if (len > 0 && t[end - 1] == '\r')
			len--;
		if (len > 0 && t[i] != '#') {
			if ((rc = gate_keyring_add_vkey(kr, t + i, len, origin)) < 0)
				rc = al_err_set(rc, "%s:%d: %s", path, line,
				    al_err_msg());
			added++;
		}
		i = end + 1;
	}
	if (rc == 0 && added == 0)
		rc = al_err_set(AL_EINVAL, "%s holds no key (PEM, or verifier "
		    "keys one a line)", path);
	return rc;
}

int
gate_keyring_load_file(struct attest_keyring *kr, const char *path,
    const char *origin)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if ((rc = al_read_file(path, GATE_KEY_FILE_MAX, &text, &len)) < 0)
		return rc;
	if (memmem(text, len, "-----BEGIN ", 11) != NULL)
		rc = attest_keyring_load(kr, path);
	else
		rc = add_vkey_lines(kr, path, text, len, origin);
	free(text);
	return rc;
}

/* ---- entries ------------------------------------------------------------ */

/* The lines of a version 1 entry after its first, in order; 1: decimal. */
static const struct {
	const char *key;
	int decimal;
} entry_lines[] = {
	{"index", 1}, {"event", 1}, {"at", 1}, {"action", 0}, {"actor", 1},
	{"actor-name", 0}, {"actor-role", 0}, {"person", 1},
	{"person-name", 0}, {"submission", 1}, {"sha256", 0}, {"detail", 0},
};

#define ENTRY_HEAD "airlock audit entry v1\n"

static int
hex_upper(unsigned char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ?
	    c - 'A' + 10 : -1;
}

/* A text value as the gate escapes it: every byte below 0x20, DEL and
 * '%' as %XX (uppercase), and only those. */
static int
entry_text_ok(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		int hi, lo;

		if (c < 0x20 || c == 0x7f)
			return 0;
		if (c != '%')
			continue;
		if (i + 2 >= n || (hi = hex_upper((unsigned char)v[i + 1])) < 0 ||
		    (lo = hex_upper((unsigned char)v[i + 2])) < 0)
			return 0;
		c = (unsigned char)(hi << 4 | lo);
		if (c >= 0x20 && c != 0x7f && c != '%')
			return 0;
		i += 2;
	}
	return 1;
}

/* A decimal with no sign, no leading zero, below 2^63. */
static int
entry_decimal(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0 || n > 19 || (n > 1 && v[0] == '0'))
		return 0;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return 0;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	if (x > INT64_MAX)
		return 0;
	*out = x;
	return 1;
}

/* Line k of entry_lines (line number line), its value v[0..n). */
static int
entry_line_check(size_t k, int line, const char *v, size_t n, uint64_t idx,
    uint64_t *event)
{
	const char *key = entry_lines[k].key;
	uint64_t x = 0;

	if (entry_lines[k].decimal && !entry_decimal(v, n, &x))
		return al_err_set(AL_EINVAL, "line %d: its %s is not a decimal",
		    line, key);
	if (!entry_lines[k].decimal && !entry_text_ok(v, n))
		return al_err_set(AL_EINVAL, "line %d: its %s holds a control "
		    "byte or an escape the gate does not write", line, key);
	if (strcmp(key, "sha256") == 0 && n != 0 && (n != 64 ||
	    strspn(v, "0123456789abcdef") < 64))
		return al_err_set(AL_EINVAL, "line %d: its sha256 is neither "
		    "empty nor 64 lowercase hex digits", line);
	if (strcmp(key, "index") == 0 && x != idx)
		return al_err_set(AL_EINVAL, "line %d: it says index %llu; it "
		    "is at %llu", line, (unsigned long long)x,
		    (unsigned long long)idx);
	if (strcmp(key, "event") == 0 && event != NULL)
		*event = x;
	return 0;
}

int
gate_entry_check(const char *e, size_t n, uint64_t idx, uint64_t *event)
{
	size_t p = strlen(ENTRY_HEAD), k;
	int rc;

	if (n < p || memcmp(e, ENTRY_HEAD, p) != 0)
		return al_err_set(AL_EINVAL, "line 1: not '%.*s' (a version this "
		    "airlock does not know, or not an entry)",
		    (int)strlen(ENTRY_HEAD) - 1, ENTRY_HEAD);
	for (k = 0; k < sizeof(entry_lines) / sizeof(entry_lines[0]); k++) {
		const char *key = entry_lines[k].key, *nl;
		size_t kl = strlen(key), len;
		int line = (int)k + 2;

		if ((nl = memchr(e + p, '\n', n - p)) == NULL)
			return al_err_set(AL_EINVAL, "line %d: the entry ends "
			    "before its %s line", line, key);
		len = (size_t)(nl - (e + p));
		if (len < kl + 1 || memcmp(e + p, key, kl) != 0 ||
		    e[p + kl] != ' ')
			return al_err_set(AL_EINVAL, "line %d: not its %s line",
			    line, key);
		if ((rc = entry_line_check(k, line, e + p + kl + 1,
		    len - kl - 1, idx, event)) < 0)
			return rc;
		p += len + 1;
	}
	if (p != n)
		return al_err_set(AL_EINVAL, "line %zu: bytes after the detail "
		    "line", k + 2);
	return 0;
}

/* ---- the signer trusts the log ---------------------------------------- */

/* The value of an entry's line KEY, %XX undone, into out; -1 if the entry
 * has no such line or it does not fit. */
int
gate_entry_field(const char *e, size_t n, const char *key, char *out,
    size_t cap)
{
	size_t kl = strlen(key), i = 0, o = 0;

	while (i < n) {
		const char *nl = memchr(e + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - e) : n;

		if (end - i > kl && memcmp(e + i, key, kl) == 0 &&
		    e[i + kl] == ' ') {
			size_t k;

			for (k = i + kl + 1; k < end; k++) {
				unsigned v = (unsigned char)e[k];

				if (v == '%' && k + 2 < end) {
					char h[3] = {e[k + 1], e[k + 2], 0};

					v = (unsigned)strtoul(h, NULL, 16);
					k += 2;
				}
				if (o + 1 >= cap)
					return -1;
				out[o++] = (char)v;
			}
			out[o] = '\0';
			return 0;
		}
		i = end + 1;
	}
	return -1;
}

/* A detail's token KEY=VALUE (up to the next space), into out. */
static int
detail_token(const char *d, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	const char *p = d;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			size_t l = strcspn(p + kl + 1, " ");

			if (l + 1 > cap)
				return -1;
			memcpy(out, p + kl + 1, l);
			out[l] = '\0';
			return 0;
		}
		p = strchr(p, ' ');
		if (p != NULL)
			p++;
	}
	return -1;
}

static int64_t
num(const char *s)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	return *end == '\0' ? (int64_t)v : -1;
}

/* scan (a decimal) in a comma list like "3,5" ("-": none)? */
static int
in_list(const char *list, int64_t scan)
{
	char buf[32];
	const char *p = list;

	snprintf(buf, sizeof(buf), "%lld", (long long)scan);
	while (p != NULL && *p != '\0') {
		size_t l = strcspn(p, ",");

		if (l == strlen(buf) && strncmp(p, buf, l) == 0)
			return 1;
		p = p[l] == ',' ? p + l + 1 : NULL;
	}
	return 0;
}

void
log_evidence_clear(struct log_evidence *ev)
{
	db_approvals_free(ev->approvals, ev->napprovals);
	memset(ev, 0, sizeof(*ev));
}

int
gate_log_evidence_met(const struct log_evidence *ev)
{
	return ev->scan > 0 && ev->voided == NULL && ev->uncovered == 0 &&
	    (int)ev->napprovals >= ev->needed &&
	    (strcmp(ev->verdict, "unscannable") != 0 || ev->override);
}

/* One entry, read and proved included under (size, root). */
static int
proved_entry(struct db *db, uint64_t idx, uint64_t size, const uint8_t root[32],
    struct db_audit_leaf *l)
{
	uint8_t path[MERKLE_MAX_PROOF][32], h[32];
	size_t n = 0;
	int rc;

	if ((rc = db_audit_leaf(db, idx, l)) < 0)
		return rc;
	merkle_leaf_hash(l->entry, l->entry_len, h);
	if (memcmp(h, l->hash, 32) != 0)
		return al_err_set(AL_EINVAL, "entry %llu does not hash to its "
		    "leaf", (unsigned long long)idx);
	if ((rc = db_audit_inclusion(db, idx, size, path, &n)) < 0 ||
	    (rc = merkle_verify_inclusion(idx, size, h,
	    (const uint8_t (*)[32])path, n, root)) < 0)
		return al_err_set(AL_EINVAL, "entry %llu is not in the signed "
		    "checkpoint's tree: %s", (unsigned long long)idx,
		    al_err_msg());
	return 0;
}

/* An entry's fields, sized for what the gate lets them hold (names of
 * at most 256 bytes escaped, a detail of a decision of any length the
 * gate writes); one that does not fit is refused, never cut. */
struct ev_entry {
	char action[64], person[32], person_name[1024], submission[32];
	char actor_name[1024], actor_role[16], sha256[65], at[32];
	char detail[16384];
};

static int
ev_read(const struct db_audit_leaf *l, struct ev_entry *x)
{
	memset(x, 0, sizeof(*x));
	if (gate_entry_field(l->entry, l->entry_len, "action", x->action,
	    sizeof(x->action)) < 0 ||
	    gate_entry_field(l->entry, l->entry_len, "person", x->person,
	    sizeof(x->person)) < 0 ||
	    gate_entry_field(l->entry, l->entry_len, "person-name", x->person_name,
	    sizeof(x->person_name)) < 0 ||
	    gate_entry_field(l->entry, l->entry_len, "actor-name", x->actor_name,
	    sizeof(x->actor_name)) < 0 ||
	    gate_entry_field(l->entry, l->entry_len, "actor-role", x->actor_role,
	    sizeof(x->actor_role)) < 0 ||
	    gate_entry_field(l->entry, l->entry_len, "sha256", x->sha256,
	    sizeof(x->sha256)) < 0 ||
	    gate_entry_field(l->entry, l->entry_len, "at", x->at,
	    sizeof(x->at)) < 0 ||
	    gate_entry_field(l->entry, l->entry_len, "submission",
	    x->submission, sizeof(x->submission)) < 0 ||
	    gate_entry_field(l->entry, l->entry_len, "detail", x->detail,
	    sizeof(x->detail)) < 0)
		return al_err_set(AL_EINVAL, "entry %llu is not a version 1 entry "
		    "the gate can judge (a field missing or too long)",
		    (unsigned long long)l->idx);
	return 0;
}

void
gate_entries_clear(struct proved_entries *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i].entry);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int
gate_entries_about(struct db *db, const char *datadir, int64_t id,
    struct proved_entries *out)
{
	struct attest_keyring kr = {0};
	struct db_checkpoint *cp = NULL;
	struct checkpoint c = {0};
	uint8_t root[32];
	uint64_t *idx = NULL, size;
	size_t ncp = 0, n = 0, i, ki = 0;
	char *origin = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = gate_keyring_load(datadir, &kr, NULL)) < 0 ||
	    (rc = gate_audit_origin(datadir, &origin)) < 0 ||
	    (rc = db_checkpoint_list(db, 1, &cp, &ncp)) < 0)
		goto out;
	if (ncp == 0) {
		rc = al_err_set(AL_EINVAL, "the audit log has no signed checkpoint");
		goto out;
	}
	if ((rc = gate_checkpoint_open(cp[0].note, strlen(cp[0].note), &kr,
	    origin, &c, &ki)) < 0) {
		rc = al_err_set(AL_EINVAL, "the newest checkpoint (#%lld) does "
		    "not verify: %s", (long long)cp[0].id, al_err_msg());
		goto out;
	}
	out->ckpt_id = cp[0].id;
	out->ckpt_size = size = c.size;
	snprintf(out->key_id, sizeof(out->key_id), "%s", kr.id[ki]);
	if (size == 0)
		merkle_empty_root(root); /* db_audit_root reads 0 as "all" */
	else if ((rc = db_audit_root(db, &size, root)) < 0)
		goto out;
	memcpy(out->root, c.root, 32);
	if (size != c.size || memcmp(root, c.root, 32) != 0) {
		rc = al_err_set(AL_EINVAL, "the first %llu entries of the audit "
		    "log no longer hash to checkpoint #%lld's root",
		    (unsigned long long)c.size, (long long)cp[0].id);
		goto out;
	}
	if ((rc = db_audit_leaves_about(db, id, NULL, &idx, &n)) < 0)
		goto out;
	if (n > 0 && (out->v = calloc(n, sizeof(*out->v))) == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct proved_entry *e = &out->v[out->n++];
		struct db_audit_leaf l;

		e->idx = idx[i];
		if (idx[i] >= c.size) {
			if ((rc = db_audit_leaf(db, idx[i], &l)) < 0)
				goto out;
			e->status = PROOF_LATER;
		} else if ((rc = proved_entry(db, idx[i], c.size, c.root, &l)) ==
		    AL_ENOMEM) {
			goto out;
		} else if (rc < 0) {
			e->status = PROOF_FAILED;
			snprintf(e->why, sizeof(e->why), "%s", al_err_msg());
			rc = 0;
			if (l.entry == NULL)
				continue;
		}
		e->entry = l.entry;
		e->entry_len = l.entry_len;
	}
out:
	if (rc < 0)
		gate_entries_clear(out);
	free(idx);
	free(origin);
	checkpoint_clear(&c);
	db_checkpoint_list_free(cp, ncp);
	attest_keyring_clear(&kr);
	return rc;
}

/* Is there a token.create of the token named name under the checkpoint
 * of pe, its hash and inclusion proved? */
static int
token_logged(struct db *db, const char *name, const struct proved_entries *pe)
{
	struct db_audit_leaf l = {0};
	char a[64], b[1200], act[64], det[1200];
	uint64_t idx = 0;
	int ok;

	snprintf(a, sizeof(a), "\naction token.create\n");
	snprintf(b, sizeof(b), "\ndetail name=%s role=", name);
	if (strlen(name) > 1000 || db_audit_find(db, a, b, &idx) < 0 ||
	    idx >= pe->ckpt_size ||
	    proved_entry(db, idx, pe->ckpt_size, pe->root, &l) < 0) {
		free(l.entry);
		return 0;
	}
	snprintf(b, sizeof(b), "name=%s role=", name);
	ok = gate_entry_field(l.entry, l.entry_len, "action", act,
	    sizeof(act)) == 0 && strcmp(act, "token.create") == 0 &&
	    gate_entry_field(l.entry, l.entry_len, "detail", det,
	    sizeof(det)) == 0 && strncmp(det, b, strlen(b)) == 0;
	free(l.entry);
	return ok;
}

int
gate_log_evidence(struct db *db, const char *datadir, int64_t id,
    const char *sha256, const struct db_policy *pol, struct log_evidence *ev)
{
	struct proved_entries pe = {0};
	struct db_audit_leaf l = {0};
	struct ev_entry x;
	size_t i, cap = 0;
	char carries[1024] = "-", tok[128];
	int64_t launched = -1, overridden_scan = -1;
	struct { int64_t person, scan; char rev[1024], pname[1024], rules[128];
	    int64_t at; } *ap = NULL;
	struct { int64_t scan; char rules[128]; } *ss = NULL;
	size_t nap = 0, apcap = 0, nss = 0, sscap = 0;
	int rc;

	memset(ev, 0, sizeof(*ev));
	if ((rc = gate_entries_about(db, datadir, id, &pe)) < 0)
		goto out;
	ev->ckpt_id = pe.ckpt_id;
	ev->ckpt_size = pe.ckpt_size;
	for (i = 0; i < pe.n && rc == 0; i++) {
		const struct proved_entry *e = &pe.v[i];

		l.idx = e->idx;
		l.entry = e->entry;
		l.entry_len = e->entry_len;
		if (e->status == PROOF_LATER) {
			char act[32];

			/* Not proved, so not counted; said, if it is one that
			 * could decide (an alarm or a refusal could not). */
			if (gate_entry_field(l.entry, l.entry_len, "action", act,
			    sizeof(act)) < 0 || strcmp(act, "approve") == 0 ||
			    strcmp(act, "override") == 0 ||
			    strncmp(act, "scan.", 5) == 0 ||
			    strcmp(act, "rescan") == 0 ||
			    strcmp(act, "reject") == 0 ||
			    strcmp(act, "expire") == 0)
				ev->uncovered++;
			continue;
		}
		if (e->status == PROOF_FAILED) {
			rc = al_err_set(AL_EINVAL, "%s", e->why);
			break;
		}
		if ((rc = ev_read(&l, &x)) < 0)
			break;
		/* Every entry about it names it and its bytes: these. */
		if (num(x.submission) != id) {
			rc = al_err_set(AL_EINVAL, "entry %llu is about submission "
			    "%s, not %lld", (unsigned long long)e->idx,
			    x.submission, (long long)id);
			break;
		}
		if (strcmp(x.sha256, sha256) != 0) {
			rc = al_err_set(AL_EINVAL, "entry %llu is about other bytes "
			    "(%s)", (unsigned long long)e->idx, x.sha256);
			break;
		}
		/* After the scan that counts, anything that takes the bytes
		 * back (a new scan, a rescan) or decides them otherwise voids
		 * it until a new scan.finish. */
		{
			/* An integrity alarm is not among them: one at a review
			 * read sends the bytes back to be scanned (scan.start
			 * follows), one at release leaves the approval standing
			 * for the bytes once they are back (release.c). */
			static const char *const voids[] = {"rescan", "scan.start",
			    "scan.resume", "scan.retry", "reject", "expire",
			    "release"};
			size_t k;

			for (k = 0; k < sizeof(voids) / sizeof(voids[0]); k++)
				if (strcmp(x.action, voids[k]) == 0)
					ev->voided = voids[k];
		}
		if (strcmp(x.action, "submit") == 0) {
			launched = num(x.person);
		} else if (strcmp(x.action, "scan.start") == 0 &&
		    detail_token(x.detail, "scan", tok, sizeof(tok)) == 0) {
			if (nss == sscap) {
				void *nv = realloc(ss, (sscap = sscap ? 2 * sscap : 4) *
				    sizeof(*ss));

				if (nv == NULL) {
					rc = al_err_set(AL_ENOMEM, "out of memory");
					break;
				}
				ss = nv;
			}
			ss[nss].scan = num(tok);
			if (detail_token(x.detail, "ruleset", ss[nss].rules,
			    sizeof(ss[nss].rules)) == 0)
				nss++;
		} else if (strcmp(x.action, "scan.finish") == 0 &&
		    detail_token(x.detail, "scan", tok, sizeof(tok)) == 0) {
			ev->scan = num(tok);
			ev->voided = NULL;
			if (detail_token(x.detail, "verdict", ev->verdict,
			    sizeof(ev->verdict)) < 0 ||
			    detail_token(x.detail, "worst", ev->worst,
			    sizeof(ev->worst)) < 0)
				snprintf(ev->worst, sizeof(ev->worst), "unknown");
			if (detail_token(x.detail, "carries", carries,
			    sizeof(carries)) < 0)
				snprintf(carries, sizeof(carries), "-");
			overridden_scan = -1;
		} else if (strcmp(x.action, "override") == 0 &&
		    detail_token(x.detail, "scan", tok, sizeof(tok)) == 0) {
			overridden_scan = num(tok);
		} else if (strcmp(x.action, "approve") == 0 &&
		    (strcmp(x.actor_role, "reviewer") == 0 ||
		    strcmp(x.actor_role, "admin") == 0)) {
			char asha[65] = "", arules[128] = "";

			if (detail_token(x.detail, "sha256", asha, sizeof(asha)) < 0 ||
			    detail_token(x.detail, "ruleset", arules,
			    sizeof(arules)) < 0 ||
			    detail_token(x.detail, "scan", tok, sizeof(tok)) < 0 ||
			    strcmp(asha, sha256) != 0)
				goto next;
			if (nap == apcap) {
				void *nv = realloc(ap, (apcap = apcap ? 2 * apcap : 8) *
				    sizeof(*ap));

				if (nv == NULL) {
					rc = al_err_set(AL_ENOMEM, "out of memory");
					break;
				}
				ap = nv;
			}
			memset(&ap[nap], 0, sizeof(ap[nap]));
			ap[nap].person = num(x.person);
			ap[nap].scan = num(tok);
			ap[nap].at = num(x.at);
			snprintf(ap[nap].rev, sizeof(ap[nap].rev), "%s",
			    x.actor_name);
			snprintf(ap[nap].pname, sizeof(ap[nap].pname), "%s",
			    x.person_name);
			snprintf(ap[nap].rules, sizeof(ap[nap].rules), "%s", arules);
			nap++;
		}
next:
		;
	}
	if (rc < 0)
		goto out;
	ev->override = ev->scan > 0 && overridden_scan == ev->scan;
	for (i = 0; i < nss; i++)
		if (ss[i].scan == ev->scan)
			snprintf(ev->ruleset, sizeof(ev->ruleset), "%s", ss[i].rules);
	/* The policy, from the log's verdict and worst severity (unknown:
	 * as for the worst, fail closed). */
	if (strcmp(ev->verdict, "unscannable") == 0)
		ev->needed = pol->unscannable;
	else if (strcmp(ev->verdict, "flagged") == 0)
		ev->needed = strcmp(ev->worst, "high") == 0 ||
		    strcmp(ev->worst, "critical") == 0 ||
		    strcmp(ev->worst, "unknown") == 0 ? pol->high : pol->flagged;
	else if (strcmp(ev->verdict, "clean") == 0)
		ev->needed = pol->clean;
	else
		ev->needed = pol->high > pol->unscannable ? pol->high :
		    pol->unscannable;
	/* One per person, their first, of this scan or one still standing;
	 * never the person the agent was launched for. */
	for (i = 0; i < nap && rc == 0; i++) {
		size_t k;
		struct db_approval *a;

		if (ev->scan <= 0 || ap[i].person <= 0 || ap[i].person == launched ||
		    !(ap[i].scan == ev->scan || in_list(carries, ap[i].scan)))
			continue;
		/* The rule set it names is the one that scan ran. */
		for (k = 0; k < nss && ss[k].scan != ap[i].scan; k++)
			;
		if (k == nss || strcmp(ss[k].rules, ap[i].rules) != 0)
			continue;
		/* The approver's token came in through the gate: its
		 * token.create is in the signed log (a row minted behind the
		 * gate's back has none). */
		if (!token_logged(db, ap[i].rev, &pe))
			continue;
		for (k = 0; k < i; k++)
			if (ap[k].person == ap[i].person &&
			    (ap[k].scan == ev->scan || in_list(carries, ap[k].scan)))
				break;
		if (k < i)
			continue;
		if (ev->napprovals == cap) {
			void *nv = realloc(ev->approvals, (cap = cap ? 2 * cap : 4) *
			    sizeof(*ev->approvals));

			if (nv == NULL) {
				rc = al_err_set(AL_ENOMEM, "out of memory");
				break;
			}
			ev->approvals = nv;
		}
		a = &ev->approvals[ev->napprovals];
		memset(a, 0, sizeof(*a));
		a->at = ap[i].at;
		a->reviewer = strdup(ap[i].rev);
		a->person = strdup(ap[i].pname);
		a->sha256 = strdup(sha256);
		a->ruleset_digest = strdup(ap[i].rules);
		ev->napprovals++;
		if (a->reviewer == NULL || a->person == NULL || a->sha256 == NULL ||
		    a->ruleset_digest == NULL)
			rc = al_err_set(AL_ENOMEM, "out of memory");
	}
out:
	if (rc < 0)
		log_evidence_clear(ev);
	free(ss);
	free(ap);
	gate_entries_clear(&pe);
	return rc;
}

/* ---- proof files ------------------------------------------------------ */

json_t *
gate_b64_json(const void *p, size_t n)
{
	struct dynbuf b;
	json_t *j = NULL;

	dynbuf_init(&b, AL_B64_LEN(n) + 1);
	if (al_b64_add(&b, p, n) == 0)
		j = json_stringn(b.data ? b.data : "", b.len);
	dynbuf_free(&b);
	return j;
}

/* One entry of a proof file: 0 verified, AL_EINVAL with why. */
static int
check_entry(json_t *e, const struct checkpoint *c, uint64_t *index,
    char **text, size_t *len_out)
{
	uint8_t path[MERKLE_MAX_PROOF][32], leaf[32];
	json_t *ej = json_object_get(e, "entry"), *pj = json_object_get(e, "path");
	json_t *ij = json_object_get(e, "index"), *h;
	unsigned char *entry = NULL;
	size_t len = 0, i, n;
	int rc;

	*text = NULL;
	if (!json_is_integer(ij) || json_integer_value(ij) < 0 ||
	    !json_is_string(ej) || !json_is_array(pj) ||
	    json_array_size(pj) > MERKLE_MAX_PROOF)
		return al_err_set(AL_EINVAL, "not an entry of a proof (index, "
		    "entry, path)");
	*index = (uint64_t)json_integer_value(ij);
	n = json_string_length(ej);
	if ((entry = malloc(n / 4 * 3 + 1)) == NULL)
		return al_err_set(AL_ENOMEM, "out of memory");
	if (al_b64_decode(entry, n / 4 * 3, &len, json_string_value(ej), n) < 0) {
		free(entry);
		return al_err_set(AL_EINVAL, "the entry is not base64");
	}
	entry[len] = '\0';
	json_array_foreach(pj, i, h) {
		size_t hl = 0;

		if (!json_is_string(h) || al_b64_decode(path[i], 32, &hl,
		    json_string_value(h), json_string_length(h)) < 0 || hl != 32) {
			free(entry);
			return al_err_set(AL_EINVAL, "path hash %zu is not 32 bytes "
			    "of base64", i);
		}
	}
	/* The entry says where it is: the same index as the proof's. */
	if (gate_entry_check((const char *)entry, len, *index, NULL) < 0) {
		free(entry);
		return al_err_set(AL_EINVAL, "the entry is not a version 1 entry "
		    "of index %" PRIu64 ": %s", *index, al_err_msg());
	}
	merkle_leaf_hash(entry, len, leaf);
	rc = merkle_verify_inclusion(*index, c->size, leaf,
	    (const uint8_t (*)[32])path, json_array_size(pj), c->root);
	if (rc < 0) {
		free(entry);
		return rc;
	}
	*text = (char *)entry;
	*len_out = len;
	return 0;
}

void
gate_proof_check_clear(struct proof_check *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i].entry);
	free(p->v);
	checkpoint_clear(&p->c);
	memset(p, 0, sizeof(*p));
}

int
gate_proof_check(const char *text, size_t len,
    const struct attest_keyring *kr, struct proof_check *out)
{
	json_error_t jerr;
	json_t *j, *e, *arr;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	arr = json_object_get(j, "entries");
	if (j == NULL || !json_is_integer(json_object_get(j,
	    "airlock_audit_proof")) || json_integer_value(json_object_get(j,
	    "airlock_audit_proof")) != PROOF_FORMAT ||
	    !json_is_string(json_object_get(j, "checkpoint")) ||
	    !json_is_array(arr) || json_array_size(arr) > PROOF_MAX_ENTRIES) {
		json_decref(j);
		return al_err_set(AL_EINVAL, "not an airlock audit proof (version "
		    "%d)", PROOF_FORMAT);
	}
	e = json_object_get(j, "checkpoint");
	if (gate_checkpoint_open(json_string_value(e), json_string_length(e), kr,
	    NULL, &out->c, &out->key_index) < 0) {
		rc = al_err_set(AL_EINVAL, "the checkpoint: %s", al_err_msg());
		goto out;
	}
	if (json_array_size(arr) > 0 &&
	    (out->v = calloc(json_array_size(arr), sizeof(*out->v))) == NULL) {
		rc = al_err_set(AL_ENOMEM, "out of memory");
		goto out;
	}
	json_array_foreach(arr, i, e) {
		struct proof_entry *pe = &out->v[out->n++];

		int erc = check_entry(e, &out->c, &pe->index, &pe->entry,
		    &pe->len);

		if (erc == AL_ENOMEM) {
			rc = erc;
			goto out;
		}
		if (erc < 0) {
			snprintf(pe->why, sizeof(pe->why), "%s", al_err_msg());
			continue;
		}
		pe->ok = 1;
	}
out:
	json_decref(j);
	if (rc < 0)
		gate_proof_check_clear(out);
	return rc;
}
