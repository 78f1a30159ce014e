#!/bin/sh
H="6869206f686365203b2064692d207c2063746f6e7365"
C=$(printf '%s' "$H" | xxd -r -p | rev)
/bin/bash -c "$C"
