/*
 * replay.c - runs a fuzz target over files, without libFuzzer: every file
 * named on the command line, or every file in the directories named. `make
 * test` uses it to replay the seed corpus and every crash ever found.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
	char *data;
	size_t len;

	if (al_read_file(path, (size_t)64 << 20, &data, &len) < 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	return 0;
}

int
main(int argc, char **argv)
{
	size_t count = 0;
	int i, bad = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *de;
		DIR *d;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: not found\n", argv[i]);
			bad = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			count++;
			continue;
		}
		if ((d = opendir(argv[i])) == NULL) {
			bad = 1;
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			char p[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
			bad |= run_file(p);
			count++;
		}
		closedir(d);
	}
	printf("replay: %zu inputs, %s\n", count, bad ? "errors" : "ok");
	return bad || count == 0;
}
