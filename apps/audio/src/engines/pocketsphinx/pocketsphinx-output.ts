import { TranscriptSegment, TranscriptWord } from '@svc/contracts';

/** Fillers PocketSphinx emits between words: silence, breath, noise, utterance markers. */
const FILLER = /^(<s>|<\/s>|<sil>|\[[A-Z_]+\]|\+\+[A-Z_]+\+\+)$/;

/**
 * Parses `pocketsphinx_continuous -time yes` output: per utterance, a hypothesis line, then one
 * line per word (`word start end probability`, alternate pronunciations as `word(2)`).
 */
export function parsePocketsphinx(stdout: string): { words: TranscriptWord[]; segments: TranscriptSegment[] } {
  const words: TranscriptWord[] = [];
  const segments: TranscriptSegment[] = [];
  let current: TranscriptWord[] = [];
  const flush = () => {
    if (current.length) segments.push({ text: current.map((w) => w.word).join(' '), start: current[0].start, end: current[current.length - 1].end });
    current = [];
  };
  for (const line of stdout.split('\n')) {
    const m = /^(\S+)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s*$/.exec(line.trim());
    if (!m) continue;
    const token = m[1];
    if (token === '<s>') flush();
    if (FILLER.test(token)) {
      if (token === '</s>') flush();
      continue;
    }
    const word = { word: token.replace(/\(\d+\)$/, ''), start: Number(m[2]), end: Number(m[3]) };
    words.push(word);
    current.push(word);
  }
  flush();
  return { words, segments };
}
