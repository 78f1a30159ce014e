/*
 * scan_finding.c - the built-in rules and the finding list: the findings
 * airlock reports itself (content it could not scan, links, archive and
 * patch hazards, executables, disguised files), appending and formatting
 * them, sorting, moving and freeing lists, and the fingerprints that
 * identify a finding across edits.
 *
 * Fingerprints are 128 bits of SHA-256 over the rule id, the path below the
 * scan root, the SHA-256 of the matched bytes and the occurrence number of
 * those same bytes in the file. They survive edits elsewhere in the file
 * (line numbers change, fingerprints do not), which is what baselines and
 * the gate's allow-lists need. A built-in finding about a whole file hashes
 * no content and occurrence 0.
 *
 * Trust: used by both sides. The scan child appends findings about hostile
 * bytes; the parent makes findings of its own (the walker, the archive and
 * patch readers when run in-process) and rebuilds the child's from its
 * frames with finding_add_builtin (parent/parent.c). Nothing here reads
 * artifact bytes: a path and a message are copied as given, a formatted
 * message is cut at AL_MAX_PATH + 511 bytes, and a failed allocation is
 * returned, never ignored.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "al_limits.h"
#include "err.h"
#include "scan_engine_int.h"
#include "util.h"

/* ---- built-in rules ---------------------------------------------------- */

