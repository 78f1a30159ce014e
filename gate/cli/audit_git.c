/*
 * audit_git.c - `airlock audit checkpoint --git REPO [--ref REF]`: the
 * newest checkpoint kept as a witness keeps it, in a git repository: a
 * commit on REF (default refs/airlock/checkpoints) whose tree holds the
 * signed note as the file "checkpoint", its parent the previous one. Before
 * it appends, it checks what a witness checks: the ref's last checkpoint
 * and the new one both verify with the gate's keyring, the new one is at
 * least as large, and a consistency proof from the gate's tree links them
 * (RFC 9162). A log that was cut short or rewritten is refused there, and
 * the ref keeps the older checkpoint that proves it (docs/audit.md).
 *
 * git runs as a child (fork, execvp "git", the repository given with -C),
 * its input on a pipe, its output read back; the ref is moved with
 * update-ref against its old value, so two exports cannot interleave.
 *
 * Trust: the repository is the auditor's; what it holds is read as hostile
 * (the last checkpoint is verified before it is believed).
 */
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"
#include "dynbuf.h"
#include "err.h"
#include "gate.h"
#include "merkle.h"

#define GIT_OUT_MAX (1u << 20)

/*
 * Runs git -C repo ARGS with input on stdin; its stdout into out (at most
 * GIT_OUT_MAX bytes, a trailing newline dropped). Returns git's exit
 * status, or a negative error when it could not be run.
 */
