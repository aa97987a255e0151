/** A method pattern: a name, `prefix*` or `*suffix` (docs/wallet.md, "JSON-RPC proxy"). */
export const METHOD_PATTERN = /^(\*?[A-Za-z0-9_]+|[A-Za-z0-9_]+\*)$/;

function matches(pattern: string, method: string): boolean {
  if (pattern.startsWith('*')) return method.endsWith(pattern.slice(1));
  if (pattern.endsWith('*')) return method.startsWith(pattern.slice(0, -1));
  return pattern === method;
}

/** Whether any pattern of `patterns` matches `method`. */
export function anyMatches(patterns: readonly string[], method: string): boolean {
  return patterns.some((pattern) => matches(pattern, method));
}

/** The value of the most specific matching pattern: an exact name first, then the longest pattern. */
export function mostSpecific<T>(table: Readonly<Record<string, T>>, method: string): T | undefined {
  if (Object.hasOwn(table, method)) return table[method];
  let best: { length: number; value: T } | undefined;
  for (const [pattern, value] of Object.entries(table)) {
    if (pattern.includes('*') && matches(pattern, method) && (!best || pattern.length > best.length)) best = { length: pattern.length, value };
  }
  return best?.value;
}
