import { DomainError } from '@svc/errors';
import { parseBody } from '../http/parse-body';
import { completionsRequestSchema } from './completions-request.dto';

/** The 400's message and the `details` it names. */
function refusal(body: Record<string, unknown>): { message: string; details: Record<string, unknown> } {
  try {
    parseBody(completionsRequestSchema, { model: 'm', prompt: 'Once upon a time', ...body });
  } catch (err) {
    if (err instanceof DomainError) return { message: err.message, details: err.details as Record<string, unknown> };
  }
  throw new Error('accepted');
}

describe('completions request validation', () => {
  it('accepts what the openai SDK sends for a plain and a streamed completion, unknown fields included', () => {
    const body = parseBody(completionsRequestSchema, {
      model: 'gpt-3.5-turbo-instruct',
      prompt: ['Say this is a test'],
      max_tokens: 7,
      temperature: 0,
      top_p: 1,
      n: 2,
      best_of: 2,
      stop: '\n',
      seed: 3,
      logprobs: 2,
      echo: false,
      suffix: null,
      stream: true,
      stream_options: { include_usage: true },
      logit_bias: { '50256': -100 },
      user: 'u-1',
    });
    expect(body).toMatchObject({ prompt: ['Say this is a test'], n: 2, best_of: 2, logprobs: 2, logit_bias: { '50256': -100 } });
  });

  it.each([
    ['more than one prompt', { prompt: ['a', 'b'] }, 'prompt', /one prompt per request/],
    ['token ids', { prompt: [1212, 318] }, 'prompt', /token ids is not supported/],
    ['arrays of token ids', { prompt: [[1212, 318]] }, 'prompt', /token ids is not supported/],
    ['an empty prompt', { prompt: '' }, 'prompt', /must not be empty/],
    ['an empty list', { prompt: [] }, 'prompt', /must not be empty/],
    ['a prompt that is no text', { prompt: 7 }, 'prompt', /prompt must be a string/],
    ['echo: true with logprobs', { echo: true, logprobs: 0 }, 'echo', /echo: true with logprobs is not supported: the prompt's own log probabilities/],
    ['a suffix', { suffix: 'end.' }, 'suffix', /suffix \(insertion\) is not supported: no engine here fills in text/],
    ['best_of above n', { best_of: 3, n: 1 }, 'best_of', /best_of other than 1 or n is not supported/],
    ['best_of above the default n', { best_of: 2 }, 'best_of', /ask for n = 2 choices/],
    ['logprobs over 5', { logprobs: 6 }, 'logprobs', /5/],
    ['logprobs as chat sends it', { logprobs: true }, 'logprobs', /number/],
    ['a temperature over 2', { temperature: 3 }, 'temperature', /2/],
    ['max_tokens 0', { max_tokens: 0 }, 'max_tokens', /0/],
    ['more than 4 stop sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop', /stop/],
  ])('refuses %s with a 400 naming the field', (_, body, field, message) => {
    const { message: text, details } = refusal(body);
    expect(text).toMatch(message);
    expect(details[field]).toEqual(expect.objectContaining({ _errors: [expect.any(String)] }));
  });

  it('accepts best_of equal to n, echo false, an empty suffix, and logprobs 0', () => {
    expect(() => parseBody(completionsRequestSchema, { model: 'm', prompt: 'x', best_of: 3, n: 3, echo: false, suffix: '', logprobs: 0 })).not.toThrow();
  });

  it('accepts echo: true (the answer continues the prompt), with logprobs null', () => {
    expect(parseBody(completionsRequestSchema, { model: 'm', prompt: 'x', echo: true, logprobs: null })).toMatchObject({ echo: true });
  });

  it('requires model and prompt', () => {
    expect(() => parseBody(completionsRequestSchema, { prompt: 'x' })).toThrow(DomainError);
    expect(() => parseBody(completionsRequestSchema, { model: 'm' })).toThrow(DomainError);
  });
});
