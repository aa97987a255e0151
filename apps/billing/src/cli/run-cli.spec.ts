import { AccountsService } from '../accounts/accounts.service';
import { loadServiceConfig } from '../config';
import { ReservationSweeper } from '../sweeper/reservation.sweeper';
import { CliContext } from './cli-context';
import { CliDeps, runCli } from './run-cli';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';

function harness() {
  const calls: unknown[][] = [];
  const accounts = {
    adjust: async (...args: unknown[]) => {
      calls.push(['adjust', ...args]);
      return { status: 'applied', balance: 25_500_000_000n, available: 25_000_000_000n };
    },
    setStake: async (...args: unknown[]) => {
      calls.push(['setStake', ...args]);
      return { previous: 0n, stake: 100_000_000_000n };
    },
  } as unknown as AccountsService;
  let opened = 0;
  const ctx: CliContext = { accounts, sweeper: {} as ReservationSweeper, close: async () => undefined };
  const deps: CliDeps = {
    loadConfig: () => loadServiceConfig({}),
    open: async () => {
      opened++;
      return ctx;
    },
  };
  const out: string[] = [];
  const err: string[] = [];
  const run = (...argv: string[]) => runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, deps);
  return { calls, out, err, run, opened: () => opened };
}

describe('billing CLI', () => {
  it('credits an exact decimal amount with its reason and prints balances as decimal text', async () => {
    const h = harness();
    expect(await h.run('credit', '--account', ACCOUNT, '--usd', '25.5', '--reason', 'invoice 42')).toBe(0);
    expect(h.calls).toEqual([['adjust', ACCOUNT, 'CREDIT', 25_500_000_000n, 'invoice 42', null]]);
    expect(JSON.parse(h.out[0])).toEqual({ status: 'applied', accountId: ACCOUNT, creditedUsd: '25.50', balanceUsd: '25.50', availableUsd: '25.00' });
  });

  it('sets a DIEM stake', async () => {
    const h = harness();
    expect(await h.run('stake', '--account', ACCOUNT, '--diem', '100')).toBe(0);
    expect(h.calls[0]).toEqual(['setStake', ACCOUNT, 100_000_000_000n, 'operator set the DIEM stake']);
  });

  it('rejects bad input with exit code 2 before touching the database', async () => {
    const h = harness();
    expect(await h.run('credit', '--account', ACCOUNT, '--usd', '1.0000000001', '--reason', 'x')).toBe(2);
    expect(h.err.join('\n')).toMatch(/more than 9 decimals/);
    expect(await h.run('credit', '--account', ACCOUNT, '--usd', '5')).toBe(2);
    expect(h.err.join('\n')).toMatch(/--reason is required/);
    expect(await h.run('debit', '--account', 'acme', '--usd', '5', '--reason', 'x')).toBe(2);
    expect(await h.run('consumption', '--account', ACCOUNT, '--order', 'CHEAPEST')).toBe(2);
    expect(await h.run('refund')).toBe(2);
    expect(h.err.join('\n')).toMatch(/Unknown command: refund/);
    expect(h.opened()).toBe(0);
  });
});
