// Splits 16 kHz mono PCM into utterances at pauses, as pocketsphinx_continuous's voice activity
// detection does for the Debian decoder: each utterance is decoded on its own (its own segment,
// bounded memory), and silence-only stretches are skipped.

const FRAME = 160; // 10 ms at 16 kHz, PocketSphinx's frame rate
const PAUSE_FRAMES = 50; // pocketsphinx_continuous ends an utterance after 0.5 s of silence (-vad_postspeech 50)
const MAX_FRAMES = 3_000; // a 30 s utterance without such a pause is cut at its quietest 10 ms in its last third

/** Frame energies in dB (0 for digital silence). */
function frameLevels(pcm) {
  const levels = new Float64Array(Math.ceil(pcm.length / FRAME));
  for (let f = 0; f < levels.length; f++) {
    let sum = 0;
    const end = Math.min(pcm.length, (f + 1) * FRAME);
    for (let i = f * FRAME; i < end; i++) sum += pcm[i] * pcm[i];
    levels[f] = 10 * Math.log10(1 + sum / (end - f * FRAME));
  }
  return levels;
}

function percentile(values, q) {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * @param {Int16Array} pcm 16 kHz mono samples
 * @returns {Array<{ start: number, end: number }>} sample ranges holding speech, in order
 */
export function splitUtterances(pcm) {
  const levels = frameLevels(pcm);
  if (levels.length === 0) return [];
  // Speech is a quarter of the way from the noise floor to the loud frames; with no such spread
  // (all speech or all noise) every frame above a near-silent 20 dB counts.
  const floor = percentile(levels, 0.1);
  const peak = percentile(levels, 0.95);
  const threshold = peak - floor < 12 ? 20 : Math.max(20, floor + (peak - floor) / 4);
  const speech = Array.from(levels, (l) => l > threshold);
  const cuts = [0];
  let run = 0;
  for (let f = 0; f <= speech.length; f++) {
    if (f < speech.length && !speech[f]) {
      run++;
      continue;
    }
    if (run >= PAUSE_FRAMES && f - run > 0 && f < speech.length) cuts.push(f - Math.floor(run / 2));
    run = 0;
  }
  cuts.push(levels.length);
  const pieces = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    let [start, end] = [cuts[i], cuts[i + 1]];
    while (end - start > MAX_FRAMES) {
      let cut = start + MAX_FRAMES - 1;
      for (let f = start + (2 * MAX_FRAMES) / 3; f < start + MAX_FRAMES; f++) if (levels[f] < levels[cut]) cut = f;
      pieces.push([start, cut]);
      start = cut;
    }
    pieces.push([start, end]);
  }
  return pieces
    .filter(([start, end]) => speech.slice(start, end).some(Boolean))
    .map(([start, end]) => ({ start: start * FRAME, end: Math.min(pcm.length, end * FRAME) }));
}
