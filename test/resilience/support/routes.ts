import { FormPart } from './multipart';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One gateway route and a well-formed request to it: the baseline every fuzz case mutates. */
export interface Route {
  method: Method;
  /** As the controller declares it (`:params` included), without the `/api/v1` prefix. */
  path: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  json?: Record<string, unknown>;
  form?: FormPart[];
  /** OpenAI's error body (`{error: {message, type, param, code}}`) is allowed here too. */
  openAiErrors?: boolean;
  /** Body fields the fuzz leaves alone (a host name the sandbox cannot resolve in time is not the gateway's fault). */
  keep?: string[];
  /**
   * The status of the well-formed request with the suite's zero-credit key: 402 where admission
   * stops it, so every mutation starts from a body that passes validation.
   */
  baseline: number;
}

export const routeKey = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** The request path with params filled in and the query appended. */
export function urlOf(route: Route, params = route.params, query = route.query): string {
  const filled = route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params?.[name] ?? name));
  const prefix = ['/healthz', '/livez', '/readyz'].includes(route.path) ? '' : '/api/v1';
  const qs = query && Object.keys(query).length ? `?${new URLSearchParams(query).toString()}` : '';
  return `${prefix}${filled}${qs}`;
}

const UUID = '0b9c6a4e-3d1f-4a7b-9c2e-5f8d1a6b3c7e';

