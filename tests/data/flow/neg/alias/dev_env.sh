#!/bin/bash
# scripts/dev-env.sh - sourced by contributors
alias ll='ls -la'
alias gs='git status -sb'
S=$(which bash)
B=base64

echo "shell: $S ($BASH_VERSION)"

pack_report() {
  # encodes the test report so it can be pasted into an issue
  $B -w0 build/report.txt > build/report.b64
  echo "wrote build/report.b64 ($(wc -c < build/report.b64) bytes)"
}

export EDITOR=${EDITOR:-vim}
