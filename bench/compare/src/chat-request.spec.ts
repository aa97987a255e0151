import { chatTarget } from './chat-request';

describe('chat request', () => {
  const endpoints = { upstream: 'http://127.0.0.1:1/v1', platform: 'http://127.0.0.1:2', portkey: 'http://127.0.0.1:3' };
  const keys = ['svc_key_a', 'svc_key_b', 'svc_key_c'];

  it('sends every system the same body and key, and Portkey its routing headers', () => {
    const platform = chatTarget('platform', { stream: true, accounts: 1 }, endpoints, keys);
    const portkey = chatTarget('portkey', { stream: true, accounts: 1 }, endpoints, keys);
    expect(platform.url).toBe('http://127.0.0.1:2/api/v1/chat/completions');
    expect(portkey.url).toBe('http://127.0.0.1:3/v1/chat/completions');
    expect(portkey.body).toBe(platform.body);
    expect(JSON.parse(platform.body)).toMatchObject({ model: 'bench-upstream', stream: true });
    expect(portkey.headers).toEqual({ ...platform.headers, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': 'http://127.0.0.1:1/v1' });
    expect(platform.rotatingHeaders).toBeUndefined();
  });

  it("spreads a many-accounts scenario over that many accounts' keys", () => {
    const target = chatTarget('portkey', { stream: false, accounts: 2 }, endpoints, keys);
    expect(target.rotatingHeaders).toEqual([{ authorization: 'Bearer svc_key_a' }, { authorization: 'Bearer svc_key_b' }]);
  });
});
