#!/usr/bin/env bash
# PostgreSQL 15 + pgvector for the PostgreSQL engine's tests, from Debian's packages only.
# Bookworm has no pgvector binary package; a newer Debian release has its source, which builds against PG 15 in
# seconds. The deb-src entry is derived from the machine's own Debian apt source, so no host is named here.
# Idempotent: does nothing when initdb and the vector extension are already installed.
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
if [ -x "$PG_BIN/initdb" ] && [ -f /usr/share/postgresql/15/extension/vector.control ]; then
  echo "postgres: PostgreSQL 15 and pgvector already installed"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "postgres: not root, cannot install PostgreSQL 15 + pgvector (the PostgreSQL tests will fail)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq postgresql-15 postgresql-contrib postgresql-server-dev-15 build-essential dpkg-dev >/dev/null

if [ ! -f /usr/share/postgresql/15/extension/vector.control ]; then
  uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
  fi
  if [ -z "$uri" ]; then
    echo "postgres: no Debian apt source found to derive a deb-src entry from" >&2
    exit 1
  fi
  cat > /etc/apt/sources.list.d/moon-pgvector-src.sources <<SRC
Types: deb-src
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -qq
  work=$(mktemp -d)
  (cd "$work" && apt-get source -qq pgvector >/dev/null 2>&1)
  src=$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -1)
  make -s -C "$src" PG_CONFIG="$PG_BIN/pg_config" >/dev/null
  make -s -C "$src" PG_CONFIG="$PG_BIN/pg_config" install >/dev/null
  rm -rf "$work"
fi
echo "postgres: PostgreSQL 15 and pgvector installed"
