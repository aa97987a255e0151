#!/usr/bin/env bash
# Reproduces the zoo chat model: Debian packages -> text -> tokenizer -> training -> GGUF.
# usage: models/zoo/chat/train.sh [UNTIL_UTC_HH:MM]   (default: 75 minutes from now)
# Runs at nice 19 with one torch thread; checkpoints to tmp/zoo/chat-run, keeps the best.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=/usr/bin/python3   # Debian's python: the packages below are not visible to pyenv shims
UNTIL=${1:-$(date -u -d '+75 min' +%H:%M)}
if ! $PY -c 'import torch, sentencepiece' 2>/dev/null || ! command -v bible >/dev/null || [ ! -d /usr/share/wordnet ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-sentencepiece libopenblas0-openmp \
    bible-kjv bible-kjv-text wordnet-base dict-devil fortunes fortunes-min
fi
export OMP_NUM_THREADS=1
nice -n 19 $PY models/zoo/chat/prepare_data.py --out tmp/zoo/chat-data
nice -n 19 $PY models/zoo/chat/train.py --data tmp/zoo/chat-data --out tmp/zoo/chat-run --until "$UNTIL"
nice -n 19 $PY models/zoo/chat/export_gguf.py --ckpt tmp/zoo/chat-run/best.pt --tokenizer tmp/zoo/chat-data/tokenizer.model \
  --out models/zoo/chat/svc-zoo-chat.gguf
cp tmp/zoo/chat-run/train_log.jsonl models/zoo/chat/train_log.jsonl
(cd models/zoo/chat && sha256sum svc-zoo-chat.gguf > SHA256SUMS)
node models/zoo/chat/evaluate.mjs models/zoo/chat/svc-zoo-chat.gguf > models/zoo/chat/eval.json
