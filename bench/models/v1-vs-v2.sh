#!/usr/bin/env bash
# Chat model v1 against v2 (issue 17), directly and through the HTTP API, in one run:
#   bench/models/v1-vs-v2.sh
# v1's GGUF comes from git history (it no longer serves); a platform is started on port 3990 with
# the catalog plus a `svc-zoo-chat-v1` entry and databases of its own (svc_bench_*), and stopped after.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=tmp/bench-models
mkdir -p $OUT
git show 23a8dbe:models/zoo/chat/svc-zoo-chat.gguf > $OUT/svc-zoo-chat-v1.gguf
node -e '
const fs = require("fs"); const { parse, stringify } = require("yaml");
const doc = parse(fs.readFileSync("config/models.yaml", "utf8"));
const v2 = doc.models.find((m) => m.id === "svc-zoo-chat");
doc.models.push({ ...v2, id: "svc-zoo-chat-v1", name: "SVC Zoo Chat v1 (bench only)", traits: [], availableContextTokens: 256,
  engine: { ...v2.engine, file: "../tmp/bench-models/svc-zoo-chat-v1.gguf", contextSize: 256 } });
fs.writeFileSync(process.argv[1], stringify(doc));' "$OUT/models.yaml"
node tools/build.js --quiet
KEY="svc_bench_$(head -c 18 /dev/urandom | base64 | tr -dc A-Za-z0-9)"
PG=postgresql://postgres@127.0.0.1:5432
env PORT=3990 HOST=127.0.0.1 SVC_ADMIN_KEY="$KEY" SVC_CATALOG_PATH="$OUT/models.yaml" SVC_SKIP_BUILD=1 RATE_LIMITS_ENABLED=false \
  KEYS_DATABASE_URL=$PG/svc_bench_keys BILLING_DATABASE_URL=$PG/svc_bench_billing CHAT_DATABASE_URL=$PG/svc_bench_chat \
  WALLET_DATABASE_URL=$PG/svc_bench_wallet REDIS_KEY_PREFIX=svc_bench: LOG_LEVEL=warn \
  setsid node tools/start/start.js > $OUT/platform.log 2>&1 &
PLATFORM=$!
trap 'kill -TERM -- -$PLATFORM 2>/dev/null || true' EXIT
for _ in $(seq 1 180); do grep -q 'platform ready' $OUT/platform.log && break; sleep 1; done
grep -q 'platform ready' $OUT/platform.log || { tail -40 $OUT/platform.log; exit 1; }
node -r ./tools/register-paths.js bench/models/run.mjs --only chat --url http://127.0.0.1:3990 --key "$KEY" \
  --requests 48 --api-models svc-zoo-chat,svc-zoo-chat-v1 --chat-gguf $OUT/svc-zoo-chat-v1.gguf --chat-gguf-context 256
