#!/bin/sh
set -eu
JSON=$(curl -fsSL "https://api.github.com/repos/octo-org/octo-repo/releases/latest")
VERSION=$(printf '%s' "$JSON" | jq -r .tag_name)
echo "latest release: $VERSION"
if [ "$VERSION" != "$(cat VERSION)" ]; then
  echo "a newer version is available"
fi