static int
run_git(const char *repo, const char *const *args, const char *input,
    size_t inlen, struct dynbuf *out)
{
	const char *argv[20];
	int in[2], op[2], st = 0;
	size_t n = 0, off = 0;
	pid_t pid;
	char buf[4096];
	ssize_t r;

	/* The repository's own hooks and config do not run for us. */
	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = repo;
	argv[n++] = "-c";
	argv[n++] = "core.hooksPath=/dev/null";
	while (*args != NULL && n < 19)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (pipe(in) < 0)
		return al_err_set(AL_EIO, "pipe: %s", strerror(errno));
	if (pipe(op) < 0) {
		close(in[0]);
		close(in[1]);
		return al_err_set(AL_EIO, "pipe: %s", strerror(errno));
	}
	if ((pid = fork()) < 0) {
		close(in[0]);
		close(in[1]);
		close(op[0]);
		close(op[1]);
		return al_err_set(AL_EIO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* Only the repository named: not one the environment points
		 * at. */
		unsetenv("GIT_DIR");
		unsetenv("GIT_WORK_TREE");
		unsetenv("GIT_INDEX_FILE");
		unsetenv("GIT_OBJECT_DIRECTORY");
		unsetenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
		setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
		signal(SIGPIPE, SIG_DFL);
		dup2(in[0], 0);
		dup2(op[1], 1);
		close(in[0]);
		close(in[1]);
		close(op[0]);
		close(op[1]);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(op[1]);
	/* A note is small: it fits the pipe before git reads its output. A
	 * git that exits first makes write fail (SIGPIPE is ignored here). */
	{
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);

		while (off < inlen && (r = write(in[1], input + off,
		    inlen - off)) > 0)
			off += (size_t)r;
		signal(SIGPIPE, old);
	}
	close(in[1]);
	dynbuf_reset(out);
	while ((r = read(op[0], buf, sizeof(buf))) > 0)
		if (dynbuf_add(out, buf, (size_t)r) < 0)
			break;
	close(op[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	while (out->len > 0 && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
	if (!WIFEXITED(st))
		return al_err_set(AL_EIO, "git %s died", argv[3]);
	if (WEXITSTATUS(st) == 127)
		return al_err_set(AL_EIO, "git is not installed");
	return WEXITSTATUS(st);
}

static int
git_ok(const char *repo, const char *const *args, const char *input,
    struct dynbuf *out, const char *what)
{
	int rc = run_git(repo, args, input, input ? strlen(input) : 0, out);

	if (rc < 0)
		return rc;
	if (rc != 0)
		return al_err_set(AL_EIO, "%s: git %s failed (exit %d)", repo, what,
		    rc);
	return 0;
}

int
audit_export_git(struct db *db, const char *datadir, const char *repo,
    const char *ref, const struct db_checkpoint *cp)
{
	struct attest_keyring kr = {0};
	struct checkpoint old = {0}, cur = {0};
	struct dynbuf o;
	uint8_t path[MERKLE_MAX_PROOF][32];
	char *origin = NULL, spec[600], blob[128], tree[128], commit[128];
	char parent[128] = "", msg[128], mk[256];
	size_t n = 0, ki = 0;
	int rc;

	dynbuf_init(&o, GIT_OUT_MAX);
	if ((rc = gate_keyring_load(datadir, &kr, NULL)) < 0 ||
	    (rc = gate_audit_origin(datadir, &origin)) < 0 ||
	    (rc = gate_checkpoint_open(cp->note, strlen(cp->note), &kr, origin,
	    &cur, &ki)) < 0)
		goto out;
	{
		const char *a[] = {"rev-parse", "--verify", "-q", ref, NULL};

		if ((rc = run_git(repo, a, NULL, 0, &o)) < 0)
			goto out;
		if (rc == 0)
			snprintf(parent, sizeof(parent), "%s", dynbuf_str(&o));
		else if (rc != 1) {
			rc = al_err_set(AL_EIO, "%s: not a git repository (git "
			    "rev-parse exit %d)", repo, rc);
			goto out;
		}
	}
	if (parent[0] != '\0') {
		const char *a[] = {"cat-file", "blob", spec, NULL};

		snprintf(spec, sizeof(spec), "%s:checkpoint", parent);
		if ((rc = git_ok(repo, a, NULL, &o, "cat-file")) < 0)
			goto out;
		if ((rc = dynbuf_addc(&o, '\n')) < 0 ||
		    (rc = gate_checkpoint_open(o.data, o.len, &kr, origin, &old,
		    &ki)) < 0) {
			rc = al_err_set(AL_EINVAL, "%s %s holds no checkpoint of this "
			    "log: %s", repo, ref, al_err_msg());
			goto out;
		}
		/* The witness's check: the new one extends the old one. */
		if (cur.size < old.size) {
			rc = al_err_set(AL_EINVAL, "the log has %" PRIu64 " entries "
			    "in its newest checkpoint; %s %s holds one of %" PRIu64
			    ": the log was cut short", cur.size, repo, ref, old.size);
			goto out;
		}
		if (cur.size == old.size) {
			if (memcmp(cur.root, old.root, 32) != 0) {
				rc = al_err_set(AL_EINVAL, "the newest checkpoint and the "
				    "one in %s have the same size and different roots: "
				    "the log was rewritten", ref);
				goto out;
			}
			fprintf(stderr, "airlock audit: %s already holds this "
			    "checkpoint\n", ref);
			rc = 0;
			goto out;
		}
		if ((rc = db_audit_consistency(db, old.size, cur.size, path,
		    &n)) < 0 || (rc = merkle_verify_consistency(old.size, cur.size,
		    old.root, cur.root, (const uint8_t (*)[32])path, n)) < 0) {
			rc = al_err_set(AL_EINVAL, "the newest checkpoint does not "
			    "extend the one in %s (%" PRIu64 " entries): the log was "
			    "rewritten: %s", ref, old.size, al_err_msg());
			goto out;
		}
	}
	{
		const char *a[] = {"hash-object", "-w", "--stdin", NULL};

		if ((rc = git_ok(repo, a, cp->note, &o, "hash-object")) < 0)
			goto out;
		snprintf(blob, sizeof(blob), "%s", dynbuf_str(&o));
	}
	{
		const char *a[] = {"mktree", NULL};

		snprintf(mk, sizeof(mk), "100644 blob %s\tcheckpoint\n", blob);
		if ((rc = git_ok(repo, a, mk, &o, "mktree")) < 0)
			goto out;
		snprintf(tree, sizeof(tree), "%s", dynbuf_str(&o));
	}
	snprintf(msg, sizeof(msg), "airlock checkpoint: %s, %" PRIu64
	    " entries", cur.origin, cur.size);
	{
		const char *with[] = {"-c", "user.name=airlock", "-c",
		    "user.email=airlock@localhost", "commit-tree", tree, "-p",
		    parent, "-m", msg, NULL};
		const char *without[] = {"-c", "user.name=airlock", "-c",
		    "user.email=airlock@localhost", "commit-tree", tree, "-m", msg,
		    NULL};

		if ((rc = git_ok(repo, parent[0] ? with : without, NULL, &o,
		    "commit-tree")) < 0)
			goto out;
		snprintf(commit, sizeof(commit), "%s", dynbuf_str(&o));
	}
	{
		/* Against the old value: "" (must not exist) when there was
		 * none. */
		const char *a[] = {"update-ref", ref, commit, parent[0] ? parent :
		    "", NULL};

		if ((rc = git_ok(repo, a, NULL, &o, "update-ref")) < 0)
			goto out;
	}
	fprintf(stderr, "airlock audit: %s %s: checkpoint of %" PRIu64 " entries "
	    "(commit %.12s)%s\n", repo, ref, cur.size, commit, parent[0] ?
	    ", consistent with the one before" : "");
out:
	checkpoint_clear(&old);
	checkpoint_clear(&cur);
	attest_keyring_clear(&kr);
	free(origin);
	dynbuf_free(&o);
	return rc;
}
