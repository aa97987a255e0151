#!/usr/bin/env bash
# The GPU path at a tiny size on the CPU, in about a minute: pack 300,000 tokens, gpu.sh trains a
# 0.6 M-parameter model 6 steps, gpu.sh resumes it 3 steps and measures perplexity (1,500 tokens a
# kind; on the CPU here), after-gpu.sh exports the Q8_0 GGUF, asks the serving engine 6 questions and
# 4 JSON tries, and compares.
# Everything under tmp/zoo/chat-v3-tiny; nice 19, 2 threads. Output recorded in smoke-test.out.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
T=tmp/zoo/chat-v3-tiny
PY="nice -n 19 /usr/bin/python3"
export OMP_NUM_THREADS=2
rm -rf $T/out $T/out2 $T/run $T/eval
mkdir -p $T/out $T/out2
[ -f $T/pack/train.bin.xz ] || $PY models/zoo/chat/v3/pack_data.py --max-tokens 300000 --out $T/pack
echo "== gpu.sh --tiny: 6 steps"
OUT=$T/out PY="$PY" PACK=$T/pack models/zoo/chat/v3/gpu.sh --tiny --seq 128 --micro 2 --accum 2 --max-steps 6 --warmup 2 --eval-s 1000
echo "== gpu.sh --resume: 3 more steps"
OUT=$T/out2 PY="$PY" PACK=$T/pack PPL_TOKENS=1500 PPL_S=300 models/zoo/chat/v3/gpu.sh --resume $T/out --seq 128 --micro 2 --accum 2 --max-steps 3 --rewarmup 2 --eval-s 1000
echo "== after-gpu.sh"
RUN=$T/run QUESTIONS=6 JSON_TRIES=4 models/zoo/chat/v3/after-gpu.sh $T/out2 $T/eval
echo "== a sample answer"
/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["relevanceSamples"][0]["name"], repr(r["relevanceSamples"][0]["answer"][:80]), "tokens/s", r["tokensPerSecond"])' $T/eval/answers-v3.json
