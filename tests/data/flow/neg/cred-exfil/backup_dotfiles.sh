#!/bin/bash
set -euo pipefail
DEST="${BACKUP_DIR:-$HOME/backups}"
mkdir -p "$DEST"
STAMP=$(date +%Y%m%d)
tar -czf "$DEST/dotfiles-$STAMP.tgz" -C "$HOME" .bashrc .gitconfig .ssh/config 2>/dev/null || true
chmod 600 "$DEST/dotfiles-$STAMP.tgz"
ls -l "$DEST"
