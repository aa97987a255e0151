#!/usr/bin/env bash
# Smoke test of the Compose stack, as an operator runs it: build the images, `up -d`, wait until
# every container is healthy, then through the gateway's one port (SVC_HTTP_PORT, default 3000):
# chat (plain and streamed), embeddings, an image, speech then its transcription, a key with a
# consumption limit, a credit, usage history; then the chat container and NATS restarted under
# traffic, every served request charged exactly once and `billing reconcile` clean
# (infra/docker/smoke-checks.mjs). Ends with `down -v`, pass or fail.
#
#   infra/docker/smoke.sh
#
# Where no image registry answers (these machines, air-gapped sites), the base images are built
# locally first (infra/docker/local-images.sh). Prints the build times, image sizes, idle memory
# per container and the time from `up` to healthy; SMOKE_RESULTS=<file> also writes them as JSON.
# Talks only to containers on the network Compose creates and to the published port on loopback.
set -euo pipefail
cd "$(dirname "$0")/../.."

export COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-svc-smoke}
export SVC_HTTP_PORT=${SVC_HTTP_PORT:-3000}
export SVC_IMAGE_TAG=${SVC_IMAGE_TAG:-local}
export SVC_ADMIN_KEY=${SVC_ADMIN_KEY:-svc_smoke_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; else COMPOSE=docker-compose; fi
APPS=(migrate gateway chat media audio billing keys wallet)
say() { printf '[smoke] %s\n' "$*"; }
started=$SECONDS

# 1. Base images: pulled where a registry answers, else built from Debian and npm.
missing=0
for image in node:20-slim postgres:15 redis:7 nats:2-alpine; do
  docker image inspect "$image" >/dev/null 2>&1 || timeout 60 docker pull -q "$image" >/dev/null 2>&1 || missing=1
done
if [ "$missing" = 1 ]; then
  say "no image registry: building local stand-ins"
  infra/docker/local-images.sh
fi

# 2. The eight app images (the shared stages build once). --network host: a build step reaches the
# npm and Debian registries the way this machine does.
build_started=$SECONDS
declare -A build_seconds
for app in "${APPS[@]}"; do
  t=$SECONDS
  log=$(mktemp)
  docker build --network host -f infra/docker/Dockerfile --build-arg "APP=$app" -t "svc/$app:$SVC_IMAGE_TAG" . >"$log" 2>&1 || {
    tail -40 "$log" >&2
    exit 1
  }
  rm -f "$log"
  build_seconds[$app]=$((SECONDS - t))
  say "built svc/$app:$SVC_IMAGE_TAG in ${build_seconds[$app]} s"
done
build_total=$((SECONDS - build_started))

cleanup() {
  local status=$?
  if [ "$status" != 0 ]; then
    say "failed; the last log lines of each container:"
    $COMPOSE logs --tail 30 --no-color 2>/dev/null | tail -200 || true
  fi
  $COMPOSE down -v --remove-orphans >/dev/null 2>&1 || true
  say "down -v: done ($((SECONDS - started)) s in all)"
  exit "$status"
}
trap cleanup EXIT

# 3. Up, and healthy.
up_started=$SECONDS
$COMPOSE up -d --no-build
say "waiting for every container to be healthy"
for _ in $(seq 1 180); do
  unhealthy=0
  for id in $($COMPOSE ps -q); do
    state=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.State.ExitCode}}' "$id")
    case "$state" in
      "running healthy "* | "exited none 0") ;;
      "exited "*) say "a container stopped: $(docker inspect -f '{{.Name}}' "$id") $state"; exit 1 ;;
      *) unhealthy=1 ;;
    esac
  done
  [ "$unhealthy" = 0 ] && break
  sleep 2
done
[ "$unhealthy" = 0 ] || { say "not healthy after 6 minutes"; $COMPOSE ps; exit 1; }
up_seconds=$((SECONDS - up_started))
say "healthy ${up_seconds} s after up"
sleep 10 # idle memory after start-up
stats=$(docker stats --no-stream --format '{{.Name}} {{.MemUsage}}' $($COMPOSE ps -q) | sed "s/^${COMPOSE_PROJECT_NAME}[_-]//")

# 4. Through the port, as a user.
SMOKE_URL="http://127.0.0.1:${SVC_HTTP_PORT}" SMOKE_ADMIN_KEY="$SVC_ADMIN_KEY" SMOKE_COMPOSE="$COMPOSE" \
  node infra/docker/smoke-checks.mjs | tee /tmp/svc-smoke-checks.$$
checks=$(tail -1 /tmp/svc-smoke-checks.$$)
rm -f /tmp/svc-smoke-checks.$$

# 5. The costs (bench/RESULTS.md, "The Compose stack").
say "image sizes:"
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep "^svc/.*:$SVC_IMAGE_TAG " | sed 's/^/  /'
say "on disk together (shared layers counted once):"
images=()
for app in "${APPS[@]}"; do images+=("svc/$app:$SVC_IMAGE_TAG"); done
together=$(docker image inspect "${images[@]}" --format '{{range .RootFS.Layers}}{{println .}}{{end}}' | sort -u | grep -c . || true)
docker system df -v 2>/dev/null | awk -v tag="$SVC_IMAGE_TAG" '$1 ~ /^svc\// && $2 == tag {print "  " $1 ":" $2 " shared " $(NF-2) " unique " $(NF-1)}'
say "idle memory per container:"
printf '%s\n' "$stats" | sed 's/^/  /'
say "builds: ${build_total} s for all eight; up to healthy: ${up_seconds} s; ${together} distinct layers"
if [ -n "${SMOKE_RESULTS:-}" ]; then
  node -e '
    const [file, checks, buildTotal, up, stats, ...builds] = process.argv.slice(1);
    const out = { checks: JSON.parse(checks), buildSeconds: Number(buildTotal), upToHealthySeconds: Number(up),
      buildSecondsPerApp: Object.fromEntries(builds.map((b) => b.split("="))), idleMemory: stats.split("\n") };
    require("node:fs").writeFileSync(file, JSON.stringify(out, null, 2));' \
    "$SMOKE_RESULTS" "$checks" "$build_total" "$up_seconds" "$stats" $(for a in "${APPS[@]}"; do echo "$a=${build_seconds[$a]}"; done)
fi
say "passed"
