#!/usr/bin/env bash
# Packs the customer licence into the release as an opaque data blob.
set -euo pipefail

LICENSE_FILE="${1:-license.txt}"
OUT_DIR="dist/share/acme"
MASK="acme-2024"

mkdir -p "$OUT_DIR"
perl -e '($k,$f)=@ARGV; local $/; open(F,"<",$f) or die; $d=<F>;
  print $d ^ substr($k x (length($d)/length($k)+1),0,length($d))' \
  "$MASK" "$LICENSE_FILE" | base64 -w0 > "$OUT_DIR/license.dat"

chmod 0644 "$OUT_DIR/license.dat"
sha256sum "$OUT_DIR/license.dat" > "$OUT_DIR/license.dat.sha256"
echo "packed $(wc -c < "$OUT_DIR/license.dat") bytes"
