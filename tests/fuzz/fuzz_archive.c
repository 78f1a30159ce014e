/* fuzz_archive.c - fuzz target for the reader of archives (or plain files: the kind a member of a tree has); see fuzz_whole.h. */
#define FUZZ_NAME "fuzz_archive"
#define FUZZ_KIND AL_KIND_MEMBER
#include "fuzz_whole.h"
