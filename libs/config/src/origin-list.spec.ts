import { z } from 'zod';
import { ConfigError, loadConfig } from './load-config';
import { originList } from './origin-list';

const load = (value?: string) =>
  loadConfig('test', z.object({ CORS_ALLOWED_ORIGINS: originList }), value === undefined ? {} : { CORS_ALLOWED_ORIGINS: value }).CORS_ALLOWED_ORIGINS;

describe('origin list (CORS_ALLOWED_ORIGINS)', () => {
  it('is off by default and when empty; * is any origin; else exact origins', () => {
    expect(load()).toEqual({ kind: 'none' });
    expect(load(' ')).toEqual({ kind: 'none' });
    expect(load('*')).toEqual({ kind: 'any' });
    expect(load('https://app.example.com, http://localhost:5173')).toEqual({
      kind: 'some',
      origins: new Set(['https://app.example.com', 'http://localhost:5173']),
    });
  });

  it('refuses at boot what a browser never sends as an Origin, naming the variable and the value', () => {
    for (const bad of [
      'https://app.example.com/',
      'https://app.example.com/path',
      'app.example.com',
      'ftp://x.example',
      '*, https://a.example',
      'https://A.example',
    ]) {
      expect(() => load(bad)).toThrow(ConfigError);
    }
    expect(() => load('https://ok.example,https://bad.example/')).toThrow(/CORS_ALLOWED_ORIGINS: not an origin .*https:\/\/bad\.example\//);
  });
});
