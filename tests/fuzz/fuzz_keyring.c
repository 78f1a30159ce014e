/*
 * fuzz_keyring.c - fuzz target for the gate's keyring, DATA/keys/
 * keyring.json (gate/serve/keys.c, key_ring_parse): arbitrary bytes as
 * the file `airlock key list|show --all|rotate` reads.
 *
 * Nothing may crash or leak. A keyring that parses is a list of keys,
 * each with a key id of exactly 64 lower-case hex digits (it becomes a
 * file name, DATA/keys/KEYID.pub: no '/', no '.', no NUL), a creation
 * time and a retirement time or null, which print as `key list` prints
 * them.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "os.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *kr = key_ring_parse((const char *)data, size), *e;
	size_t i;

	if (kr == NULL)
		return 0;
	json_array_foreach(json_object_get(kr, "keys"), i, e) {
		const char *id = json_string_value(json_object_get(e, "key_id"));
		json_t *c = json_object_get(e, "created");
		json_t *r = json_object_get(e, "retired");
		char t[32];

		if (id == NULL || strlen(id) != 64 || !al_is_hex(id, 64) ||
		    !json_is_integer(c) || !(json_is_integer(r) || json_is_null(r)))
			abort();
		al_time_iso(json_integer_value(c), t);
		if (strlen(t) != 24)
			abort();
		if (json_is_integer(r)) {
			al_time_iso(json_integer_value(r), t);
			if (strlen(t) != 24)
				abort();
		}
	}
	json_decref(kr);
	return 0;
}
