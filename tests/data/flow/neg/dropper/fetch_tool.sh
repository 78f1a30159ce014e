#!/bin/sh
set -eu
VER=1.7.1
URL="https://github.com/octo-org/tool/releases/download/v$VER/tool-$VER-linux-amd64.tar.gz"
SUM="0000000000000000000000000000000000000000000000000000000000000000"
mkdir -p .tools
curl -fsSL -o .tools/tool.tgz "$URL"
echo "$SUM  .tools/tool.tgz" | sha256sum -c -
tar -xzf .tools/tool.tgz -C .tools
.tools/tool --version
