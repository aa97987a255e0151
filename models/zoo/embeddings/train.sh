#!/usr/bin/env bash
# Reproduces the zoo embedding model (about two minutes on one core) and scores the similarity set.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=/usr/bin/python3
if ! $PY -c 'import torch, numpy' 2>/dev/null || ! command -v bible >/dev/null || [ ! -d /usr/share/wordnet ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-numpy libopenblas0-openmp \
    bible-kjv bible-kjv-text wordnet-base dict-devil fortunes fortunes-min
fi
export OMP_NUM_THREADS=1
nice -n 19 $PY models/zoo/embeddings/train.py --out models/zoo/embeddings/svc-zoo-embed.svec
nice -n 19 $PY models/zoo/embeddings/evaluate.py models/zoo/embeddings/svc-zoo-embed.svec > models/zoo/embeddings/eval.json
(cd models/zoo/embeddings && sha256sum svc-zoo-embed.svec > SHA256SUMS)
