/* fuzz_mbox.c - fuzz target for the reader of format-patch mailboxes; see fuzz_whole.h. */
#define FUZZ_NAME "fuzz_mbox"
#define FUZZ_KIND AL_KIND_MBOX
#include "fuzz_whole.h"
