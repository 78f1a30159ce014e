#!/bin/sh
set -eu
make -j2
cp scripts/run-integration.sh build/run-integration.sh
chmod +x build/run-integration.sh
./build/run-integration.sh build/myapp
