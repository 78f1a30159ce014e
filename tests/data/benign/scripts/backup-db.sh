#!/usr/bin/env bash
# Nightly database dump to the backups bucket (runs in the ops cron container).
set -euo pipefail
stamp=$(date -u +%Y%m%dT%H%M%SZ)
pg_dump --format=custom "$DATABASE_URL" > "/tmp/notes-${stamp}.dump"
aws s3 cp "/tmp/notes-${stamp}.dump" "s3://acme-notes-backups/${stamp}.dump" --only-show-errors
rm -f "/tmp/notes-${stamp}.dump"
