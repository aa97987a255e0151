import { TokenType } from './gguf-format';

/** SentencePiece's visible space: llama.cpp's SPM tokenizer turns ' ' into this before matching pieces. */
export const SPM_SPACE = '\u2581';

export interface VocabEntry {
  piece: string;
  score: number;
  type: TokenType;
}

export interface SpecialTokenIds {
  unk: number;
  bos: number;
  eos: number;
  imStart: number;
  imEnd: number;
}

export interface SpmVocab {
  entries: VocabEntry[];
  ids: SpecialTokenIds;
  learnedMerges: number;
}

const SPECIALS: Array<[keyof SpecialTokenIds, string, TokenType]> = [
  ['unk', '<unk>', TokenType.Unknown],
  ['bos', '<s>', TokenType.Control],
  ['eos', '</s>', TokenType.Control],
  ['imStart', '<|im_start|>', TokenType.Control],
  ['imEnd', '<|im_end|>', TokenType.Control],
];

/**
 * A llama-style SentencePiece vocabulary: control tokens, the 256 byte-fallback tokens, single
 * characters, then BPE merges learned from `corpus` (score = -merge rank, which is the order
 * llama.cpp's SPM tokenizer applies them in). Padded with UNUSED tokens to exactly `vocabSize`.
 */
export function buildSpmVocab(corpus: string, vocabSize: number): SpmVocab {
  const entries: VocabEntry[] = [];
  const ids = {} as SpecialTokenIds;
  for (const [key, piece, type] of SPECIALS) {
    ids[key] = entries.length;
    entries.push({ piece, score: 0, type });
  }
  for (let b = 0; b < 256; b++) {
    entries.push({ piece: `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, score: 0, type: TokenType.Byte });
  }

  const words = countWords(corpus);
  const chars = collectChars(words);
  const mergeBudget = vocabSize - entries.length - chars.length;
  if (mergeBudget < 0) throw new Error(`vocabSize ${vocabSize} is too small (need at least ${entries.length + chars.length})`);
  const merges = learnMerges(words, mergeBudget);

  merges.forEach((piece, rank) => entries.push({ piece, score: -rank, type: TokenType.Normal }));
  chars.forEach((piece, i) => entries.push({ piece, score: -(merges.length + i), type: TokenType.Normal }));
  for (let i = 0; entries.length < vocabSize; i++) entries.push({ piece: `<unused${i}>`, score: 0, type: TokenType.Unused });
  return { entries, ids, learnedMerges: merges.length };
}

/** Pre-tokenised words with their counts, spaces already turned into SPM_SPACE and kept at word starts. */
function countWords(corpus: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of corpus.split('\n')) {
    const text = line.replaceAll(' ', SPM_SPACE);
    for (const m of text.matchAll(/▁?\p{L}+(?:'\p{L}+)?|▁?\p{N}|▁?[^\p{L}\p{N}▁]+|▁+/gu)) {
      counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
    }
  }
  return counts;
}

/** Every printable ASCII character (space as SPM_SPACE) plus any other character of the corpus. */
function collectChars(words: Map<string, number>): string[] {
  const set = new Set<string>([SPM_SPACE]);
  for (let c = 33; c < 127; c++) set.add(String.fromCharCode(c));
  for (const w of words.keys()) for (const ch of w) set.add(ch);
  return [...set].sort();
}

function learnMerges(words: Map<string, number>, budget: number): string[] {
  const items = [...words.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([w, count]) => ({ symbols: [...w], count }));
  const merges: string[] = [];
  while (merges.length < budget) {
    const pairs = new Map<string, number>();
    for (const { symbols, count } of items) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = symbols[i] + '\u0000' + symbols[i + 1];
        pairs.set(key, (pairs.get(key) ?? 0) + count);
      }
    }
    let best: string | undefined;
    let bestCount = 0;
    for (const [key, count] of pairs) {
      if (count > bestCount || (count === bestCount && best !== undefined && key < best)) {
        best = key;
        bestCount = count;
      }
    }
    if (best === undefined) break;
    const [left, right] = best.split('\u0000');
    const merged = left + right;
    merges.push(merged);
    for (const item of items) item.symbols = applyMerge(item.symbols, left, right, merged);
  }
  return merges;
}

function applyMerge(symbols: string[], left: string, right: string, merged: string): string[] {
  if (symbols.length < 2) return symbols;
  const out: string[] = [];
  for (let i = 0; i < symbols.length; i++) {
    if (i + 1 < symbols.length && symbols[i] === left && symbols[i + 1] === right) {
      out.push(merged);
      i++;
    } else {
      out.push(symbols[i]);
    }
  }
  return out;
}
