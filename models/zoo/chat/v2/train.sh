#!/usr/bin/env bash
# Chat model v2: Debian text -> tokenizer -> resumable training -> decayed export -> GGUF -> evaluation.
# usage: models/zoo/chat/v2/train.sh [UNTIL_UTC_HH:MM]   (default: 60 minutes from now)
#   Continues from the committed state (resume/state.pt) when there is one; training time
#   accumulates across sessions. THREADS (default 2) sets torch threads; runs at nice 19, so it
#   only takes idle CPU. COOLDOWN (default 150) is the number of decay steps for the export;
#   ANNEAL (default 0) the share of them drawn from the training conversations (session 3: 0.5 did no better).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
PY=/usr/bin/python3   # Debian's python: the packages below are not visible to pyenv shims
V2=models/zoo/chat/v2
DATA=tmp/zoo/chat-v2-data
RUN=tmp/zoo/chat-v2-run
UNTIL=${1:-$(date -u -d '+60 min' +%H:%M)}
if ! $PY -c 'import torch, sentencepiece, numpy' 2>/dev/null || [ ! -d /usr/share/wordnet ] || [ ! -f /usr/share/dictd/gcide.index ] \
  || [ ! -d /usr/share/doc/python3.11/html/_sources ] || [ ! -d /usr/share/debian-reference ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch python3-sentencepiece python3-numpy libopenblas0-openmp \
    wordnet-base dict-gcide dict-foldoc dict-jargon man-db manpages python3.11-doc debian-reference-en
fi
if ! ls /var/lib/apt/lists/*_main_i18n_Translation-en* >/dev/null 2>&1 && ! ls tmp/zoo/chat-v2-src/*Translation-en* >/dev/null 2>&1; then
  apt-get update -qq -o Acquire::Languages=en   # the long package descriptions
  mkdir -p tmp/zoo/chat-v2-src && cp /var/lib/apt/lists/*_main_i18n_Translation-en* tmp/zoo/chat-v2-src/
fi
export OMP_NUM_THREADS=${THREADS:-2}
# The committed state's weights belong to its tokenizer (resume/tokenizer.model): the data is
# tokenised with that one, never a retrained one (the apt lists drift between machines and days).
TOKENIZER=""
[ -f $V2/resume/tokenizer.model ] && TOKENIZER=$V2/resume/tokenizer.model
[ -f $DATA/train.bin ] || nice -n 19 $PY $V2/prepare_data.py --out $DATA ${TOKENIZER:+--tokenizer $TOKENIZER}
RESUME=""
if [ -f $RUN/state.pt ]; then RESUME=$RUN/state.pt; elif [ -n "$TOKENIZER" ] && [ -f $V2/resume/state.pt ]; then RESUME=$V2/resume/state.pt; fi
nice -n 19 $PY $V2/train.py --data $DATA --out $RUN --until "$UNTIL" ${RESUME:+--resume $RESUME}
nice -n 19 $PY $V2/save_resume.py --state $RUN/state.pt --tokenizer $DATA/tokenizer.model --out $V2/resume
# the committed log keeps every session: this run's records are added by step, never replacing earlier ones
$PY -c 'import json, sys
rows = {}
for path in sys.argv[1:]:
    for line in open(path):
        if line.strip():
            r = json.loads(line); rows[(r["step"], r.get("phase", "stable"))] = line.strip()
open(sys.argv[1], "w").write("".join(rows[k] + "\n" for k in sorted(rows)))' $V2/train_log.jsonl $RUN/train_log.jsonl
# with ANNEAL > 0 the decay draws that share of its sequences from the training conversations (prepare_anneal.py)
[ -f $DATA/anneal.bin ] || nice -n 19 $PY $V2/prepare_anneal.py --data $DATA
nice -n 19 $PY $V2/train.py --data $DATA --out $RUN --resume $RUN/state.pt --cooldown-steps "${COOLDOWN:-150}" --anneal-share "${ANNEAL:-0}"
nice -n 19 $PY models/zoo/chat/export_gguf.py --ckpt $RUN/export.pt --tokenizer $DATA/tokenizer.model --out $RUN/svc-zoo-chat-v2.gguf \
  --description "A llama-architecture chat model (v2, 2,048-token context) trained from scratch on English from Debian: package descriptions, manual pages, WordNet, GCIDE, FOLDOC, the Jargon File, the Python documentation, the Debian Reference." \
  --license "MIT (weights); training text: see models/zoo/chat/MODEL_CARD.md (Debian package descriptions and manual pages under their packages' licences, WordNet 3.0 licence, GCIDE GPL-2+, FOLDOC GFDL, Jargon File public domain, Python documentation PSF License 2, Debian Reference GPL-2+)"
# a session's export is a candidate: its measures go to eval/candidate/, next to the serving export's
# (eval/perplexity.json, eval/answers-v2.json), which change only when a candidate is promoted
mkdir -p $V2/eval/candidate
nice -n 19 $PY $V2/eval_perplexity.py --ckpt $RUN/export.pt --data $DATA > $V2/eval/candidate/perplexity.json
node -r ./tools/register-paths.js $V2/evaluate.mjs --model $RUN/svc-zoo-chat-v2.gguf --questions $DATA/heldout_questions.jsonl --general $V2/eval/general-questions.jsonl > $V2/eval/candidate/answers-v2.json
