import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { operatorCli } from './operator-cli';

export interface BenchAccount {
  accountId: string;
  apiKey: string;
}

/** High enough that no bench run meets a limit; the gateway still counts every request. */
export const BENCH_LIMIT = '2000000000';
const CREDIT_USD = '1000';
const CONCURRENCY = 4;

const savedSchema = z.object({
  keysDatabaseUrl: z.string(),
  accounts: z.array(z.object({ accountId: z.string().min(1), apiKey: z.string().min(20) })),
});

export interface AccountsOptions {
  root: string;
  /** Environment of the CLIs: the bench's databases and NATS. */
  env: NodeJS.ProcessEnv;
  count: number;
  /** Where the keys are kept between runs (under tmp/, which git ignores). */
  file: string;
  reseed: boolean;
  /** Whether a key is accepted by the running platform (one chat request). */
  works: (apiKey: string) => Promise<boolean>;
  say: (msg: string) => void;
}

/**
 * `count` accounts with one INFERENCE key, an account-level rate-limit override of BENCH_LIMIT RPM
 * and TPM on every model, and credit; made with the operator CLIs, as an operator would. Saved ones
 * are reused while they all still work, since making 64 takes a minute of CLI runs.
 */
export async function benchAccounts(options: AccountsOptions): Promise<BenchAccount[]> {
  const saved = options.reseed ? undefined : readSaved(options.file, String(options.env.KEYS_DATABASE_URL));
  if (saved && saved.length >= options.count) {
    const accounts = saved.slice(0, options.count);
    if ((await Promise.all(accounts.map((a) => options.works(a.apiKey)))).every(Boolean)) {
      options.say(`reusing ${accounts.length} bench accounts from ${options.file}`);
      return accounts;
    }
    options.say('saved bench accounts no longer work: creating new ones');
  }
  options.say(`creating ${options.count} accounts with the keys and billing CLIs (${CONCURRENCY} at a time)`);
  const accounts: BenchAccount[] = new Array(options.count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.count) {
      const i = next++;
      accounts[i] = await createAccount(options.root, options.env, i);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  writeFileSync(options.file, `${JSON.stringify({ keysDatabaseUrl: options.env.KEYS_DATABASE_URL, accounts }, null, 2)}\n`, { mode: 0o600 });
  return accounts;
}

async function createAccount(root: string, env: NodeJS.ProcessEnv, index: number): Promise<BenchAccount> {
  const { id: accountId } = await operatorCli(root, env, 'keys', ['accounts', 'create', '--name', `bench-compare-${index}`], z.object({ id: z.string() }));
  await operatorCli(root, env, 'keys', ['limits', 'set', '--account', accountId, '--rpm', BENCH_LIMIT, '--tpm', BENCH_LIMIT], z.unknown());
  const { apiKey } = await operatorCli(
    root,
    env,
    'keys',
    ['keys', 'create', '--account', accountId, '--type', 'INFERENCE', '--description', 'bench:compare'],
    z.object({ apiKey: z.string() }),
  );
  await operatorCli(
    root,
    env,
    'billing',
    ['credit', '--account', accountId, '--usd', CREDIT_USD, '--reason', 'bench:compare'],
    z.object({ status: z.string() }),
  );
  return { accountId, apiKey };
}

function readSaved(file: string, keysDatabaseUrl: string): BenchAccount[] | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = savedSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success && parsed.data.keysDatabaseUrl === keysDatabaseUrl ? parsed.data.accounts : undefined;
  } catch {
    return undefined;
  }
}
