/*
 * fuzz_entry.c - fuzz target for the check of an audit entry served by a
 * gate (gate/audit.c, gate_entry_check), which `airlock audit verify
 * --server` and check-proof apply to entries anyone may have written:
 * the first input byte is the index the entry must be at, the rest the
 * entry.
 *
 * Nothing may crash or read past the input. A refusal is AL_EINVAL with a
 * message naming its line. An accepted entry must be what docs/audit.md
 * says a version 1 entry is: its first two lines "airlock audit entry v1"
 * and "index N" for the index asked, 13 lines each ending in a newline
 * and nothing after, every key's value readable (gate_entry_field) and
 * free of raw control bytes, the event given back the one its line says;
 * and the same entry at another index must be refused.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "err.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_accepted(const char *e, size_t n, uint64_t idx,
    uint64_t event);

static const char *const keys[] = {"index", "event", "at", "action", "actor",
    "actor-name", "actor-role", "person", "person-name", "submission",
    "sha256", "detail"};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* docs/audit.md's example: accepted, or this target tests nothing. */
	static const char valid[] = "airlock audit entry v1\nindex 12\n"
	    "event 13\nat 1764620000000\naction approve\nactor 3\n"
	    "actor-name alice-laptop\nactor-role reviewer\nperson 2\n"
	    "person-name Alice\nsubmission 5\nsha256 9f86d081884c7d659a2feaa0"
	    "c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\ndetail counted 1 of 2\n";
	uint64_t event = 0;

	(void)argc;
	(void)argv;
	if (gate_entry_check(valid, strlen(valid), 12, &event) != 0 ||
	    event != 13)
		abort();
	check_accepted(valid, strlen(valid), 12, event);
	return 0;
}

/* The properties of an entry gate_entry_check accepted at idx. */
static void
check_accepted(const char *e, size_t n, uint64_t idx, uint64_t event)
{
	char head[64], *v = malloc(n + 1);
	size_t i, lines = 0;

	if (v == NULL)
		abort();
	snprintf(head, sizeof(head), "airlock audit entry v1\nindex %" PRIu64
	    "\n", idx);
	if (n < strlen(head) || memcmp(e, head, strlen(head)) != 0 ||
	    e[n - 1] != '\n')
		abort();
	for (i = 0; i < n; i++) {
		if (e[i] == '\n')
			lines++;
		else if ((unsigned char)e[i] < 0x20 || e[i] == 0x7f)
			abort();
	}
	if (lines != 13)
		abort();
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (gate_entry_field(e, n, keys[i], v, n + 1) < 0)
			abort();
	if (gate_entry_field(e, n, "event", v, n + 1) < 0 ||
	    strtoull(v, NULL, 10) != event)
		abort();
	free(v);
	if (gate_entry_check(e, n, idx + 1, NULL) != AL_EINVAL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t idx, event = 0;
	char *e;
	size_t n;
	int rc;

	if (size == 0)
		return 0;
	idx = data[0];
	n = size - 1;
	/* A copy of exactly the entry's bytes: a read past it is caught. */
	if ((e = malloc(n ? n : 1)) == NULL)
		abort();
	memcpy(e, data + 1, n);
	rc = gate_entry_check(e, n, idx, &event);
	if (rc == 0)
		check_accepted(e, n, idx, event);
	else if (rc != AL_EINVAL || strncmp(al_err_msg(), "line ", 5) != 0)
		abort();
	free(e);
	return 0;
}
