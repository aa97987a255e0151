/** Generated text on its way out (same shape as the think filter): `push` per piece, `flush` at the end. */
export interface TextFilter {
  push(text: string): string;
  flush(): string;
}

/** `first` then `second`: what the first holds back reaches the second only when it lets it go. */
export function chainFilters(first: TextFilter, second: TextFilter | undefined): TextFilter {
  if (!second) return first;
  return {
    push: (text) => second.push(first.push(text)),
    flush: () => second.push(first.flush()) + second.flush(),
  };
}
