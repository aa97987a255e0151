import { z } from 'zod';
import { jsonByteLength } from './json-byte-length';

/**
 * NATS's default `max_payload`: a message above it is refused by the client before it is sent.
 * No deployment here changes it; `connectNats` (@svc/messaging) refuses a server that allows less.
 */
export const NATS_MAX_PAYLOAD_BYTES = 1024 * 1024;

/**
 * What the fields of one request that travel inside a NATS message (not by blob reference) may
 * take as JSON. The rest of the message (caller, billing, envelope) and what a service adds or
 * repeats (chat text parts are also joined into `content`) must fit in the remaining quarter.
 */
export const INLINE_BUDGET_BYTES = (NATS_MAX_PAYLOAD_BYTES / 4) * 3;

const jsonBytes = (value: unknown): number => jsonByteLength(value) ?? 0;

/** The path to the part of `value` that makes it large: down the largest child while it holds most of its parent. */
function largestPath(value: unknown, size: number): Array<string | number> {
  const path: Array<string | number> = [];
  let node = value;
  let nodeSize = size;
  while (typeof node === 'object' && node !== null) {
    let best: [string | number, unknown, number] | undefined;
    for (const [key, child] of Object.entries(node)) {
      const bytes = jsonBytes(child);
      if (!best || bytes > best[2]) best = [Array.isArray(node) ? Number(key) : key, child, bytes];
    }
    if (!best || best[2] * 2 < nodeSize) break;
    path.push(best[0]);
    [, node, nodeSize] = best;
  }
  return path;
}

/**
 * A cheap upper bound of `jsonBytes(value)`, without building the JSON: every UTF-16 unit of a
 * string or key counted as its longest escape (`\uXXXX`, 6 bytes), a number as 25 (the longest
 * a double prints as: `-0.0000012345678901234567`), and anything
 * that is not plain JSON data (a Buffer, a Date) as unbounded. Lets a request that is clearly
 * small skip the serialization (about 4.6 µs for a 2 KB chat body, on every request).
 */
export function jsonBytesAtMost(value: unknown, limit: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= limit) {
    const node = stack.pop();
    if (typeof node === 'string') total += node.length * 6 + 2;
    else if (typeof node === 'number') total += 25;
    else if (node === null || node === undefined || typeof node === 'boolean') total += 5;
    else if (Array.isArray(node)) {
      total += node.length + 2;
      for (const child of node) stack.push(child);
    } else if (typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
      for (const [key, child] of Object.entries(node)) {
        total += key.length * 6 + 4;
        stack.push(child);
      }
      total += 2;
    } else return Infinity;
  }
  return total;
}

const kib = (bytes: number) => `${Math.ceil(bytes / 1024)} KiB`;

/**
 * A refinement for a request body whose fields are forwarded inside one NATS message: past
 * `max` bytes of JSON (fields in `except`, which travel by blob, and Buffers not counted) it is
 * a 400 naming the field that makes it large, instead of a message the bus refuses (a 503).
 */
export function withinInlineBudget(options: { except?: readonly string[]; max?: number } = {}) {
  const max = options.max ?? INLINE_BUDGET_BYTES;
  const except = new Set(options.except ?? []);
  return (body: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    let bound = 2;
    for (const key in body) {
      const value = body[key];
      if (!except.has(key) && !Buffer.isBuffer(value)) bound += key.length * 6 + 4 + jsonBytesAtMost(value, max);
    }
    if (bound <= max) return;
    const inline: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) if (!except.has(key) && !Buffer.isBuffer(value)) inline[key] = value;
    const total = jsonBytes(inline);
    if (total <= max) return;
    const path = largestPath(inline, total);
    const size = jsonBytes(path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], inline));
    const limit = `a request's fields may take at most ${kib(max)} (send large inputs as a file or URL where the endpoint takes one)`;
    const message = path.length > 0 ? `is ${kib(size)} as JSON; ${limit}` : `The request's fields are ${kib(size)} as JSON; ${limit}`;
    ctx.addIssue({ code: 'custom', path, message });
  };
}
