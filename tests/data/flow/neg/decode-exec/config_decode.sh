#!/bin/sh
set -eu
mkdir -p config
printf '%s' "$APP_CONFIG_B64" | base64 -d > config/app.yaml
chmod 600 config/app.yaml
./bin/app --config config/app.yaml --check
