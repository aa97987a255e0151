#!/usr/bin/env bash
# After the GPU run, here on the CPU: the files that came back -> export.pt -> GGUF -> v2's held-out
# evaluation (perplexity per kind of document; relevance, strictShare, JSON and long conversation
# through the serving engine) -> comparison with v2's committed measures, and the verdict.
# usage: models/zoo/chat/v3/after-gpu.sh <folder the run's files came back to> [eval folder, default models/zoo/chat/v3/eval]
# env: DATA (tmp/zoo/chat-v2-data), RUN (tmp/zoo/chat-v3-run: the state, export.pt and GGUF land there),
#      FTYPE (q8_0; f16 doubles the GGUF), THREADS (2), and smaller checks for the smoke test:
#      QUESTIONS (200), JSON_TRIES (100), PPL_TOKENS (40000 per kind). The perplexity is gpu.sh's, measured on
#      the card, when it came back; PPL=here measures it on this CPU (most of an hour for the 28 M model).
# Needs `npm run build` (evaluate.mjs loads the engine from dist/). Everything runs at nice 19.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
PY=/usr/bin/python3 # Debian's python: torch and sentencepiece are not visible to pyenv shims
V3=models/zoo/chat/v3
IN=$(realpath "$1")
EVAL=${2:-$V3/eval}
DATA=${DATA:-tmp/zoo/chat-v2-data}
RUN=${RUN:-tmp/zoo/chat-v3-run}
FTYPE=${FTYPE:-q8_0}
export OMP_NUM_THREADS=${THREADS:-2}
mkdir -p "$RUN/state" "$EVAL"
cp "$IN"/state.pt "$IN"/weights-*.pt "$RUN/state/"
for f in train_log.jsonl train.out; do [ -f "$IN/$f" ] && cp "$IN/$f" "$RUN/"; done
nice -n 19 $PY $V3/state.py "$RUN/state" --export "$RUN/export.pt" --tokenizer "$DATA/tokenizer.model" $([ "$FTYPE" = q8_0 ] && echo --q8)
nice -n 19 $PY models/zoo/chat/export_gguf.py --ckpt "$RUN/export.pt" --tokenizer "$DATA/tokenizer.model" --out "$RUN/svc-zoo-chat-v3.gguf" --ftype "$FTYPE" \
  --description "A llama-architecture chat model (v3, 2,048-token context) trained from scratch on English from Debian: package descriptions, manual pages, WordNet, GCIDE, FOLDOC, the Jargon File, the Python documentation, the Debian Reference." \
  --license "MIT (weights); training text: see models/zoo/chat/MODEL_CARD.md (Debian package descriptions and manual pages under their packages' licences, WordNet 3.0 licence, GCIDE GPL-2+, FOLDOC GFDL, Jargon File public domain, Python documentation PSF License 2, Debian Reference GPL-2+)"
# gpu.sh measured it on the card (same code, same Q8_0-rounded weights) unless that failed; here it takes most of an hour
if [ -s "$IN/perplexity.json" ] && [ "${PPL:-}" != here ] && [ "$FTYPE" = q8_0 ]; then
  cp "$IN/perplexity.json" "$EVAL/perplexity.json"
else
  nice -n 19 $PY models/zoo/chat/v2/eval_perplexity.py --ckpt "$RUN/export.pt" --data "$DATA" --max-tokens-per-kind "${PPL_TOKENS:-40000}" > "$EVAL/perplexity.json"
fi
nice -n 19 node -r ./tools/register-paths.js models/zoo/chat/v2/evaluate.mjs --model "$RUN/svc-zoo-chat-v3.gguf" --questions "$DATA/heldout_questions.jsonl" \
  --n "${QUESTIONS:-200}" --json-tries "${JSON_TRIES:-100}" --general models/zoo/chat/v2/eval/general-questions.jsonl > "$EVAL/answers-v3.json"
[ -f "$RUN/train_log.jsonl" ] && cp "$RUN/train_log.jsonl" "$EVAL/train_log.jsonl"
ls -l "$RUN/svc-zoo-chat-v3.gguf"
$PY $V3/compare.py --v3 "$EVAL"
