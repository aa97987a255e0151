import { DomainError, ErrorCode } from '@svc/errors';
import { countJsonlLines, parseBatchInput } from './batch-input';

const line = (customId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [] }, ...extra });

const refusal = (text: string, max = 10): DomainError => {
  try {
    parseBatchInput(text, '/v1/chat/completions', max);
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('accepted');
};

describe('parseBatchInput', () => {
  it('reads every line in order, skipping blank lines and CRLF endings', () => {
    const lines = parseBatchInput(`${line('a')}\r\n\n${line('b')}\n`, '/v1/chat/completions', 10);
    expect(lines.map((l) => [l.index, l.customId])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
    expect(lines[0].body).toEqual({ model: 'm', messages: [] });
  });

  it.each([
    ['not JSON', `${line('a')}\n{oops`, 'Line 2 of the input file is not valid JSON.'],
    ['an array', '[1]', 'Line 1 of the input file is not a JSON object.'],
    [
      'no custom_id',
      JSON.stringify({ method: 'POST', url: '/v1/chat/completions', body: {} }),
      'Line 1 of the input file has no custom_id (a non-empty string).',
    ],
    ['a repeated custom_id', `${line('a')}\n${line('b')}\n${line('a')}`, 'Line 3 of the input file repeats custom_id "a".'],
    ['GET', line('a', { method: 'GET' }), 'Line 1 of the input file must have method "POST".'],
    [
      'another url',
      line('a', { url: '/v1/embeddings' }),
      `Line 1 of the input file has url "/v1/embeddings"; this batch's endpoint is "/v1/chat/completions".`,
    ],
    ['no body', line('a', { body: 'hi' }), 'Line 1 of the input file has no body object.'],
  ])('refuses %s, naming the first bad line', (_name, text, message) => {
    const err = refusal(text);
    expect(err.code).toBe(ErrorCode.Validation);
    expect(err.message).toBe(message);
  });

  it('refuses an empty file and one over the line limit', () => {
    expect(refusal('\n\n').message).toBe('The input file has no request lines.');
    expect(refusal([line('a'), line('b'), line('c')].join('\n'), 2).message).toBe('The input file has 3 lines; a batch takes at most 2.');
  });

  it('counts lines without parsing them', () => {
    expect(countJsonlLines('a\n\nb\r\nc')).toBe(3);
  });
});
