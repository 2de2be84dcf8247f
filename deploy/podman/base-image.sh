#!/usr/bin/env bash
# Debian bookworm with Debian's Python 3.11, as slim as the official python:3.11-slim-bookworm
# (no docs, man pages, locales or recommends), imported into podman as the image named $1.
# For hosts that reach Debian's packages but no container registry. Needs mmdebstrap.
set -euo pipefail
name="${1:-localhost/novo-base:bookworm}"
if ! command -v mmdebstrap >/dev/null; then
  echo "base-image.sh: making $name from Debian's packages needs mmdebstrap (apt-get install" \
    "mmdebstrap); where a registry is reachable, build on the official image instead:" \
    "make image BASE_IMAGE=docker.io/library/python:3.11-slim-bookworm" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mmdebstrap --quiet --format=tar --variant=minbase \
  --include=python3,python3-venv,ca-certificates \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  bookworm "$tmp/base.tar"
${PODMAN:-podman --runtime runc} import "$tmp/base.tar" "$name" >/dev/null
echo "$name: made from Debian bookworm's packages"