static struct rule builtin_rules[] = {
	{
		.id = AL_RULE_UNSCANNABLE,
		.title = "Content could not be scanned",
		.category = "unscannable",
		.severity = AL_SEV_HIGH,
		.description = "airlock could not read all of this content (an "
		    "error, a limit, an encrypted or malformed part), so it "
		    "cannot say the content is safe. It stays in quarantine "
		    "unless a reviewer inspects it by other means and "
		    "overrides.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SYMLINK,
		.title = "Symbolic link",
		.category = "archive-hazard",
		.severity = AL_SEV_LOW,
		.description = "A symbolic link inside the artifact. It was "
		    "not followed. Check that its target is the file you "
		    "expect.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SYMLINK_ESCAPE,
		.title = "Symbolic link pointing outside the tree",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A symbolic link whose target is absolute or "
		    "climbs out of the artifact with '..'. Unpacked, it can "
		    "make later writes or reads reach files outside the "
		    "project (ssh keys, shell rc files).",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ENCODED_TEXT,
		.title = "Long encoded text",
		.category = "obfuscation",
		.severity = AL_SEV_LOW,
		.description = "A long base64 or hex string that decodes to "
		    "readable text. Text is encoded like this to keep it from "
		    "readers and scanners; airlock decoded and scanned it, and "
		    "reports what it found inside separately. Check what the "
		    "text is and why it is encoded.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ARCHIVE_PATH,
		.title = "Archive entry name that escapes or deceives",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "An archive entry whose name is absolute, "
		    "climbs out with '..', holds control characters, or is a "
		    "case variant of .git. Unpacked, it writes outside the "
		    "target directory (zip-slip) or into git's own "
		    "configuration.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ARCHIVE_HARDLINK,
		.title = "Hard link in an archive",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A hard link entry: unpacked, it can make a "
		    "later entry overwrite a file the link points at, outside "
		    "the files the reviewer saw. Source archives have no need "
		    "for them.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ARCHIVE_MODE,
		.title = "Setuid, setgid or world-writable archive entry",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "An entry whose mode carries setuid or setgid, "
		    "or lets anyone write it. Unpacked as root, a setuid "
		    "binary is a privilege escalation waiting to be run.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_ARCHIVE_DUPLICATE,
		.title = "The same name twice in an archive",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "Two entries with the same name, or names that "
		    "differ only in case. Which copy ends up on disk depends "
		    "on the tool and the file system, so the reviewer may have "
		    "read the other one.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_EXECUTABLE,
		.title = "Executable or compiled code",
		.category = "binary",
		.severity = AL_SEV_LOW,
		.description = "Machine code or bytecode (ELF, PE, Mach-O, "
		    "WebAssembly, Python bytecode, Java classes) cannot be "
		    "reviewed by reading it. Vendored packages carry many, so "
		    "this is context (low); a binary under a text or image "
		    "name is reported at high. Ask for the source and a "
		    "reproducible build, or keep it out.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_TYPE_MISMATCH,
		.title = "File disguised by its name",
		.category = "binary",
		.severity = AL_SEV_HIGH,
		.description = "The name promises text, a document or an image "
		    "(README.txt, logo.png), but the content is an executable "
		    "or an archive. A disguised file is meant to be "
		    "overlooked.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_NUL_TEXT,
		.title = "NUL bytes between the characters of a text file",
		.category = "obfuscation",
		.severity = AL_SEV_LOW,
		.description = "A text file with NUL bytes between two "
		    "visible characters. dash and bash drop NUL bytes as they "
		    "read a script, so `cu<NUL>rl` runs curl; editors, diffs, "
		    "grep and code review show such a file as binary or cut "
		    "it at the NUL, and scanners that read it as binary see "
		    "nothing. airlock reads it as sh does (NULs dropped) and "
		    "reports what the rules find there separately. Records "
		    "that NULs separate (find -print0, an environ dump) are "
		    "data, so this is context (low); in a shell script "
		    "(#!, .sh, a shell rc file), where NULs have no use but "
		    "hiding, it is medium.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_PATCH_PATH,
		.title = "Patch that writes where it should not",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A patch names a file inside .git (in any "
		    "spelling: .GIT, .git., git~1, .git with characters HFS+ "
		    "ignores), an absolute path, a path climbing out with "
		    "'..', or one with control characters. git apply refuses "
		    "most of these; a patch that tries is an attempt to reach "
		    "hooks or configuration, not a code change.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SUBMODULE,
		.title = "Submodule added or moved",
		.category = "dependency",
		.severity = AL_SEV_HIGH,
		.description = "A gitlink (mode 160000) points the repository "
		    "at a commit of another repository. The code it brings in "
		    "is not part of this artifact and was not scanned or "
		    "reviewed.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_EXEC_MODE,
		.title = "File made executable",
		.category = "binary",
		.severity = AL_SEV_LOW,
		.description = "A change sets the executable bit (mode "
		    "100755). Scripts need it; a data or document file does "
		    "not. Context for the reviewer.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_KIND_MISMATCH,
		.title = "Submitted as one kind, but the content is another",
		.category = "context",
		.severity = AL_SEV_MEDIUM,
		.description = "The submitter said how to read the artifact "
		    "(--kind), but its content is of another kind: a zip or a "
		    "patch named a plain file, a mailbox named a patch. The "
		    "gate reads an artifact as its content is, the way its "
		    "consumer will (unzip, git am), and delivers it only in "
		    "that kind; the label is only a label. Ask why the "
		    "submitter called it something else.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_BUNDLE_INCOMPLETE,
		.title = "Git bundle that depends on history it does not carry",
		.category = "context",
		.severity = AL_SEV_LOW,
		.description = "The bundle lists prerequisite commits: it was "
		    "made from a range and applies on top of history it does "
		    "not carry. airlock scanned every object the bundle "
		    "carries and the changes its commits make; the history "
		    "below was not seen. Check that the prerequisites are "
		    "commits you trust. (Objects the bundle needs but lacks "
		    "make it unscannable instead.)",
		.builtin = 1,
	},
	{
		.id = AL_RULE_BASE_CONTENT,
		.title = "Runnable file whose content the artifact does not "
		    "carry",
		.category = "archive-hazard",
		.severity = AL_SEV_MEDIUM,
		.description = "A rename, a copy or a mode change puts a file "
		    "that already exists in the base tree where it runs: an "
		    "executable (mode 100755), a script by its name (*.sh, "
		    "*.py, bin/, scripts/, Makefile, ...), or a place a rule "
		    "of category install-hook or persistence names (a "
		    "workflow, a git hook, package.json, conftest.py, a shell "
		    "rc file). Only the lines the change adds are in the "
		    "artifact: the rest comes from the base tree, which "
		    "airlock never sees, so no one has reviewed what will "
		    "run. Medium for a script or an executable, high for a "
		    "place that runs by itself, low when the file was already "
		    "as runnable where it came from. Read the source file in "
		    "the base tree before approving.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_PICKLE,
		.title = "Pickle that runs code when it is loaded",
		.category = "obfuscation",
		.severity = AL_SEV_HIGH,
		.description = "A Python pickle (a .pkl file, a model "
		    "checkpoint, a joblib dump, or any file pickle.load would "
		    "read) names a callable that loading it imports and calls "
		    "(GLOBAL, STACK_GLOBAL or INST, then REDUCE, OBJ, NEWOBJ or "
		    "BUILD): unpickling runs it, with the rights of whoever "
		    "loads the file. airlock walks the opcodes without "
		    "unpickling. Critical for a callable that runs commands, "
		    "code or I/O (os.system, subprocess, builtins.eval/exec/"
		    "getattr, ...), whether or not the walk saw the call; high "
		    "for a callable outside the short list of plain data "
		    "reconstructors (collections, datetime, numpy, torch "
		    "tensors) that the pickle calls; low for one it only "
		    "imports. Load such a file only with a restricted "
		    "Unpickler, or ask for another format (JSON, safetensors).",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SYMLINK_GIT,
		.title = "Symbolic link into .git",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A symbolic link whose target is inside the "
		    "repository's .git directory, in any spelling (.GIT on a "
		    "case-insensitive file system, ./.git, sub/../.git), "
		    "directly or through another link the same change makes. "
		    "Whatever writes through it writes git's hooks or "
		    "configuration, which run code on the next git command.",
		.builtin = 1,
	},
	{
		.id = AL_RULE_SPECIAL,
		.title = "Device, FIFO or socket file",
		.category = "archive-hazard",
		.severity = AL_SEV_HIGH,
		.description = "A special file has no place in source or build "
		    "output; a device node can give raw access to hardware or "
		    "memory when unpacked with privileges.",
		.builtin = 1,
	},
};

#define NBUILTIN (sizeof(builtin_rules) / sizeof(builtin_rules[0]))

const struct rule *
scan_builtin_rule(const char *id)
{
	size_t i;

	for (i = 0; i < NBUILTIN; i++)
		if (strcmp(builtin_rules[i].id, id) == 0)
			return &builtin_rules[i];
	return NULL;
}

const struct rule *const *
scan_builtin_rules(size_t *n_out)
{
	static const struct rule *ptrs[NBUILTIN];
	size_t i;

	for (i = 0; i < NBUILTIN; i++)
		ptrs[i] = &builtin_rules[i];
	*n_out = NBUILTIN;
	return ptrs;
}

/* ---- findings ---------------------------------------------------------- */

int
eng_finding_push(struct finding_list *l, struct finding **out)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		struct finding *nv = realloc(l->v, ncap * sizeof(*nv));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		l->v = nv;
		l->cap = ncap;
	}
	*out = &l->v[l->n++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

void
eng_fingerprint(char out[33], const char *rule_id, const char *relpath,
    const char *content_hash, size_t occurrence)
{
	struct al_hash h;
	char hex[AL_SHA256_HEX], num[24];

	/* rule NUL relpath NUL content-hash NUL occurrence: hashed as it
	 * comes, so no path is too long to be told apart. */
	snprintf(num, sizeof(num), "%zu", occurrence);
	al_hash_begin(&h);
	al_hash_addz(&h, rule_id);
	al_hash_addz(&h, relpath);
	al_hash_addz(&h, content_hash);
	al_hash_add(&h, num, strlen(num));
	al_hash_end(&h, hex);
	memcpy(out, hex, 32);
	out[32] = '\0';
}

int
finding_add_builtin(struct finding_list *l, const char *rule_id,
    const char *path, const char *message)
{
	const struct rule *r = scan_builtin_rule(rule_id);
	struct finding *f;
	int rc;

	if (r == NULL)
		return al_err_set(AL_EINVAL, "no built-in rule %s", rule_id);
	if ((rc = eng_finding_push(l, &f)) < 0)
		return rc;
	f->rule = r;
	f->severity = r->severity;
	f->path = strdup(path);
	f->excerpt = strdup(message);
	if (f->path == NULL || f->excerpt == NULL) {
		free(f->path);
		free(f->excerpt);
		l->n--;
		return al_err_set(AL_ENOMEM, "out of memory");
	}
	eng_fingerprint(f->fingerprint, rule_id, path, "", 0);
	return 0;
}

int
finding_add_builtinv(struct finding_list *l, const char *rule_id,
    const char *path, const char *fmt, va_list ap)
{
	char msg[AL_MAX_PATH + 512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return finding_add_builtin(l, rule_id, path, msg);
}

int
finding_add_builtinf(struct finding_list *l, const char *rule_id,
    const char *path, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = finding_add_builtinv(l, rule_id, path, fmt, ap);
	va_end(ap);
	return rc;
}

void
finding_list_free(struct finding_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].excerpt);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int
cmp_finding(const void *a, const void *b)
{
	const struct finding *fa = a, *fb = b;
	int c = strcmp(fa->path, fb->path);

	if (c != 0)
		return c;
	if (fa->line != fb->line)
		return fa->line < fb->line ? -1 : 1;
	if (fa->column != fb->column)
		return fa->column < fb->column ? -1 : 1;
	return strcmp(fa->rule->id, fb->rule->id);
}

void
finding_list_sort(struct finding_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_finding);
}

int
finding_list_move(struct finding_list *dst, struct finding_list *src)
{
	size_t need;

	if (src->n == 0)
		return 0;
	if (al_size_add(&need, dst->n, src->n) < 0)
		return AL_ELIMIT;
	if (need > dst->cap) {
		struct finding *nv = realloc(dst->v, need * sizeof(*nv));

		if (nv == NULL)
			return al_err_set(AL_ENOMEM, "out of memory");
		dst->v = nv;
		dst->cap = need;
	}
	memcpy(dst->v + dst->n, src->v, src->n * sizeof(*src->v));
	dst->n = need;
	free(src->v);
	src->v = NULL;
	src->n = src->cap = 0;
	return 0;
}
