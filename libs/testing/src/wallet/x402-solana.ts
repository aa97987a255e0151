import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import {
  address,
  appendTransactionMessageInstructions,
  Blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionEncoder,
  Instruction,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  Transaction,
} from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { X402PaymentRequirements } from '@svc/contracts';
import { encodeHeader } from './siwx-headers';

/** Test doubles of an x402 Solana client: real transactions, partially signed by a fresh Ed25519 payer. */
const fixedAddress = (seed: number): string => base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(seed)));
export const SOLANA_PAY_TO = fixedAddress(41);
export const SOLANA_FEE_PAYER = fixedAddress(42);
export const SOLANA_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const SOLANA_NETWORK = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

export const solanaRequirements = (over: Partial<X402PaymentRequirements> = {}): X402PaymentRequirements => ({
  scheme: 'exact',
  network: SOLANA_NETWORK,
  amount: '5000000',
  asset: SOLANA_USDC,
  payTo: SOLANA_PAY_TO,
  maxTimeoutSeconds: 300,
  extra: { feePayer: SOLANA_FEE_PAYER },
  ...over,
});

export interface SolanaPaymentOptions {
  usd?: number;
  /** Transferred units, when they should differ from the accepted amount. */
  transferredUnits?: bigint;
  mint?: string;
  payTo?: string;
  feePayer?: string;
  accepted?: Partial<X402PaymentRequirements>;
  /** Instructions appended after the transfer. */
  extra?: (payer: string) => Promise<Instruction[]>;
  /** Leave the payer's signature out. */
  unsigned?: boolean;
}

async function signedTransfer(options: SolanaPaymentOptions, units: bigint) {
  const payer = await generateKeyPairSigner();
  const mint = address(options.mint ?? SOLANA_USDC);
  const [source] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({ owner: address(options.payTo ?? SOLANA_PAY_TO), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const transfer = getTransferCheckedInstruction({ source, mint, destination, authority: payer, amount: units, decimals: 6 });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(options.feePayer ?? SOLANA_FEE_PAYER), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: base58.encode(randomBytes(32)) as Blockhash, lastValidBlockHeight: 1000n }, m),
    (m) => appendTransactionMessageInstructions([transfer], m),
  );
  const extra = options.extra ? await options.extra(payer.address) : [];
  const compiled = compileTransaction(extra.length ? appendTransactionMessageInstructions(extra, message) : message);
  const transaction = options.unsigned ? compiled : await partiallySignTransaction([payer.keyPair], compiled);
  return { transaction, payer: payer.address as string };
}

/** A base64 `PAYMENT-SIGNATURE` header with a Solana USDC payment, and its parts. */
export async function solanaPayment(options: SolanaPaymentOptions = {}) {
  const units = BigInt(Math.round((options.usd ?? 10) * 1e6));
  const { transaction, payer } = await signedTransfer(options, options.transferredUnits ?? units);
  const payload = {
    x402Version: 2,
    accepted: solanaRequirements({ amount: units.toString(), ...options.accepted }),
    payload: { transaction: getBase64EncodedWireTransaction(transaction) },
  };
  return { header: encodeHeader(payload), payload, payer, transaction };
}

/** The same payment whose message now transfers `units`, still carrying the signature of the original. */
export async function solanaTamperedAmount(usd: number, units: bigint): Promise<string> {
  const original = await solanaPayment({ usd });
  // Only the amount bytes change (u64 LE after the TransferChecked discriminator 12); the signature stays.
  const bytes = new Uint8Array(original.transaction.messageBytes);
  const at = findTransferAmount(bytes, BigInt(Math.round(usd * 1e6)));
  new DataView(bytes.buffer).setBigUint64(at, units, true);
  const tampered = getTransactionEncoder().encode({ ...original.transaction, messageBytes: bytes } as unknown as Transaction);
  return encodeHeader({
    ...original.payload,
    accepted: { ...original.payload.accepted, amount: units.toString() },
    payload: { transaction: Buffer.from(tampered).toString('base64') },
  });
}

function findTransferAmount(bytes: Uint8Array, units: bigint): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 1; i + 9 <= bytes.length; i++) if (bytes[i - 1] === 12 && view.getBigUint64(i, true) === units) return i;
  throw new Error('no TransferChecked amount in the message');
}
