/*
 * dirs.h - where airlock finds its rules and review UI, keeps its
 * compiled-rules cache and its data: the option if given, else the
 * environment, else a default.
 * Every command that needs one of them asks here, so they agree.
 */
#ifndef AIRLOCK_DIRS_H
#define AIRLOCK_DIRS_H

/*
 * The rules directory: the option if given, else $AIRLOCK_RULES, else
 * rules/ beside the build directory the binary runs from (a source tree),
 * else the installed share/airlock/rules. Returns a malloc'd path.
 */
char *gate_rules_dir(const char *opt);
/* The review UI's directory, found the same way: the option, else
 * $AIRLOCK_UI_DIR, else review-ui/ beside the build directory, else the
 * installed share/airlock/review-ui. Returns a malloc'd path. */
char *gate_ui_dir(const char *opt);
/* $AIRLOCK_CACHE_DIR, $XDG_CACHE_HOME/airlock or ~/.cache/airlock (malloc'd),
 * or NULL when there is no home to put it in. */
char *gate_cache_dir(void);
/* The data directory: the option if given, else $AIRLOCK_DATA, else
 * "var" (malloc'd). */
char *gate_data_dir(const char *opt);
/* --signing-key FILE: made absolute and put in $AIRLOCK_SIGNING_KEY, where
 * attest_key_path() (gate/attest.h) and the processes started from here
 * look for the key. NULL changes nothing. */
int gate_signing_key_opt(const char *opt);

#endif
