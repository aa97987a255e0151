import { requestSchemaOf } from '../request-schemas';
import { MODERATIONS, moderationInputCount } from './subjects';

const caller = { requestId: 'req-1', accountId: 'acct', apiKeyId: 'key' };
const image = { type: 'image', image: { blobId: 'b1', bytes: 10 } };

describe('media.cmd.moderate.v1 (validated on receipt)', () => {
  const schema = requestSchemaOf(MODERATIONS.CREATE)!;

  it.each([
    ['texts', { caller, model: 'm', input: { kind: 'texts', texts: ['a', ''] } }],
    ['text and image parts', { caller, model: 'm', input: { kind: 'parts', parts: [{ type: 'text', text: 't' }, image] } }],
  ])('accepts %s', (_name, payload) => {
    expect(schema.safeParse(payload).success).toBe(true);
  });

  it.each([
    ['no texts', { caller, model: 'm', input: { kind: 'texts', texts: [] } }],
    ['five images', { caller, model: 'm', input: { kind: 'parts', parts: Array(5).fill(image) } }],
    ['an image without a blob', { caller, model: 'm', input: { kind: 'parts', parts: [{ type: 'image' }] } }],
    ['no caller', { model: 'm', input: { kind: 'texts', texts: ['a'] } }],
  ])('refuses %s', (_name, payload) => {
    expect(schema.safeParse(payload).success).toBe(false);
  });

  it('bills one unit per string or part', () => {
    expect(moderationInputCount({ kind: 'texts', texts: ['a', 'b', 'c'] })).toBe(3);
    expect(
      moderationInputCount({
        kind: 'parts',
        parts: [
          { type: 'text', text: 't' },
          { type: 'image', image: { blobId: 'b', bytes: 1 } },
        ],
      }),
    ).toBe(2);
  });
});
