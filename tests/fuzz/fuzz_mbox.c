/*
 * fuzz_mbox.c - fuzz target for the format-patch mailbox reader: arbitrary bytes read
 * as a mbox (scan_artifact_fd with --kind mbox, as the scan child
 * does), with the test rule set. Nothing may crash or leak, and every
 * finding must be well formed and inside the artifact.
 */
#include <stdint.h>

#include "fuzz_whole.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_whole_init("fuzz_mbox");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_whole_one(SCAN_KIND_MBOX, data, size);
	return 0;
}
