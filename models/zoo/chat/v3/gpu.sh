#!/usr/bin/env bash
# On the GPU machine (the `run` tool, see README.md): trains v3 from the packed data and leaves
# its state (fp16 weight shards + state.pt, each under 16 MiB), log and held-out perplexity in $OUT:
# 8 files, the most that come back.
# usage: OUT=<folder> models/zoo/chat/v3/gpu.sh [train.py options]
# env: WALL (490: seconds the training script may take in all; the perplexity after it at most PPL_S=45 more),
#      PPL_TOKENS (40000 per kind, as v2's), PACK (tmp/zoo/chat-v3-pack),
#      PY (python3: the image's, with torch 2.11), COMPILE (1; 0 for eager)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
: "${OUT:?OUT must name the output folder}"
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
$PY -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
set -o pipefail
PACK=${PACK:-tmp/zoo/chat-v3-pack}
$PY models/zoo/chat/v3/train.py --data "$PACK" --out "$OUT" --wall-s "${WALL:-490}" "$@" 2>&1 | tee "$OUT/train.out"
# v2's held-out perplexity on the Q8_0-rounded weights, on the card (seconds); after-gpu.sh computes it here if this fails
if [ -f "$PACK/valid.jsonl" ]; then
  $PY models/zoo/chat/v3/state.py "$OUT" --export /tmp/v3-export.pt --tokenizer "$PACK/tokenizer.model" --q8 \
    && timeout "${PPL_S:-45}" $PY models/zoo/chat/v3/eval_on_device.py --ckpt /tmp/v3-export.pt --data "$PACK" \
      --max-tokens-per-kind "${PPL_TOKENS:-40000}" > "$OUT/perplexity.json" \
    || { echo "perplexity on the device failed"; rm -f "$OUT/perplexity.json"; }
fi
ls -l "$OUT"
