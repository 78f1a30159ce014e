#!/bin/bash
set -u
HOST=${DB_HOST:-localhost}
PORT=${DB_PORT:-5432}
for i in $(seq 1 30); do
  if (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; then
    echo "database is up after $i tries"
    exec ./manage.py migrate
  fi
  sleep 1
done
echo "database not reachable at $HOST:$PORT" >&2
exit 1
