/* fuzz_patch.c - fuzz target for the reader of unified and git diffs; see fuzz_whole.h. */
#define FUZZ_NAME "fuzz_patch"
#define FUZZ_KIND AL_KIND_PATCH
#include "fuzz_whole.h"
