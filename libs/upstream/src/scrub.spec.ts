import { hostsOf, isRetryableTransportError, scrubUpstreamMessage } from '.';

describe('scrubUpstreamMessage', () => {
  it.each([
    ['URLs, with trailing punctuation kept', 'see https://internal.example/docs, or ftp://x.y/z.', 'see [url], or [url].'],
    ['IPv4 with and without port', 'from 10.1.2.3 via 172.16.0.9:8443', 'from [address] via [address]'],
    ['IPv6, bracketed and bare', 'at [::1]:8000 and fe80::1%eth0 and 2001:db8::7', 'at [address] and [address] and [address]'],
    ['host:port pairs and localhost', 'gpu-a:8000, vllm.svc:80, localhost:11434 and localhost', '[address], [address], [address] and [address]'],
    ['dotted host names under known suffixes', 'node gpu7.cluster.local and api.openai.com', 'node [server] and [server]'],
    ['keys', 'Authorization: Bearer eyJhbGciOi.abc and key sk-proj-abcdefgh1234', 'Authorization: Bearer [key] and key [key]'],
  ])('%s', (_name, input, output) => expect(scrubUpstreamMessage(input)).toBe(output));

  it('replaces the configured hosts and secrets, whatever they look like', () => {
    expect(scrubUpstreamMessage('kokoro refused hunter2-pass at KOKORO', { hosts: ['kokoro'], secrets: ['hunter2-pass'] })).toBe(
      '[server] refused [key] at [server]',
    );
  });

  it('leaves ordinary model messages alone', () => {
    for (const text of [
      'input exceeds 512 tokens',
      'width: value is not a valid integer',
      'model.safetensors not found in config.json',
      'max_tokens must be at most 4096 (12:30:45 UTC)',
      "Script 'x' not found; std::vector overflow",
      'llama-3.1-8b-instruct supports 8192 tokens',
    ]) {
      expect(scrubUpstreamMessage(text)).toBe(text);
    }
  });

  it('learns hosts from base URLs', () => {
    expect(hostsOf(['http://gpu-a:8000/v1', undefined, 'http://[fd00::5]:80', 'not a url'])).toEqual(['gpu-a', 'fd00::5']);
  });
});

describe('isRetryableTransportError', () => {
  it('is true only where no request can have reached the server', () => {
    expect(isRetryableTransportError({ code: 'ECONNREFUSED' })).toBe(true);
    expect(isRetryableTransportError(new TypeError('fetch failed', { cause: { code: 'ENOTFOUND' } }))).toBe(true);
    expect(isRetryableTransportError({ code: 'UND_ERR_HEADERS_TIMEOUT' })).toBe(false);
    expect(isRetryableTransportError({ code: 'UND_ERR_SOCKET' })).toBe(false);
  });
});
