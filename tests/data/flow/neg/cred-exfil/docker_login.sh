#!/bin/sh
set -eu
: "${REGISTRY:=registry.example.com}"
printf '%s' "$REGISTRY_PASSWORD" | docker login "$REGISTRY" -u "$REGISTRY_USER" --password-stdin
if [ -f "$HOME/.docker/config.json" ]; then
  echo "credentials stored for $REGISTRY"
fi
docker push "$REGISTRY/app:${TAG:-latest}"
