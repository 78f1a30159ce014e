/* fuzz_bundle.c - fuzz target for the reader of git bundles; see fuzz_whole.h. */
#define FUZZ_NAME "fuzz_bundle"
#define FUZZ_KIND AL_KIND_BUNDLE
#include "fuzz_whole.h"
