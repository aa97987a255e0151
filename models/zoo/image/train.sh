#!/usr/bin/env bash
# Reproduces the zoo image model: render the data set -> train -> ONNX + sidecar -> evaluate.
# usage: models/zoo/image/train.sh [UNTIL_UTC_HH:MM]   (default: 75 minutes from now)
# RESUME=tmp/zoo/image-run/ema.pt continues a run from its last checkpoint (LR=... sets the peak rate);
# THREADS=2 trains on both cores (for an otherwise idle machine; default 1).
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=/usr/bin/python3
UNTIL=${1:-$(date -u -d '+75 min' +%H:%M)}
if ! $PY -c 'import torch, PIL, numpy' 2>/dev/null || [ ! -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch libopenblas0-openmp python3-pil python3-numpy fonts-noto-color-emoji
fi
export OMP_NUM_THREADS=${THREADS:-1}
[ -f tmp/zoo/image-data/images.npy ] || nice -n 19 $PY models/zoo/image/prepare_data.py --out tmp/zoo/image-data
nice -n 19 $PY models/zoo/image/train.py --data tmp/zoo/image-data --out tmp/zoo/image-run --until "$UNTIL" --xattn --min-snr 5 --threads "${THREADS:-1}" ${RESUME:+--resume "$RESUME"} ${LR:+--lr "$LR"}
nice -n 19 $PY models/zoo/image/export_onnx.py --ckpt tmp/zoo/image-run/ema.pt --out models/zoo/image/svc-zoo-image.onnx
nice -n 19 $PY models/zoo/image/evaluate.py --ckpt tmp/zoo/image-run/ema.pt --out models/zoo/image/eval
(cd models/zoo/image && sha256sum svc-zoo-image.onnx svc-zoo-image.json > SHA256SUMS)
nice -n 19 $PY models/zoo/image/save_resume.py --ckpt tmp/zoo/image-run/ema.pt --out models/zoo/image/resume
