import { DomainError, ErrorCode } from '@svc/errors';

/**
 * How deep a request body may nest. A chat body with a JSON schema ten levels deep (OpenAI's own
 * cap) nests about 25; a 10,000-deep one overflowed JSON.stringify's stack in the gateway (a 500).
 */
export const MAX_BODY_DEPTH = 64;

/** The top-level field of `value` that nests deeper than `max` (`''`: the body itself), or null. */
export function tooDeepField(value: unknown, max = MAX_BODY_DEPTH): string | null {
  if (typeof value !== 'object' || value === null) return null;
  // Iterative, so the check itself cannot overflow the stack it protects.
  const stack: Array<[unknown, number, string]> = [[value, 1, '']];
  while (stack.length > 0) {
    const [node, depth, field] = stack.pop()!;
    if (depth > max) return field;
    const children = Array.isArray(node) ? node : Object.values(node as object);
    const top = depth === 1 && !Array.isArray(node) ? Object.keys(node as object) : undefined;
    children.forEach((child, i) => {
      if (typeof child === 'object' && child !== null && !Buffer.isBuffer(child)) stack.push([child, depth + 1, top ? top[i] : field]);
    });
  }
  return null;
}

/** Throws a 400 naming the field that nests deeper than MAX_BODY_DEPTH. */
export function assertBodyDepth(value: unknown, field?: string): void {
  const deep = tooDeepField(value);
  if (deep === null) return;
  const name = field ?? deep;
  const reason = `nested deeper than ${MAX_BODY_DEPTH} levels`;
  if (!name) throw new DomainError(ErrorCode.Validation, `The request body is ${reason}.`, { _errors: [reason] });
  throw new DomainError(ErrorCode.Validation, `${name} is ${reason}.`, { _errors: [], [name]: { _errors: [reason] } });
}
