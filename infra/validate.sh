#!/usr/bin/env bash
# Validates the deployment files that cannot run on a machine without a container engine or a
# cluster: docker-compose.yml with Compose's own parser (no engine needed), the Dockerfile's
# inputs, and the Kubernetes manifests (kustomize render + infra/k8s/validate.js, which must also
# reject a deliberately broken copy). Needs node_modules (the `yaml` package).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '[validate] %s\n' "$*"; }

# Compose: the v2 plugin when present, else Compose v1 (Debian's docker-compose package).
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
else
  echo "[validate] neither 'docker compose' nor 'docker-compose' is installed (apt-get install -y docker-compose)" >&2
  exit 1
fi
step "docker-compose.yml with: ${compose[*]} config"
# Placeholders only: the check must not depend on a developer's real secrets in the environment.
SVC_ADMIN_KEY=validate-only-placeholder-key "${compose[@]}" -f docker-compose.yml config -q

step "infra/docker: Dockerfile inputs and scripts"
# Every local COPY source must exist and survive .dockerignore (a coarse check on its top-level entries).
grep -E '^COPY ' infra/docker/Dockerfile | grep -v -- '--from=' | while read -r _ rest; do
  set -- $rest
  while [ $# -gt 1 ]; do
    [ -e "$1" ] || { echo "[validate] Dockerfile copies $1, which does not exist" >&2; exit 1; }
    if grep -qxF "$1" .dockerignore || grep -qxF "${1%%/*}" .dockerignore; then
      echo "[validate] Dockerfile copies $1, which .dockerignore excludes" >&2
      exit 1
    fi
    shift
  done
done
sh -n infra/docker/run-app.sh
node --check infra/docker/healthcheck.js

if command -v kubectl >/dev/null 2>&1; then
  step "infra/k8s: kubectl kustomize ($(kubectl version --client 2>/dev/null | head -1))"
  kubectl kustomize infra/k8s >/dev/null
else
  step "infra/k8s: kubectl not installed, kustomize render skipped (apt-get install -y kubernetes-client)"
fi

step "infra/k8s: node infra/k8s/validate.js"
node infra/k8s/validate.js infra/k8s

# The validator must be able to fail: a copy with a dangling reference has to be rejected.
broken=$(mktemp -d)
trap 'rm -rf "$broken"' EXIT
cp -r infra/k8s/. "$broken/"
sed -i 's/claimName: svc-models/claimName: no-such-claim/' "$broken/chat/deployment.yaml"
if node infra/k8s/validate.js "$broken" >/dev/null 2>&1; then
  echo "[validate] infra/k8s/validate.js accepted a manifest with a dangling PVC reference" >&2
  exit 1
fi
step "all deployment files valid"