/** Every route of the gateway with a well-formed request (models from config/models.yaml), in an order where each finds what it needs. */
export function gatewayRoutes(fixtures: { png: Buffer; wav: Buffer }): Route[] {
  const image = fixtures.png.toString('base64');
  const slug = 'fuzz-character';
  return [
    { method: 'GET', path: '/healthz', baseline: 200 },
    { method: 'GET', path: '/livez', baseline: 200 },
    { method: 'GET', path: '/readyz', baseline: 200 },
    { method: 'GET', path: '/models', query: { type: 'text' }, baseline: 200 },
    { method: 'GET', path: '/models/traits', baseline: 200 },
    { method: 'GET', path: '/models/compatibility_mapping', baseline: 200 },
    { method: 'GET', path: '/models/:id', params: { id: 'svc-zoo-chat' }, baseline: 200 },
    { method: 'GET', path: '/openapi.yaml', baseline: 200 },
    { method: 'GET', path: '/openapi.json', baseline: 200 },
    { method: 'GET', path: '/docs', baseline: 200 },
    // The smallest asset: a fuzz case re-sends it whole (the Swagger UI bundle is 1.7 MB).
    { method: 'GET', path: '/docs/:asset', params: { asset: 'docs-init.js' }, baseline: 200 },
    {
      method: 'POST',
      path: '/chat/completions',
      openAiErrors: true,
      baseline: 402,
      json: {
        model: 'default',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Name a colour.' }] },
        ],
        max_tokens: 8,
        temperature: 0.5,
        top_p: 0.9,
        stop: ['\n\n'],
        seed: 7,
        response_format: { type: 'json_schema', json_schema: { name: 'colour', schema: { type: 'object', properties: { name: { type: 'string' } } } } },
        tools: [{ type: 'function', function: { name: 'paint', parameters: { type: 'object', properties: { colour: { type: 'string' } } } } }],
        svc_parameters: { disable_thinking: true },
        user: 'fuzz',
      },
    },
    {
      method: 'POST',
      path: '/responses',
      openAiErrors: true,
      baseline: 402,
      json: {
        model: 'default',
        instructions: 'Be brief.',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'Name a colour.' }] },
          { type: 'function_call', call_id: 'call_1', name: 'paint', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'done' },
        ],
        max_output_tokens: 8,
        temperature: 0.5,
        top_p: 0.9,
        text: { format: { type: 'json_schema', name: 'colour', schema: { type: 'object', properties: { name: { type: 'string' } } } } },
        tools: [{ type: 'function', name: 'paint', parameters: { type: 'object', properties: { colour: { type: 'string' } } } }],
        store: false,
        svc_parameters: { disable_thinking: true },
      },
    },
    {
      method: 'POST',
      path: '/completions',
      openAiErrors: true,
      baseline: 402,
      json: {
        model: 'default',
        prompt: 'Name a colour.',
        max_tokens: 8,
        temperature: 0.5,
        top_p: 0.9,
        stop: ['\n\n'],
        seed: 7,
        n: 1,
        logprobs: 1,
        user: 'fuzz',
      },
    },
    { method: 'POST', path: '/embeddings', baseline: 402, json: { model: 'text-embedding-3-small', input: ['a lamp', 'a light'], encoding_format: 'float' } },
    {
      method: 'POST',
      path: '/rerank',
      baseline: 402,
      json: { model: 'text-embedding-3-small', query: 'a lamp', documents: ['a light', { text: 'a river' }], top_n: 1 },
    },
    // Text with only the image classifier configured: a 400 saying no text moderation model is, before any credit is asked for.
    { method: 'POST', path: '/moderations', baseline: 400, json: { model: 'omni-moderation-latest', input: ['a lamp', 'a light'] } },
    { method: 'GET', path: '/image/styles', baseline: 200 },
    {
      method: 'POST',
      path: '/image/generate',
      baseline: 402,
      json: { model: 'default', prompt: 'a red circle', width: 256, height: 256, format: 'png', steps: 4, seed: 3, safe_mode: true, variants: 1 },
    },
    {
      method: 'POST',
      path: '/images/generations',
      baseline: 402,
      json: { model: 'default', prompt: 'a red circle', n: 1, size: '256x256', response_format: 'b64_json' },
    },
    { method: 'POST', path: '/image/edit', baseline: 402, json: { image, prompt: 'make it blue', aspect_ratio: '1:1', safe_mode: true } },
    {
      method: 'POST',
      path: '/images/edits',
      baseline: 402,
      form: [
        { name: 'image', value: fixtures.png, filename: 'red.png', contentType: 'image/png' },
        { name: 'prompt', value: 'make it blue' },
        { name: 'size', value: '256x256' },
      ],
    },
    { method: 'POST', path: '/image/upscale', baseline: 402, json: { image, scale: 2 } },
    { method: 'POST', path: '/image/multi-edit', baseline: 402, json: { images: [image, image], prompt: 'make them blue' } },
    { method: 'POST', path: '/image/background-remove', baseline: 402, json: { image } },
    { method: 'POST', path: '/audio/speech', baseline: 402, json: { model: 'tts-1', voice: 'slt', input: 'Hello there.', response_format: 'wav', speed: 1 } },
    {
      method: 'POST',
      path: '/audio/transcriptions',
      baseline: 402,
      form: [
        { name: 'file', value: fixtures.wav, filename: 'tone.wav', contentType: 'audio/wav' },
        { name: 'model', value: 'whisper-1' },
        { name: 'response_format', value: 'json' },
      ],
    },
    {
      method: 'POST',
      path: '/audio/translations',
      baseline: 402,
      form: [
        { name: 'file', value: fixtures.wav, filename: 'tone.wav', contentType: 'audio/wav' },
        { name: 'model', value: 'whisper-1' },
        { name: 'response_format', value: 'json' },
      ],
    },
    // A private address: the SSRF guard refuses it (400 naming url) before any credit is asked for.
    { method: 'POST', path: '/video/transcriptions', baseline: 400, json: { url: 'http://10.0.0.1/talk.mp4' } },
    // The embedded Flite cannot clone a voice: a 400 saying so, before any credit is asked for.
    {
      method: 'POST',
      path: '/audio/voices',
      baseline: 400,
      form: [
        { name: 'file', value: fixtures.wav, filename: 'voice.wav', contentType: 'audio/wav' },
        { name: 'model', value: 'svc-flite' },
      ],
    },
    { method: 'POST', path: '/audio/quote', baseline: 200, json: { model: 'svc-flite', character_count: 120 } },
    { method: 'POST', path: '/audio/queue', baseline: 402, json: { model: 'svc-flite', prompt: 'A short chapter.', response_format: 'mp3' } },
    { method: 'POST', path: '/audio/retrieve', baseline: 404, json: { model: 'svc-flite', queue_id: UUID } },
    { method: 'POST', path: '/audio/complete', baseline: 404, json: { model: 'svc-flite', queue_id: UUID } },
    {
      method: 'POST',
      path: '/files',
      baseline: 200,
      form: [
        {
          name: 'file',
          value: Buffer.from('{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{}}\n'),
          filename: 'in.jsonl',
          contentType: 'application/jsonl',
        },
        { name: 'purpose', value: 'batch' },
      ],
    },
    { method: 'GET', path: '/files', baseline: 200 },
    { method: 'GET', path: '/files/:id', params: { id: 'file-000000000000000000000000' }, baseline: 404 },
    { method: 'GET', path: '/files/:id/content', params: { id: 'file-000000000000000000000000' }, baseline: 404 },
    { method: 'DELETE', path: '/files/:id', params: { id: 'file-000000000000000000000000' }, baseline: 404 },
    {
      method: 'POST',
      path: '/batches',
      baseline: 404,
      json: { input_file_id: 'file-000000000000000000000000', endpoint: '/v1/chat/completions', completion_window: '24h' },
    },
    { method: 'GET', path: '/batches', baseline: 200 },
    { method: 'GET', path: '/batches/:id', params: { id: 'batch_000000000000000000000000' }, baseline: 404 },
    { method: 'POST', path: '/batches/:id/cancel', params: { id: 'batch_000000000000000000000000' }, baseline: 404 },
    { method: 'POST', path: '/video/quote', baseline: 200, json: { model: 'svc-zoo-video', duration: '2s', resolution: '256p' } },
    { method: 'POST', path: '/video/queue', baseline: 402, json: { model: 'svc-zoo-video', prompt: 'a red circle', duration: '2s', resolution: '256p' } },
    { method: 'POST', path: '/video/retrieve', baseline: 404, json: { model: 'svc-zoo-video', queue_id: UUID } },
    { method: 'POST', path: '/video/complete', baseline: 404, json: { model: 'svc-zoo-video', queue_id: UUID } },
    { method: 'GET', path: '/video/download/:queueId', params: { queueId: UUID }, baseline: 403 },
    // The augment tools are billed (issue 18): admission stops them before the service looks at the
    // query or the URL (the SSRF guard is checked with a funded key in findings.ts).
    { method: 'POST', path: '/augment/search', baseline: 402, json: { query: 'lamps', limit: 3 } },
    { method: 'POST', path: '/augment/scrape', baseline: 402, json: { url: 'http://127.0.0.1/page' }, keep: ['url'] },
    {
      method: 'POST',
      path: '/augment/text-parser',
      baseline: 402,
      form: [
        { name: 'file', value: 'A lamp in the dark.\n', filename: 'notes.txt', contentType: 'text/plain' },
        { name: 'response_format', value: 'json' },
      ],
    },
    { method: 'GET', path: '/api_keys', baseline: 200 },
    { method: 'GET', path: '/api_keys/:id', params: { id: UUID }, baseline: 404 },
    {
      method: 'POST',
      path: '/api_keys',
      baseline: 201,
      json: { apiKeyType: 'INFERENCE', description: 'fuzz', limitPeriod: 'MONTH', consumptionLimit: { usd: 1 } },
    },
    { method: 'PATCH', path: '/api_keys', baseline: 404, json: { id: UUID, description: 'fuzz again', modelPrivacy: 'PRIVATE_TEXT' } },
    { method: 'DELETE', path: '/api_keys', query: { id: UUID }, baseline: 404 },
    { method: 'GET', path: '/api_keys/rate_limits', baseline: 200 },
    { method: 'GET', path: '/api_keys/generate_web3_key', baseline: 200 },
    // A well-formed request whose token was not issued by the platform: 401, so every mutation is a 4xx too.
    {
      method: 'POST',
      path: '/api_keys/generate_web3_key',
      baseline: 401,
      json: { apiKeyType: 'INFERENCE', address: '0x45B73055F3aDcC4577Bb709db10B19d11b5c94eE', signature: `0x${'11'.repeat(65)}`, token: 'w3k.e30.AAAA' },
    },
    { method: 'GET', path: '/api_keys/rate_limits/log', baseline: 200 },
    { method: 'GET', path: '/billing/balance', baseline: 200 },
    { method: 'GET', path: '/billing/usage-history', query: { currency: 'USD', startTimestamp: '2026-01-01T00:00:00Z', pageSize: '10' }, baseline: 200 },
    // Retired in the reference: a 410 naming its successor, whatever is asked.
    { method: 'GET', path: '/billing/usage', baseline: 410 },
    { method: 'GET', path: '/billing/usage-analytics', query: { lookback: '7d' }, baseline: 200 },
    // x402: the top-up is public (402 with the payment options: support/platform.ts configures a pay-to);
    // a wallet that is not the caller's account's is a 403.
    { method: 'POST', path: '/x402/top-up', baseline: 402 },
    // The JSON-RPC proxy: the list is public; a call is quoted (support/platform.ts configures a network
    // whose node is never reached) and stops at admission.
    { method: 'GET', path: '/crypto/rpc/networks', baseline: 200 },
    {
      method: 'POST',
      path: '/crypto/rpc/:network',
      params: { network: 'fuzz-mainnet' },
      baseline: 402,
      json: { jsonrpc: '2.0', method: 'eth_chainId', params: [], id: 1 },
    },
    { method: 'GET', path: '/x402/balance/:walletAddress', params: { walletAddress: '0x1111111111111111111111111111111111111111' }, baseline: 403 },
    {
      method: 'GET',
      path: '/x402/transactions/:walletAddress',
      params: { walletAddress: '0x1111111111111111111111111111111111111111' },
      query: { limit: '5', offset: '0' },
      baseline: 403,
    },
    {
      method: 'POST',
      path: '/characters',
      baseline: 200,
      json: { slug, name: 'Fuzz', description: 'Answers briefly.', systemPrompt: 'Be brief.', modelId: 'default', tags: ['brief'] },
    },
    { method: 'GET', path: '/characters', query: { limit: '5', sortBy: 'featured', tags: 'a,b' }, baseline: 200 },
    { method: 'GET', path: '/characters/:slug', params: { slug }, baseline: 200 },
    { method: 'POST', path: '/characters/:slug/reviews', params: { slug }, baseline: 200, json: { rating: 5, username: 'fuzz', message: 'Short.' } },
    { method: 'GET', path: '/characters/:slug/reviews', params: { slug }, query: { page: '1', pageSize: '5' }, baseline: 200 },
    { method: 'DELETE', path: '/characters/:slug/reviews/:id', params: { slug, id: UUID }, baseline: 404 },
    { method: 'DELETE', path: '/characters/:slug', params: { slug: 'no-such-character' }, baseline: 404 },
  ];
}

/** `METHOD /path` of every route the gateway's controllers declare (shared with the e2e tenant-isolation table). */
export { declaredRoutes } from '@svc/testing';
