import fc from 'fast-check';
import { z } from 'zod';
import { INLINE_BUDGET_BYTES, jsonBytesAtMost, NATS_MAX_PAYLOAD_BYTES, withinInlineBudget } from './inline-budget';

const body = z.looseObject({ model: z.string() }).superRefine(withinInlineBudget({ except: ['image'] }));
const issuesOf = (value: unknown) => {
  const parsed = body.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path, message: i.message }));
};

describe('withinInlineBudget', () => {
  it('passes a body up to the budget, and fields that travel by blob whatever their size', () => {
    expect(issuesOf({ model: 'm', text: 'x'.repeat(INLINE_BUDGET_BYTES - 100) })).toEqual([]);
    expect(issuesOf({ model: 'm', image: 'x'.repeat(2 * NATS_MAX_PAYLOAD_BYTES), file: Buffer.alloc(NATS_MAX_PAYLOAD_BYTES) })).toEqual([]);
  });

  it('names the field that makes a body too large, down to the element', () => {
    expect(issuesOf({ model: 'm', stop: 'x'.repeat(NATS_MAX_PAYLOAD_BYTES) })).toEqual([
      { path: ['stop'], message: expect.stringMatching(/^is 1025 KiB as JSON; a request's fields may take at most 768 KiB/) },
    ]);
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'user', content: '\u00e9'.repeat(500_000) },
    ];
    expect(issuesOf({ model: 'm', messages })[0].path).toEqual(['messages', 1, 'content']);
  });

  it('counts bytes as sent (UTF-8, escapes included), and names the body when no one field dominates', () => {
    expect(issuesOf({ model: 'm', nul: '\u0000'.repeat(150_000) })[0].path).toEqual(['nul']);
    const spread = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, 'x'.repeat(110_000)]));
    expect(issuesOf({ model: 'm', ...spread })).toEqual([{ path: [], message: expect.stringMatching(/^The request's fields are 860 KiB as JSON/) }]);
  });

  it('skips serializing only bodies whose JSON is surely within the budget: the quick bound never undercounts', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => jsonBytesAtMost(value, Infinity) >= Buffer.byteLength(JSON.stringify(value) ?? '')),
      { numRuns: 2000 },
    );
    expect(jsonBytesAtMost({ file: Buffer.alloc(4) }, INLINE_BUDGET_BYTES)).toBe(Infinity);
    // The longest a double prints (25 characters; fast-check found it once in CI), and the longest exponent form.
    for (const n of [-0.0000010000161336633392, -1.2345678901234567e-308, -Number.MAX_VALUE])
      expect(jsonBytesAtMost(n, Infinity)).toBeGreaterThanOrEqual(JSON.stringify(n).length);
  });
});
