/*
 * gate.h - the airlock command line: dispatch, commands, shared settings.
 */
#ifndef AIRLOCK_GATE_H
#define AIRLOCK_GATE_H

#define AIRLOCK_VERSION "0.1.0"

/* Exit codes, as DESIGN.md: 0 nothing at or above --fail-on, 1 findings or
 * refused, 2 usage or runtime error. */
#define EXIT_OK 0
#define EXIT_FINDINGS 1
#define EXIT_ERROR 2

/* The service and its data directory (gate/serve/). */
int cmd_serve(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_rules(int argc, char **argv);
/* Commands that talk to a running gate (gate/client/). */
int cmd_submit(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_reject(int argc, char **argv);
int cmd_override(int argc, char **argv);
int cmd_release(int argc, char **argv);
int cmd_attestation(int argc, char **argv);
int cmd_pull(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_key(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_provenance(int argc, char **argv);
/* gate/cli/cmd_audit_log.c: `airlock audit log|query`, argv[0] the verb. */
int cmd_audit_log(int argc, char **argv);
/* gate/cli/audit_git.c: checkpoint cp appended to ref in the git
 * repository repo, once it is proved to extend the ref's last one. */
struct db;
struct db_checkpoint;
int audit_export_git(struct db *db, const char *datadir, const char *repo,
    const char *ref, const struct db_checkpoint *cp);
/* gate/serve/keys.c: the text of keys/keyring.json as a keyring (each
 * key_id 64 hex digits, created an integer, retired one or null; caller
 * json_decref), or NULL when it is not one. */
struct json_t;
struct json_t *key_ring_parse(const char *text, size_t len);
/* `airlock rules reload`: tells the running gate to reload its rules. */
int cmd_rules_reload(int argc, char **argv);
int cmd_token(int argc, char **argv);
int cmd_person(int argc, char **argv);

#endif
