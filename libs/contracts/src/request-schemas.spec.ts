import { CHARACTERS } from './characters/subjects';
import { AUDIO } from './audio/subjects';
import { CHAT } from './chat/subjects';
import { SVC_PARAMETER_DEFAULTS } from './chat/svc-parameters';
import { EMBEDDINGS } from './embeddings/subjects';
import { MEDIA } from './media/subjects';
import { requestSchemaOf } from './request-schemas';
import { NATS_MAX_PAYLOAD_BYTES } from './schemas/inline-budget';

const caller = { requestId: 'req-1', accountId: 'acct', apiKeyId: 'key' };
const reservationId = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
/** Embeddings inputs travel as their JSON, inline (base64) or in a blob. */
const packed = (inputs: string[]) => ({ base64: Buffer.from(JSON.stringify(inputs)).toString('base64') });

describe('request schemas (validated on receipt by SvcNatsServer)', () => {
  it('has no schema for a subject not yet listed', () => {
    expect(requestSchemaOf('keys.cmd.verify.v1')).toBeUndefined();
  });

  it.each([
    ['inline inputs with a reservation', { caller, model: 'm', input: packed(['a', 'b']), billing: { reservationId } }],
    ['inputs in a blob, no billing', { caller, model: 'm', input: { blobId: 'b1', bytes: 10 }, dimensions: 64 }],
  ])('embeddings: accepts %s', (_name, payload) => {
    expect(requestSchemaOf(EMBEDDINGS.CREATE)!.safeParse(payload).success).toBe(true);
  });

  it.each([
    ['no caller', { model: 'm', input: packed(['a']) }],
    ['inputs not packed (the chat service checks the items once unpacked)', { caller, model: 'm', input: ['a'] }],
    ['a blob without its size', { caller, model: 'm', input: { blobId: 'b' } }],
    ['neither', { caller, model: 'm' }],
    ['inline inputs past what the bus carries', { caller, model: 'm', input: { base64: 'A'.repeat(NATS_MAX_PAYLOAD_BYTES + 4) } }],
    ['a billing reference that is not a UUID', { caller, model: 'm', input: packed(['a']), billing: { reservationId: 'x' } }],
    [
      'a lease hold that is not nano text',
      { caller, model: 'm', input: packed(['a']), billing: { reservationId, lease: { leaseId: reservationId, currency: 'USD', heldNano: '1.5' } } },
    ],
    ['not an object', 'embed this'],
  ])('embeddings: refuses %s', (_name, payload) => {
    expect(requestSchemaOf(EMBEDDINGS.CREATE)!.safeParse(payload).success).toBe(false);
  });

  it('characters: one rule set for the API, the CLI and the message', () => {
    const schema = requestSchemaOf(CHARACTERS.CREATE)!;
    expect(schema.safeParse({ slug: 'ok-1', name: 'Ok', systemPrompt: 'Be kind.', modelId: 'm', accountId: reservationId }).success).toBe(true);
    expect(schema.safeParse({ slug: '-bad', name: 'Ok', systemPrompt: 'Be kind.', modelId: 'm' }).success).toBe(false);
    expect(schema.safeParse({ slug: 'ok', name: 'Ok', systemPrompt: '   ', modelId: 'm' }).success).toBe(false);
  });

  it('media and audio: a well-formed message passes with fields the schema does not name; a malformed one is refused', () => {
    const generate = {
      model: 'm',
      prompt: 'a tree',
      width: 64,
      height: 64,
      variants: 1,
      format: 'png',
      embedExifMetadata: false,
      hideWatermark: false,
      safeMode: true,
    };
    expect(requestSchemaOf(MEDIA.IMAGE_GENERATE)!.parse({ caller, params: { ...generate, future: 1 } })).toMatchObject({ params: { future: 1 } });
    expect(requestSchemaOf(MEDIA.IMAGE_GENERATE)!.safeParse({ caller, params: { ...generate, width: -1 } }).success).toBe(false);
    expect(requestSchemaOf(MEDIA.IMAGE_UPSCALE)!.safeParse({ caller, params: { model: 'm', image: { blobId: 'b' }, scale: 2, creativity: 0 } }).success).toBe(
      false,
    );
    const speech = { model: 'tts', input: 'Hello.', voice: 'slt', response_format: 'mp3', speed: 1 };
    expect(requestSchemaOf(AUDIO.SPEECH)!.safeParse({ caller, params: speech }).success).toBe(true);
    expect(requestSchemaOf(AUDIO.SPEECH)!.safeParse({ caller, params: { ...speech, response_format: 'ogg' } }).success).toBe(false);
    expect(requestSchemaOf(AUDIO.TRANSCRIBE)!.safeParse({ caller, params: { model: 'asr', timestamps: false }, audio: { base64: 42 } }).success).toBe(false);
  });

  it('chat: the wire params the gateway builds pass; a message without a role or content, or a bad tool choice, does not', () => {
    const params = { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, svc_parameters: { ...SVC_PARAMETER_DEFAULTS } };
    expect(requestSchemaOf(CHAT.COMPLETE)!.safeParse({ caller, params, billing: { reservationId } }).success).toBe(true);
    expect(requestSchemaOf(CHAT.STREAM)!.safeParse({ caller, params, stream: { inbox: '_INBOX.x', window: 16 } }).success).toBe(true);
    expect(requestSchemaOf(CHAT.STREAM)!.safeParse({ caller, params }).success).toBe(false);
    expect(requestSchemaOf(CHAT.COMPLETE)!.safeParse({ caller, params: { ...params, messages: [{ content: 'hi' }] } }).success).toBe(false);
    expect(requestSchemaOf(CHAT.COMPLETE)!.safeParse({ caller, params: { ...params, messages: [{ role: 'user', content: null }] } }).success).toBe(false);
    expect(requestSchemaOf(CHAT.COMPLETE)!.safeParse({ caller, params: { ...params, tool_choice: 'sometimes' } }).success).toBe(false);
    // svc_parameters arrive decided: a partial set means the gateway did not fill in the defaults.
    expect(requestSchemaOf(CHAT.COMPLETE)!.safeParse({ caller, params: { ...params, svc_parameters: { include_svc_system_prompt: true } } }).success).toBe(
      false,
    );
  });

  it('chat: a raw prompt passes in place of messages; both, an empty prompt, tools or a svc_parameter that adds to a prompt are refused, naming the field', () => {
    const svc = { ...SVC_PARAMETER_DEFAULTS, include_svc_system_prompt: false };
    const raw = { model: 'm', prompt: 'Once upon a time', max_tokens: 8, stop: ['\n'], n: 2, svc_parameters: svc };
    const issues = (params: Record<string, unknown>) => {
      const parsed = requestSchemaOf(CHAT.COMPLETE)!.safeParse({ caller, params });
      return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    expect(requestSchemaOf(CHAT.COMPLETE)!.parse({ caller, params: raw })).toMatchObject({ params: raw });
    expect(requestSchemaOf(CHAT.COUNT_PROMPT)!.safeParse({ caller, params: raw }).success).toBe(true);
    expect(requestSchemaOf(CHAT.STREAM)!.safeParse({ caller, params: raw, stream: { inbox: '_INBOX.x', window: 16 } }).success).toBe(true);
    expect(issues({ ...raw, messages: [{ role: 'user', content: 'hi' }] })).toEqual(['params.messages: a request has messages or a prompt, not both']);
    expect(issues({ ...raw, prompt: '' })).toEqual([expect.stringMatching(/^params\.prompt: /)]);
    expect(issues({ ...raw, tools: [{ type: 'function', function: { name: 'f' } }] })).toEqual([
      expect.stringMatching(/^params\.tools: tools need a chat template/),
    ]);
    expect(issues({ ...raw, svc_parameters: { ...svc, include_svc_system_prompt: true, enable_web_search: 'auto' } })).toEqual([
      expect.stringMatching(/^params\.svc_parameters\.include_svc_system_prompt: the service's system prompt goes in a system message, which a raw prompt/),
      expect.stringMatching(/^params\.svc_parameters\.enable_web_search: /),
    ]);
    // A chat request's own errors still name their field, not "invalid input" of a union.
    expect(issues({ model: 'm', messages: [{ role: 'user' }] })).toEqual([expect.stringMatching(/^params\.messages\.0\.content: /)]);
  });
});
