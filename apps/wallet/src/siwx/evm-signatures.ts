import { Inject, Injectable } from '@nestjs/common';
import { createPublicClient, http, isHex, verifyMessage, type Hex, type PublicClient } from 'viem';
import { WALLET_CONFIG, WalletConfig } from '../config';

/**
 * Verifies an EIP-191 signature of a text by an EVM address, with viem. With SIWX_EVM_RPC_URL the
 * node is asked too, so contract wallets (EIP-1271, and EIP-6492 before deployment) can sign;
 * without it only externally owned accounts (ecrecover, no network) are accepted.
 */
@Injectable()
export class EvmSignatures {
  private readonly client?: PublicClient;

  constructor(@Inject(WALLET_CONFIG) config: Pick<WalletConfig, 'SIWX_EVM_RPC_URL'>) {
    if (config.SIWX_EVM_RPC_URL) this.client = createPublicClient({ transport: http(config.SIWX_EVM_RPC_URL, { timeout: 5_000, retryCount: 0 }) });
  }

  async verify(address: Hex, message: string, signature: string): Promise<boolean> {
    if (!isHex(signature)) return false;
    try {
      return this.client ? await this.client.verifyMessage({ address, message, signature }) : await verifyMessage({ address, message, signature });
    } catch {
      // Malformed signatures (wrong length, invalid recovery byte) are a refusal, not an error.
      return false;
    }
  }
}
