import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { connect } from 'nats';
import { Client } from 'pg';
import { verifyMessage } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { privateKeyToAccount } from 'viem/accounts';
import { WALLET_AUTH } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { createTestDatabase, runBench, startPrivateNats, startService } from '@svc/testing';
import { EVM_KEYS, evmSignIn, solanaSignIn, solanaWallet } from '@svc/testing/wallet';
import { serviceMigrationsDir } from '@svc/database';

const PUBLIC_URL = 'https://bench.example.test';
const N = Number(process.env.BENCH_WALLET_N ?? 300);
const cleanups: Array<() => Promise<void>> = [];

/** Mean and percentiles of a sample in ms. */
function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return `n=${samples.length} mean ${mean.toFixed(3)} ms, p50 ${at(50).toFixed(3)}, p99 ${at(99).toFixed(3)}`;
}

async function time(samples: number[], run: () => Promise<unknown> | unknown): Promise<void> {
  const start = performance.now();
  await run();
  samples.push(performance.now() - start);
}

async function main(): Promise<void> {
  const alice = privateKeyToAccount(EVM_KEYS.alice);
  const sol = solanaWallet(55);

  // 1. The cryptography alone, in this process: what each fresh sign-in costs in CPU.
  const evmHeaders = await Promise.all(Array.from({ length: N }, () => evmSignIn(EVM_KEYS.alice, PUBLIC_URL)));
  const solHeaders = Array.from({ length: N }, () => solanaSignIn(sol, PUBLIC_URL));
  const decoded = (h: string) => JSON.parse(Buffer.from(h, 'base64').toString()) as { message: string; signature: `0x${string}` };
  const evmCrypto: number[] = [];
  for (const h of evmHeaders) {
    const { message, signature } = decoded(h);
    await time(evmCrypto, async () => {
      parseSiweMessage(message);
      await verifyMessage({ address: alice.address, message, signature });
    });
  }
  const solCrypto: number[] = [];
  for (const h of solHeaders) {
    const { message, signature } = decoded(h);
    await time(solCrypto, () => ed25519.verify(base58.decode(signature), new TextEncoder().encode(message), base58.decode(sol.address)));
  }
  console.log(`EVM parse + ecrecover (viem, in process):      ${stats(evmCrypto)}`);
  console.log(`Solana Ed25519 verify (@noble, in process):    ${stats(solCrypto)}`);

  // 2. The whole sign-in over NATS: the wallet service (verify, spend the nonce in Postgres, find the account).
  const nats = await startPrivateNats();
  cleanups.push(() => nats.stop());
  const db = await createTestDatabase('benchwallet', { migrationsDir: serviceMigrationsDir('wallet') });
  cleanups.push(() => db.drop());
  // The wallets already have accounts (a first sign-in would also create one in the keys service, not measured here).
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  await pg.query("INSERT INTO wallet_accounts (network, address, account_id) VALUES ('evm', $1, $2), ('solana', $3, $4)", [
    alice.address,
    randomUUID(),
    sol.address,
    randomUUID(),
  ]);
  await pg.end();
  const nc = await connect({ servers: nats.url });
  cleanups.push(() => nc.close());
  const rpc = new RpcClient(nc, 10_000);

  for (const cache of ['10000', '0']) {
    const wallet = startService('wallet', 'apps/wallet/src/main.ts', {
      NATS_URL: nats.url,
      WALLET_DATABASE_URL: db.url,
      WALLET_MIGRATE_ON_BOOT: 'false',
      SIWX_PUBLIC_URL: PUBLIC_URL,
      SIWX_VERIFIED_CACHE_MAX: cache,
    });
    await wallet.waitFor('wallet service ready', 120_000);
    const label = cache === '0' ? 'cache off' : 'cache on ';
    const fresh = await Promise.all(Array.from({ length: N }, () => evmSignIn(EVM_KEYS.alice, PUBLIC_URL)));
    const freshSol = Array.from({ length: N }, () => solanaSignIn(sol, PUBLIC_URL));
    for (let i = 0; i < 20; i++) await rpc.send(WALLET_AUTH.SIGN_IN, { header: await evmSignIn(EVM_KEYS.alice, PUBLIC_URL) }); // warm-up
    const evm: number[] = [];
    for (const header of fresh) await time(evm, () => rpc.send(WALLET_AUTH.SIGN_IN, { header }));
    const solana: number[] = [];
    for (const header of freshSol) await time(solana, () => rpc.send(WALLET_AUTH.SIGN_IN, { header }));
    // A replayed header: refused every time; the cache only changes how much work the refusal costs.
    const replayed: number[] = [];
    let refused = 0;
    for (let i = 0; i < N; i++) await time(replayed, () => rpc.send(WALLET_AUTH.SIGN_IN, { header: fresh[0] }).catch(() => refused++));
    console.log(`[${label}] fresh EVM sign-in over NATS:      ${stats(evm)}`);
    console.log(`[${label}] fresh Solana sign-in over NATS:   ${stats(solana)}`);
    console.log(`[${label}] replayed EVM header (refused ${refused}/${N}): ${stats(replayed)}`);
    await wallet.stop();
  }
}

runBench('bench-wallet', main, cleanups);
