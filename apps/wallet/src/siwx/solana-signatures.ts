import { ed25519 } from '@noble/curves/ed25519';
import { base58, base64 } from '@scure/base';
import { solanaPublicKey } from '../accounts/wallet-address';

/** An Ed25519 signature (base58, as Solana wallets give it, or base64) of a text by a base58 Solana address, with @noble/curves. */
export function verifySolanaSignature(address: string, message: string, signature: string): boolean {
  const publicKey = solanaPublicKey(address);
  const sig = decodeSignature(signature);
  if (!publicKey || !sig) return false;
  try {
    return ed25519.verify(sig, new TextEncoder().encode(message), publicKey);
  } catch {
    return false;
  }
}

function decodeSignature(text: string): Uint8Array | null {
  for (const codec of [base58, base64]) {
    try {
      const bytes = codec.decode(text);
      if (bytes.length === 64) return bytes;
    } catch {
      // try the next encoding
    }
  }
  return null;
}
