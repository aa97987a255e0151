/** The image model's prompt tokenizer: lower-cased words (letters only) looked up in its vocabulary. */
export class WordTokenizer {
  private readonly index = new Map<string, number>();

  constructor(
    vocab: readonly string[],
    private readonly maxTokens: number,
    private readonly unk = 1,
  ) {
    vocab.forEach((w, i) => this.index.set(w, i));
  }

  /** Ids padded with 0 to `maxTokens`; unknown words map to `unk`; words past the limit are dropped. */
  encode(prompt: string): { ids: number[]; unknown: string[] } {
    const words = prompt
      .toLowerCase()
      .replace(/[^a-z ]/g, ' ')
      .split(' ')
      .filter(Boolean);
    const unknown: string[] = [];
    const ids = words.slice(0, this.maxTokens).map((w) => {
      const id = this.index.get(w);
      if (id === undefined) unknown.push(w);
      return id ?? this.unk;
    });
    while (ids.length < this.maxTokens) ids.push(0);
    return { ids, unknown };
  }

  has(word: string): boolean {
    return this.index.has(word);
  }
}
