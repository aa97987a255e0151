#!/usr/bin/env bash
# Validates the deployment files that cannot run on a machine without a container engine or a
# cluster: docker-compose.yml with Compose's own parser (no engine needed), the Dockerfile's
# inputs, the Kubernetes manifests (infra/k8s/validate.js on the base, whose catalog must be
# config/models.yaml's generated copy; every kustomization rendered
# and schema-checked by infra/k8s/validate-rendered.mjs, with the NATS cluster, replica counts and
# PostgreSQL the topology needs; both must reject broken copies), and the
# monitoring rules and dashboard (promtool, infra/monitoring/check-metrics.js). Needs node_modules (the `yaml` package).
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
step "docker-compose.deps.yml (PostgreSQL, Redis and NATS only) with: ${compose[*]} config"
"${compose[@]}" -f docker-compose.deps.yml config -q

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
for script in infra/docker/run-app.sh infra/docker/local/*.sh; do sh -n "$script"; done
bash -n infra/docker/local-images.sh
bash -n infra/docker/smoke.sh
node --check infra/docker/healthcheck.js
node --check infra/docker/app-files.js
node --check infra/docker/smoke-checks.mjs
# What each app image would carry, from this checkout's dist/ when it is built (a missing package fails).
if [ -d dist/apps ]; then
  for app in gateway chat media audio billing keys wallet migrate; do
    out=$(mktemp -d)
    node infra/docker/app-files.js "$app" "$out" >/dev/null
    rm -rf "$out"
  done
fi

step "infra/k8s: node infra/k8s/validate.js (the base's files, references and security settings; the catalog is config/models.yaml's copy)"
node infra/k8s/validate.js infra/k8s/base

if command -v kubectl >/dev/null 2>&1; then
  # Renders base, overlays/dev and overlays/prod and validates every object against the Kubernetes
  # JSON schemas (npm kubernetes-models) and the platform's rules (probes, resources, PDBs, HPAs,
  # NetworkPolicies, Secrets, migration Job; the NATS cluster of three, 2+ replicas in prod, the
  # PostgreSQL cluster in data/).
  step "infra/k8s: kubectl kustomize + node infra/k8s/validate-rendered.mjs ($(kubectl version --client 2>/dev/null | head -1))"
  node infra/k8s/validate-rendered.mjs
else
  echo "[validate] kubectl is needed to render the kustomizations (apt-get install -y kubernetes-client)" >&2
  exit 1
fi

# The validators must be able to fail: a copy with a dangling reference, one without the
# services' PodDisruptionBudgets, and copies that break the clustered topology have to be rejected.
broken=$(mktemp -d)
trap 'rm -rf "$broken"' EXIT
cp -r infra/k8s/. "$broken/"
sed -i 's/claimName: svc-models/claimName: no-such-claim/' "$broken/base/chat/deployment.yaml"
if node infra/k8s/validate.js "$broken/base" >/dev/null 2>&1; then
  echo "[validate] infra/k8s/validate.js accepted a manifest with a dangling PVC reference" >&2
  exit 1
fi
# Nor a catalog that drifted from config/models.yaml (infra/k8s/catalog-copy.js generates it).
drifted=$(mktemp -d -p "$broken")
cp -r infra/k8s/. "$drifted/"
printf '# edited here, not in config/models.yaml\n' >>"$drifted/base/config/models.yaml"
if node infra/k8s/validate.js "$drifted/base" >/dev/null 2>&1; then
  echo "[validate] infra/k8s/validate.js accepted a catalog that differs from config/models.yaml" >&2
  exit 1
fi
sed -i '/services\/pdb.yaml/d' "$broken/base/kustomization.yaml"
if node infra/k8s/validate-rendered.mjs "$broken/overlays/prod" >/dev/null 2>&1; then
  echo "[validate] infra/k8s/validate-rendered.mjs accepted Deployments without PodDisruptionBudgets" >&2
  exit 1
fi
# Nor a copy that leaves the clustered topology (infra/k8s/README.md, "NATS" and "PostgreSQL").
reject_rendered() { # <what> <file under infra/k8s> <sed expression>
  local copy
  copy=$(mktemp -d -p "$broken")
  cp -r infra/k8s/. "$copy/"
  sed -i "$3" "$copy/$2"
  if cmp -s "infra/k8s/$2" "$copy/$2"; then
    echo "[validate] the broken copy for '$1' is not broken: '$3' changed nothing in $2" >&2
    exit 1
  fi
  if node infra/k8s/validate-rendered.mjs "$copy/overlays/prod" >/dev/null 2>&1; then
    echo "[validate] infra/k8s/validate-rendered.mjs accepted $1" >&2
    exit 1
  fi
}
reject_rendered 'a NATS cluster of one server' base/nats/statefulset.yaml 's/^  replicas: 3$/  replicas: 1/'
reject_rendered 'a NATS_URL naming one server' base/config/env-configmap.yaml 's|,nats://nats-1.nats:4222,nats://nats-2.nats:4222||'
reject_rendered 'NATS pods closed to each other on the route port' base/network/nats.yaml 's/port: 6222/port: 6333/'
reject_rendered 'one keys replica in the prod overlay' base/services/keys.yaml 's/^  replicas: 2$/  replicas: 1/'
reject_rendered 'PostgreSQL commits that wait for no standby' data/cnpg-cluster.yaml 's/number: 1$/number: 0/'

# Monitoring: Prometheus's own checker and rule unit tests (Debian's prometheus package has
# promtool; .ci/run installs it), then the metric names against what the platform exports.
if command -v promtool >/dev/null 2>&1; then
  step "infra/monitoring: promtool check rules, promtool test rules"
  promtool check rules infra/monitoring/prometheus/alerts.yml
  (cd infra/monitoring/prometheus && promtool test rules alerts.test.yml)
else
  step "infra/monitoring: promtool not installed, rule checks skipped (apt-get install -y prometheus)"
fi
step "infra/monitoring: every metric a rule or panel reads is exported (node infra/monitoring/check-metrics.js)"
node infra/monitoring/check-metrics.js
mkdir -p "$broken/monitoring"
cp -r infra/monitoring/. "$broken/monitoring/"
sed -i 's/svc_engine_queue_depth/svc_engine_queue_dept/' "$broken/monitoring/grafana/svc-platform.json"
if node infra/monitoring/check-metrics.js "$broken/monitoring" >/dev/null 2>&1; then
  echo "[validate] infra/monitoring/check-metrics.js accepted a panel reading a metric nobody exports" >&2
  exit 1
fi
step "all deployment files valid"
