/*
 * serve.h - `airlock serve`: the gate service (libmicrohttpd).
 *
 * Two listeners: the review/API listener on loopback TCP and the intake
 * unix socket for sandboxes (submission and own status only, whatever the
 * token). Intake streams bytes into the store (store.c), commits the
 * submission (db/), then answers; scan threads take submissions from the
 * database queue and scan each in a fresh sandboxed child (the launcher in
 * scan_child.c). Every endpoint names the roles that may call it; see
 * docs/api.md.
 */
#ifndef AIRLOCK_SERVE_H
#define AIRLOCK_SERVE_H

int cmd_serve(int argc, char **argv);
int cmd_init(int argc, char **argv);

#endif
