import { Target } from './gateway-overhead';
import { portkeyRouteHeaders } from './portkey';
import { Scenario, System } from './scenarios';

const MESSAGES = [{ role: 'user', content: 'Reply with a few words: what is a benchmark?' }];

/** The catalog id of the bench model (bench/gateway-overhead/catalog.yaml); the fake upstream and Portkey pass it through. */
export const BENCH_MODEL = 'bench-upstream';

export interface Endpoints {
  /** The fake upstream's OpenAI base URL (with /v1). */
  upstream: string;
  platform: string;
  portkey: string;
}

export const chatBody = (stream: boolean): string => JSON.stringify({ model: BENCH_MODEL, messages: MESSAGES, stream });

const bearer = (apiKey: string): Record<string, string> => ({ authorization: `Bearer ${apiKey}` });

/**
 * The same body and the same key(s) for every system: the hot account's key, or each account's key
 * in turn. Portkey, which does not check keys (it forwards them upstream), also gets the two headers
 * that route it to the fake upstream.
 */
export function chatTarget(system: System, scenario: Pick<Scenario, 'stream' | 'accounts'>, endpoints: Endpoints, apiKeys: string[]): Target {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...bearer(apiKeys[0]) };
  let url: string;
  switch (system) {
    case 'direct':
      url = `${endpoints.upstream}/chat/completions`;
      break;
    case 'platform':
      url = `${endpoints.platform}/api/v1/chat/completions`;
      break;
    case 'portkey':
      url = `${endpoints.portkey}/v1/chat/completions`;
      Object.assign(headers, portkeyRouteHeaders(endpoints.upstream));
      break;
  }
  const rotatingHeaders = scenario.accounts > 1 ? apiKeys.slice(0, scenario.accounts).map(bearer) : undefined;
  return { url, headers, body: chatBody(scenario.stream), rotatingHeaders };
}

/** One request, so a broken setup fails with its answer instead of a table of errors. */
export async function probe(target: Target, what: string): Promise<void> {
  const res = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  const streamed = target.body.includes('"stream":true');
  if (res.status !== 200 || !text.includes('tok0') || (streamed && !text.includes('data: [DONE]'))) {
    throw new Error(`${what} answered ${res.status}: ${text.slice(0, 500)}`);
  }
}
