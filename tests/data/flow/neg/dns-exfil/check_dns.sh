#!/bin/sh
set -u
for name in www.example.com api.example.com cdn.example.com; do
  ip=$(dig +short "$name" A | head -n1)
  if [ -z "$ip" ]; then
    echo "MISSING $name"
  else
    echo "ok      $name -> $ip"
  fi
done
