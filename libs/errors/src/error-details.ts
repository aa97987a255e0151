/**
 * The spec's DetailedError `details`: nested by field, with an `_errors` array at each level.
 */
export interface ErrorDetails {
  _errors: string[];
  [field: string]: ErrorDetails | string[];
}

export interface IssueLike {
  path: ReadonlyArray<PropertyKey>;
  message: string;
}

/**
 * The most issues `details` lists. An array of 100,000 wrong elements is 100,000 issues: listed in
 * full, the 400 would be 12 MB (slow to build, log and send); the message counts the rest.
 */
export const MAX_DETAILED_ISSUES = 100;

export function detailsFromIssues(issues: ReadonlyArray<IssueLike>): ErrorDetails {
  const root: ErrorDetails = { _errors: [] };
  for (const issue of issues.slice(0, MAX_DETAILED_ISSUES)) {
    let node = root;
    for (const key of issue.path) {
      const name = String(key);
      const next = node[name];
      if (next === undefined || Array.isArray(next)) {
        const child: ErrorDetails = { _errors: [] };
        node[name] = child;
        node = child;
      } else {
        node = next;
      }
    }
    node._errors.push(issue.message);
  }
  return root;
}

/** One-line summary of the first few issues, used as the `error` string. */
export function summarizeIssues(issues: ReadonlyArray<IssueLike>, limit = 3): string {
  const parts = issues.slice(0, limit).map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
  const more = issues.length > limit ? ` (and ${issues.length - limit} more)` : '';
  return `Invalid request: ${parts.join('; ')}${more}`;
}

/**
 * The path of the first field `details` blames (`temperature`, `messages.0.role`), written as the
 * message writes it; null when only the body as a whole is blamed. OpenAI's `error.param`.
 */
export function firstInvalidField(details: ErrorDetails | undefined): string | null {
  const path: string[] = [];
  let node = details;
  while (node && (path.length === 0 || node._errors.length === 0)) {
    const field = Object.keys(node).find((key) => key !== '_errors');
    if (field === undefined) break;
    path.push(field);
    node = node[field] as ErrorDetails;
  }
  return path.length ? path.join('.') : null;
}
