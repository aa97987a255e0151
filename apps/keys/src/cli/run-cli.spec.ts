import { AccountsService } from '../accounts/accounts.service';
import { KeysService } from '../keys/keys.service';
import { InMemoryKeysRepository } from '../../test/fakes/in-memory-keys.repository';
import { InMemoryRateLimitsRepository } from '../../test/fakes/in-memory-rate-limits.repository';
import { RecordingKeyEvents } from '../../test/fakes/recording-key-events';
import { RateLimitsService } from '../rate-limits/rate-limits.service';
import { CliContext } from './cli-context';
import { CliDeps, runCli } from './run-cli';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';

function harness() {
  const repo = new InMemoryKeysRepository();
  repo.accounts.add(ACCOUNT);
  const events = new RecordingKeyEvents();
  const limits = new InMemoryRateLimitsRepository(repo);
  const opened: Array<{ withEvents: boolean }> = [];
  const ctx: CliContext = {
    keys: new KeysService(repo, events, limits),
    rateLimits: new RateLimitsService(limits, repo, events),
    keysRepository: repo,
    accounts: {} as AccountsService,
    eventsDelivered: true,
    close: async () => undefined,
  };
  const deps: CliDeps = {
    loadConfig: () => ({ KEYS_DATABASE_URL: 'postgresql://x/svc_keys', NATS_URL: 'nats://x:4222' }),
    open: async (_config, options) => {
      opened.push(options);
      return ctx;
    },
  };
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, deps);
  return { repo, limits, events, opened, out, err, run };
}

describe('svc CLI', () => {
  it('creates a key and prints its secret and view as JSON', async () => {
    const h = harness();
    expect(await h.run('keys', 'create', '--account', ACCOUNT, '--type', 'inference', '--description', 'ci', '--expires', '2030-01-01')).toBe(0);
    const printed = JSON.parse(h.out[0]);
    expect(printed.apiKey).toMatch(/^svc_/);
    expect(printed.data).toEqual(expect.objectContaining({ apiKeyType: 'INFERENCE', description: 'ci', expiresAt: '2030-01-01T00:00:00.000Z' }));
  });

  it('rejects bad input with exit code 2 before touching the database', async () => {
    const h = harness();
    expect(await h.run('keys', 'create', '--account', ACCOUNT, '--type', 'ROOT')).toBe(2);
    expect(h.err.join('\n')).toMatch(/--type/);
    expect(await h.run('accounts', 'create')).toBe(2);
    expect(h.err.join('\n')).toMatch(/--name is required/);
    expect(await h.run('keys', 'list', '--account', ACCOUNT, '--bogus', 'x')).toBe(2);
    expect(await h.run('keys', 'destroy')).toBe(2);
    expect(h.err.join('\n')).toMatch(/Unknown command: keys destroy/);
    expect(h.opened).toEqual([]);
  });

  it('revokes by key id alone, tells gateways, and is idempotent', async () => {
    const h = harness();
    await h.run('keys', 'create', '--account', ACCOUNT, '--type', 'ADMIN');
    const id = JSON.parse(h.out[0]).data.id;
    expect(await h.run('keys', 'revoke', id)).toBe(0);
    expect(JSON.parse(h.out[1])).toEqual({ success: true, id, accountId: ACCOUNT, gatewaysNotified: true });
    expect(h.events.revokedIds).toEqual([[id]]);
    expect(h.opened.at(-1)).toEqual({ withEvents: true });
    expect(await h.run('keys', 'revoke', id)).toBe(0);
    expect(JSON.parse(h.out[2])).toEqual({ success: true, id, alreadyRevoked: true });
  });

  it('fails with exit code 1 for a key that does not exist', async () => {
    const h = harness();
    expect(await h.run('keys', 'revoke', '99999999-9999-4999-8999-999999999999')).toBe(1);
    expect(h.err[0]).toMatch(/not found/);
  });

  it('sets, shows and clears rate limits, telling gateways to re-verify', async () => {
    const h = harness();
    await h.run('keys', 'create', '--account', ACCOUNT, '--type', 'INFERENCE');
    const keyId = JSON.parse(h.out[0]).data.id;
    expect(await h.run('limits', 'tier', '--account', ACCOUNT, '--tier', 'PARTNER')).toBe(0);
    expect(JSON.parse(h.out[1])).toEqual({ accountId: ACCOUNT, apiTier: 'partner', keysRefreshed: 1, gatewaysNotified: true });
    expect(await h.run('limits', 'set', '--account', ACCOUNT, '--target', 'text:L', '--rpm', '120', '--tpm', '2000000')).toBe(0);
    expect(await h.run('limits', 'set', '--key', keyId, '--rpm', '10')).toBe(0);
    expect(JSON.parse(h.out[3])).toEqual({ keyId, override: { target: '*', rpm: 10, tpm: null, rpd: null }, keysRefreshed: 1, gatewaysNotified: true });
    expect(await h.run('limits', 'show', '--account', ACCOUNT)).toBe(0);
    expect(JSON.parse(h.out[4])).toEqual({
      accountId: ACCOUNT,
      apiTier: 'partner',
      account: [{ target: 'text:L', rpm: 120, tpm: 2_000_000, rpd: null }],
      keys: [{ keyId, overrides: [{ target: '*', rpm: 10, tpm: null, rpd: null }] }],
    });
    expect(h.events.revokedIds).toEqual([[keyId], [keyId], [keyId]]);
    expect(await h.run('limits', 'clear', '--account', ACCOUNT)).toBe(0);
    expect(JSON.parse(h.out[5])).toMatchObject({ accountId: ACCOUNT, removed: 1 });
  });

  it('rejects bad rate-limit input before touching the database', async () => {
    const h = harness();
    expect(await h.run('limits', 'set', '--account', ACCOUNT, '--rpm', 'lots')).toBe(2);
    expect(h.err.join('\n')).toMatch(/--rpm: must be a positive integer or "inherit"/);
    expect(await h.run('limits', 'set', '--account', ACCOUNT, '--target', 'gpu', '--rpm', '5')).toBe(2);
    expect(h.err.join('\n')).toMatch(/--target/);
    expect(await h.run('limits', 'set', '--rpm', '5')).toBe(2);
    expect(h.err.join('\n')).toMatch(/exactly one of --account and --key/);
    expect(await h.run('limits', 'tier', '--account', ACCOUNT, '--tier', 'gold')).toBe(2);
    expect(h.opened).toEqual([]);
  });
});
