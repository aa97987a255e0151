/**
 * Test support for the GBNF rules of apps/chat/src/chat/request (the subset they use: literals,
 * character classes, groups, `|`, `?`, `{m}`, `{m,n}`): `asRegex` to ask whether a rule matches a
 * text, and `sampler` to draw random texts a rule allows, so tests can check every drawn text
 * against the validators the answers must pass.
 */

/** The rule as an anchored JS regex. */
export function asRegex(rule: string): RegExp {
  const source = rule.replace(/"((?:[^"\\]|\\.)*)"|\[[^\]]*\]|\s+/g, (token, literal: string | undefined) => {
    if (literal !== undefined) return literal.replace(/\\(.)/g, '$1').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return token.trim() === '' ? '' : token;
  });
  return new RegExp(`^(?:${source})$`);
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'class'; chars: string[] }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; options: Node[] }
  | { kind: 'repeat'; node: Node; min: number; max: number };

/** A function drawing random texts the rule allows (seeded, so failures repeat). */
export function sampler(rule: string, seed = 1): () => string {
  const ast = new Parser(rule).parse();
  let state = seed >>> 0 || 1;
  const random = (n: number): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const draw = (node: Node): string => {
    switch (node.kind) {
      case 'text':
        return node.text;
      case 'class':
        return node.chars[random(node.chars.length)];
      case 'seq':
        return node.items.map(draw).join('');
      case 'alt':
        return draw(node.options[random(node.options.length)]);
      case 'repeat': {
        // Edges half the time: the shortest and longest texts are where bounds break.
        const pick = random(4);
        const count = pick === 0 ? node.min : pick === 1 ? node.max : node.min + random(node.max - node.min + 1);
        return Array.from({ length: count }, () => draw(node.node)).join('');
      }
    }
  };
  return () => draw(ast);
}

class Parser {
  private at = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alt();
    this.space();
    if (this.at < this.src.length) throw new Error(`unexpected ${this.src.slice(this.at, this.at + 10)}`);
    return node;
  }

  private alt(): Node {
    const options = [this.seq()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.seq());
    }
    return options.length === 1 ? options[0] : { kind: 'alt', options };
  }

  private seq(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) items.push(this.postfix(this.atom()));
    return { kind: 'seq', items };
  }

  private atom(): Node {
    const c = this.peek();
    if (c === '(') {
      this.at++;
      const inner = this.alt();
      if (this.peek() !== ')') throw new Error('missing )');
      this.at++;
      return inner;
    }
    if (c === '"') {
      const end = /^"((?:[^"\\]|\\.)*)"/.exec(this.src.slice(this.at))!;
      this.at += end[0].length;
      return { kind: 'text', text: end[1].replace(/\\(.)/g, '$1') };
    }
    if (c === '[') {
      const end = this.src.indexOf(']', this.at + 2);
      const body = this.src.slice(this.at + 1, end);
      this.at = end + 1;
      const chars: string[] = [];
      for (let i = 0; i < body.length; i++) {
        if (body[i + 1] === '-' && i + 2 < body.length) {
          for (let code = body.charCodeAt(i); code <= body.charCodeAt(i + 2); code++) chars.push(String.fromCharCode(code));
          i += 2;
        } else chars.push(body[i]);
      }
      return { kind: 'class', chars };
    }
    throw new Error(`unexpected ${this.src.slice(this.at, this.at + 10)}`);
  }

  private postfix(node: Node): Node {
    const c = this.src[this.at];
    if (c === '?') {
      this.at++;
      return { kind: 'repeat', node, min: 0, max: 1 };
    }
    const braces = /^\{(\d+)(,(\d+))?\}/.exec(this.src.slice(this.at));
    if (!braces) return node;
    this.at += braces[0].length;
    const min = Number(braces[1]);
    return { kind: 'repeat', node, min, max: braces[2] ? Number(braces[3]) : min };
  }

  private peek(): string | undefined {
    this.space();
    return this.src[this.at];
  }

  private space(): void {
    while (this.at < this.src.length && /\s/.test(this.src[this.at])) this.at++;
  }
}
