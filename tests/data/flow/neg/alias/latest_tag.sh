#!/bin/sh
set -eu
c=curl
REPO=octo-org/tool
tag=$($c -fsSL "https://api.github.com/repos/$REPO/releases/latest" | jq -r .tag_name)
echo "latest release of $REPO: $tag"
if [ -f .tool-version ] && [ "$(cat .tool-version)" != "$tag" ]; then
  echo "pinned version $(cat .tool-version) is behind"
fi
