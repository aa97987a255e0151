const OPEN = '<think>';
const CLOSE = '</think>';

/** A piece of generated text: the model's reasoning (a leading `<think>` block) or its answer. */
export interface TextPiece {
  kind: 'reasoning' | 'text';
  text: string;
}

/** Length of the longest end of `text` that is a proper beginning of `tag` (a tag split across pieces). */
function partialTagAtEnd(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (text.endsWith(tag.slice(0, n))) return n;
  return 0;
}

/**
 * Splits the reasoning of a model that thinks aloud (`<think>...</think>` at the start of its
 * answer, when svc_parameters.strip_thinking_response is off) from the answer, for the Responses
 * API's reasoning item. Text arrives in pieces and a tag may be split across them: what might
 * still be a tag is held back until the next piece decides. An unterminated block (cut by
 * max_output_tokens) is all reasoning.
 */
export class ThinkSplitter {
  private state: 'start' | 'reasoning' | 'afterReasoning' | 'text' = 'start';
  private held = '';

  push(piece: string): TextPiece[] {
    const out: TextPiece[] = [];
    let text = this.held + piece;
    this.held = '';
    if (this.state === 'start') {
      const lead = text.trimStart();
      if (lead.startsWith(OPEN)) {
        this.state = 'reasoning';
        text = lead.slice(OPEN.length);
      } else if (OPEN.startsWith(lead)) {
        this.held = text;
        return out;
      } else this.state = 'text';
    }
    if (this.state === 'reasoning') {
      const close = text.indexOf(CLOSE);
      if (close === -1) {
        const keep = partialTagAtEnd(text, CLOSE);
        this.held = text.slice(text.length - keep);
        add(out, 'reasoning', text.slice(0, text.length - keep));
        return out;
      }
      add(out, 'reasoning', text.slice(0, close));
      this.state = 'afterReasoning';
      text = text.slice(close + CLOSE.length);
    }
    if (this.state === 'afterReasoning') {
      // The blank lines between the reasoning and the answer belong to neither.
      text = text.trimStart();
      if (text) this.state = 'text';
    }
    add(out, 'text', text);
    return out;
  }

  /** What is held back when the text ends. */
  flush(): TextPiece[] {
    const out: TextPiece[] = [];
    add(out, this.state === 'reasoning' ? 'reasoning' : 'text', this.held);
    this.held = '';
    return out;
  }

  /** A whole text at once. */
  static split(text: string): TextPiece[] {
    const splitter = new ThinkSplitter();
    return [...splitter.push(text), ...splitter.flush()];
  }
}

function add(out: TextPiece[], kind: TextPiece['kind'], text: string): void {
  if (text) out.push({ kind, text });
}
