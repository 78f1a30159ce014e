#!/bin/sh
# Paste the output of this script into your bug report.
echo "host:    $(hostname)"
echo "user:    $(whoami)"
echo "kernel:  $(uname -srm)"
echo "shell:   $SHELL"
echo "git:     $(git --version 2>/dev/null || echo none)"
echo "tool:    $(./mytool --version 2>/dev/null || echo 'not built')"
