import { connect } from 'nats';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { startPlatform } from '@svc/testing';
import { Target } from './raw-http';

/**
 * The slow-client limits the suite runs under: short, so a half-sent request is cut within a
 * second or two, and a connection cap a test can reach. Every other setting is the default,
 * except that rate limits and the abuse block are off (they would answer most of a fuzz run 429).
 */
export const LIMITS = {
  REQUEST_HEADERS_TIMEOUT_MS: 1_000,
  REQUEST_RECEIVE_TIMEOUT_MS: 1_500,
  KEEP_ALIVE_TIMEOUT_MS: 1_000,
  MAX_CONNECTIONS_PER_IP: 64,
} as const;

/** Smaller than the default 40 MiB, so a test can pass it cheaply; still above every huge case (5 MB). */
export const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export const PLATFORM_ENV: Record<string, string> = {
  ...Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, String(v)])),
  BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
  RATE_LIMITS_ENABLED: 'false',
  ABUSE_PROTECTION_ENABLED: 'false',
  LOG_LEVEL: 'warn',
  // x402 top-ups offered (a 402 to fuzz); the facilitator is never reached without a valid signature.
  X402_FACILITATOR_URL: 'http://127.0.0.1:9',
  X402_BASE_PAY_TO: '0x1111111111111111111111111111111111111111',
  // A JSON-RPC network to quote (its node is never reached: admission stops the zero-credit key first).
  CRYPTO_RPC_NETWORKS: JSON.stringify({ 'fuzz-mainnet': { url: 'http://127.0.0.1:9' } }),
};

export interface ResiliencePlatform {
  target: Target;
  /** The bootstrap admin key (100 USD of credit): for the few requests that must run a model. */
  fundedKey: string;
  /**
   * An ADMIN key of an account with no credit: every request that passes validation stops at
   * admission (402) before a model runs, so the fuzz reaches every check and costs no inference.
   */
  key: string;
  output(): string;
  stop(): Promise<void>;
}

/** The whole platform as `npm start` runs it (built dist/), with the suite's limits and a zero-credit ADMIN key. */
export async function startResiliencePlatform(): Promise<ResiliencePlatform> {
  const platform = await startPlatform({ env: PLATFORM_ENV, timeoutMs: 120_000 });
  try {
    const nc = await connect({ servers: platform.env.NATS_URL });
    try {
      const rpc = new RpcClient(nc, 10_000);
      const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: 'resilience fuzz (no credit)' });
      const { apiKey } = await rpc.send(KEYS.CREATE, {
        accountId,
        apiKeyType: 'ADMIN',
        description: 'resilience fuzz',
        expiresAt: null,
        consumptionLimits: { usd: null, diem: null },
        limitPeriod: 'EPOCH',
        modelPrivacy: 'ALL',
      });
      const url = new URL(platform.baseUrl);
      return {
        target: { host: url.hostname, port: Number(url.port) },
        fundedKey: platform.adminKey,
        key: apiKey,
        output: platform.output,
        stop: platform.stop,
      };
    } finally {
      await nc.close();
    }
  } catch (err) {
    await platform.stop();
    throw err;
  }
}
