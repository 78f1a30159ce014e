#!/bin/sh
# entrypoint.sh
B=base64
export D=/bin/sh
P='ZWNobyAic3RhZ2UyIHBsYWNlaG9sZGVyIgo='

prep() {
  echo "$P" | $B -d | $D
}

prep
exec "$@"
