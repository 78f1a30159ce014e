/*
 * fuzz_bundle.c - fuzz target for the git bundle reader: arbitrary bytes read
 * as a bundle (scan_artifact_fd with --kind bundle, as the scan child
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
	fuzz_whole_init("fuzz_bundle");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_whole_one(SCAN_KIND_BUNDLE, data, size);
	return 0;
}
