#!/bin/sh
# Used by docker-compose and CI to wait until dependencies answer.
set -e

until nc -z -w 2 db 5432; do
  echo "waiting for postgres..."
  sleep 1
done

echo ruok | nc zookeeper 2181 | grep -q imok

curl -fsS --retry 10 --retry-connrefused http://127.0.0.1:5000/health > /dev/null
echo "all services are up"
