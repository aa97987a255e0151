const OPEN = '<think>';
const CLOSE = '</think>';

/** Length of the longest end of `text` that is a proper beginning of `tag` (a tag split across pieces). */
function partialTagAtEnd(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (text.endsWith(tag.slice(0, n))) return n;
  return 0;
}

/**
 * Removes `<think>...</think>` blocks from generated text that arrives in pieces, where a tag may
 * be split across pieces. Text that might be the start of a tag is held back until the next
 * piece decides. Whitespace right after a removed block is dropped when the text so far is empty
 * or already ends in whitespace, so an answer does not start with the blank lines that followed
 * the reasoning and words do not end up two spaces apart. An unterminated block (generation cut
 * by max_tokens while thinking) is dropped to the end.
 */
export class ThinkStripper {
  private inside = false;
  private held = '';
  private afterBlock = false;
  /** Whether everything emitted so far is empty or ends in whitespace. */
  private atBreak = true;

  push(piece: string): string {
    const out = this.strip(piece);
    if (out) this.atBreak = /\s$/.test(out);
    return out;
  }

  private strip(piece: string): string {
    let text = this.held + piece;
    this.held = '';
    let out = '';
    while (text) {
      if (this.inside) {
        const close = text.indexOf(CLOSE);
        if (close === -1) {
          const keep = partialTagAtEnd(text, CLOSE);
          this.held = keep ? text.slice(-keep) : '';
          return out;
        }
        text = text.slice(close + CLOSE.length);
        this.inside = false;
        this.afterBlock = true;
        continue;
      }
      if (this.afterBlock) {
        if (out ? /\s$/.test(out) : this.atBreak) text = text.trimStart();
        if (!text) return out;
        this.afterBlock = false;
      }
      const open = text.indexOf(OPEN);
      if (open !== -1) {
        out += text.slice(0, open);
        text = text.slice(open + OPEN.length);
        this.inside = true;
        continue;
      }
      const keep = partialTagAtEnd(text, OPEN);
      out += text.slice(0, text.length - keep);
      this.held = text.slice(text.length - keep);
      return out;
    }
    return out;
  }

  /** The end of the text: a held-back partial `<think` was text after all; an open block is dropped. */
  flush(): string {
    const rest = this.inside ? '' : this.held;
    this.held = '';
    this.inside = false;
    return rest;
  }
}

/** The whole text without its think blocks. */
export function stripThinking(text: string): string {
  const stripper = new ThinkStripper();
  return stripper.push(text) + stripper.flush();
}
