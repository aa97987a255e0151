import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@svc/errors';
import { WALLET_CONFIG, WalletConfig } from '../config';
import { WalletSecretsRepository } from './wallet-secrets.repository';

const SECRET = 'web3-key-token';
const PREFIX = 'w3k';

export interface Web3KeyToken {
  nonce: string;
  /** Epoch ms. */
  expiresAt: number;
}

/**
 * The tokens GET /api_keys/generate_web3_key hands out: `w3k.<payload>.<HMAC-SHA256>` (base64url),
 * the payload a random nonce and an expiry. Stateless until used: issuing one writes nothing, so
 * the public GET cannot fill a table; the POST spends the nonce once (NonceStore).
 */
@Injectable()
export class Web3KeyTokens {
  constructor(
    private readonly secrets: WalletSecretsRepository,
    @Inject(WALLET_CONFIG) private readonly config: Pick<WalletConfig, 'WEB3_KEY_TOKEN_TTL_MS'>,
  ) {}

  async issue(now = Date.now()): Promise<string> {
    const payload = Buffer.from(JSON.stringify({ n: randomBytes(16).toString('hex'), exp: now + this.config.WEB3_KEY_TOKEN_TTL_MS })).toString('base64url');
    return `${PREFIX}.${payload}.${await this.mac(payload)}`;
  }

  /** The token's nonce and expiry; 401 when it was not issued here, was altered, or has expired. */
  async check(token: string, now = Date.now()): Promise<Web3KeyToken> {
    const [prefix, payload, mac, ...rest] = token.split('.');
    if (prefix !== PREFIX || !payload || !mac || rest.length > 0) throw invalid();
    const expected = Buffer.from(await this.mac(payload), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    const { n, exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { n: string; exp: number };
    if (exp <= now) throw new DomainError(ErrorCode.Unauthorized, 'The token has expired: GET /api_keys/generate_web3_key for a new one.');
    return { nonce: n, expiresAt: exp };
  }

  private async mac(payload: string): Promise<string> {
    return createHmac('sha256', await this.secrets.get(SECRET))
      .update(payload)
      .digest('base64url');
  }
}

const invalid = () => new DomainError(ErrorCode.Unauthorized, 'Invalid token: use the token GET /api_keys/generate_web3_key returned, unchanged.');
