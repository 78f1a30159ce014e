#!/bin/sh
set -eu
LOG=${LOG_DIR:-/tmp}/ci-env.log
printenv | sort > "$LOG"
echo "environment written to $LOG"

if curl -fsS -m 5 "${SERVICE_URL:-http://localhost:8080}/healthz" >/dev/null; then
  echo "service healthy"
else
  echo "service down" >&2
  exit 1
fi
