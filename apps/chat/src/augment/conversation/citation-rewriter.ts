/**
 * Rewrites the citation forms models like to write, `[1]`, `[1, 2]`, `(1)`, `<sup>1</sup>` and
 * `<sup>[1]</sup>`, into the caret form `^1^` / `^1,2^` (`enable_web_citations`), or removes
 * them (`mode: 'suppress'`). Only numbers of real sources (1..sources) are touched, so `(2024)`
 * or a list's `(3)` beyond the source count stay as written.
 *
 * Streaming-safe: `push(chunk)` returns the text that is final so far and holds back a tail that
 * may be the start of a marker split across chunks (at most MAX_HELD characters); `flush()`
 * returns the rest at the end of the stream. Feeding any split of a text gives the same output.
 */
export interface CitationRewriterOptions {
  /** How many sources there are; numbers outside 1..sources are left alone. */
  sources: number;
  mode?: 'rewrite' | 'suppress';
}

const LIST = String.raw`\d{1,3}(?:\s*,\s*\d{1,3})*`;
const MARKER_SOURCE = String.raw`<sup>\s*\[?(${LIST})\]?\s*</sup>|\[(${LIST})\]|\((${LIST})\)`;
const MARKER = new RegExp(MARKER_SOURCE, 'g');
/** The start of a marker that a later chunk could complete. */
const PARTIAL_SOURCE = String.raw`\[[\d,\s]*|\([\d,\s]*|<(?:s(?:u(?:p(?:>[\s\d,[\]]*(?:<(?:\/(?:s(?:u(?:p)?)?)?)?)?)?)?)?)?`;
/**
 * A tail held back: complete markers (a next one may follow directly and merge, `[1][2]`) and/or
 * the start of one.
 */
const HOLD = new RegExp(String.raw`^(?:(?:${MARKER_SOURCE}))*(?:${PARTIAL_SOURCE})?$`);
const MAX_HELD = 40;

export class CitationRewriter {
  private held = '';
  private readonly mode: 'rewrite' | 'suppress';

  constructor(private readonly options: CitationRewriterOptions) {
    this.mode = options.mode ?? 'rewrite';
  }

  push(chunk: string): string {
    const text = this.held + chunk;
    const cut = this.holdFrom(text);
    this.held = text.slice(cut);
    return this.rewrite(text.slice(0, cut));
  }

  flush(): string {
    const rest = this.rewrite(this.held);
    this.held = '';
    return rest;
  }

  /** Rewrites a whole text at once. */
  static rewriteAll(text: string, options: CitationRewriterOptions): string {
    const r = new CitationRewriter(options);
    return r.push(text) + r.flush();
  }

  private holdFrom(text: string): number {
    for (let i = Math.max(0, text.length - MAX_HELD); i < text.length; i++) {
      const c = text[i];
      if ((c === '[' || c === '(' || c === '<') && HOLD.test(text.slice(i))) return i;
    }
    return text.length;
  }

  private rewrite(text: string): string {
    const out = text.replace(MARKER, (whole, a?: string, b?: string, c?: string) => {
      const numbers = (a ?? b ?? c ?? '').split(',').map((n) => Number(n.trim()));
      if (!numbers.every((n) => n >= 1 && n <= this.options.sources)) return whole;
      return this.mode === 'suppress' ? '' : `^${numbers.join(',')}^`;
    });
    // `[1][2]` -> `^1^^2^` -> `^1,2^`
    return out.replace(/\^(\d+(?:,\d+)*)\^\^(\d+(?:,\d+)*)\^/g, '^$1,$2^');
  }
}
