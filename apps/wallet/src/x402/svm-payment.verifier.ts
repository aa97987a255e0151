import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { address, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import {
  findAssociatedTokenPda,
  getTransferCheckedInstructionDataDecoder,
  identifyTokenInstruction,
  TOKEN_PROGRAM_ADDRESS,
  TokenInstruction,
} from '@solana-program/token';
import { X402PaymentRequirements } from '@svc/contracts';
import { checkAccepted } from './amount-checks';
import { PaymentVerifier, VerifiedPayment } from './verified-payment';
import { refused } from './x402-errors';
import { SOLANA_MAINNET, USDC_DECIMALS } from './x402-networks';
import { PaymentPayload, svmExactPayloadSchema } from './x402-payload';

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

const sameSolanaAddress = (a: string, b: string): boolean => a === b;

interface CompiledTransfer {
  accounts: string[];
  data: Uint8Array;
}

/**
 * USDC on Solana: the x402 exact scheme's transaction, partially signed by the payer (the
 * facilitator's fee payer signs when it settles). Decoded with @solana/kit and the token program's
 * codecs; the payer's Ed25519 signature over the message is checked with @noble/curves.
 */
export class SvmPaymentVerifier implements PaymentVerifier {
  readonly network = SOLANA_MAINNET;

  async verify(payload: PaymentPayload, ours: X402PaymentRequirements, _nowSeconds: number): Promise<VerifiedPayment> {
    const amount = checkAccepted(payload, ours, sameSolanaAddress);
    const parsed = svmExactPayloadSchema.safeParse(payload.payload);
    if (!parsed.success) throw refused('invalid_payload', 'The Solana payment needs `payload.transaction` (a base64 transaction).');
    const { messageBytes, signatures, staticAccounts, transfer } = decode(parsed.data.transaction);

    const feePayer = ours.extra?.feePayer;
    if (typeof feePayer === 'string' && staticAccounts[0] !== feePayer) throw refused('invalid_payload', `The fee payer must be ${feePayer}.`);
    const [source, mint, destination, authority] = transfer.accounts;
    if (authority === staticAccounts[0] || source === undefined) throw refused('invalid_payload', 'The fee payer cannot be the one paying.');
    const data = getTransferCheckedInstructionDataDecoder().decode(transfer.data);
    if (!sameSolanaAddress(mint, ours.asset) || data.decimals !== USDC_DECIMALS)
      throw refused('wrong_asset', `Only USDC (${ours.asset}) is accepted on ${ours.network}.`);
    const [receiving] = await findAssociatedTokenPda({ owner: address(ours.payTo), mint: address(ours.asset), tokenProgram: TOKEN_PROGRAM_ADDRESS });
    if (destination !== receiving) throw refused('wrong_pay_to', `The transfer must go to ${ours.payTo}'s USDC account.`);
    if (data.amount !== amount) throw refused('amount_mismatch', 'The transferred amount differs from the accepted amount.');

    const signature = signatures[authority];
    if (!signature || !ed25519.verify(signature, messageBytes, base58.decode(authority))) {
      throw refused('invalid_signature', 'The transaction is not signed by the paying wallet.');
    }
    return {
      family: 'solana',
      payer: authority,
      amountUnits: amount,
      reference: `${this.network}:${authority}:${base58.encode(signature)}`,
      payload,
      requirements: { ...ours, amount: amount.toString() },
    };
  }
}

/** The transaction's message, signatures, accounts and its one TransferChecked (besides compute-budget and memo instructions). */
function decode(base64: string) {
  let transaction: ReturnType<ReturnType<typeof getTransactionDecoder>['decode']>;
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>;
  try {
    transaction = getTransactionDecoder().decode(Buffer.from(base64, 'base64'));
    message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  } catch {
    throw refused('invalid_payload', 'The Solana transaction does not decode.');
  }
  // Legacy and v0 messages (what x402 clients send); the v1 format lays instructions out otherwise.
  if (!('instructions' in message)) throw refused('invalid_payload', 'Only legacy and v0 Solana transactions are accepted.');
  const staticAccounts = message.staticAccounts.map(String);
  const transfers: CompiledTransfer[] = [];
  for (const instruction of message.instructions) {
    const program = staticAccounts[instruction.programAddressIndex];
    if (program === COMPUTE_BUDGET_PROGRAM || program === MEMO_PROGRAM) continue;
    const data = new Uint8Array(instruction.data ?? []);
    const accounts = (instruction.accountIndices ?? []).map((i: number) => staticAccounts[i]);
    if (program !== TOKEN_PROGRAM_ADDRESS || accounts.some((a: string | undefined) => a === undefined) || identify(data) !== TokenInstruction.TransferChecked) {
      throw refused('invalid_payload', 'The transaction may only hold one USDC TransferChecked (and compute-budget or memo instructions).');
    }
    transfers.push({ accounts, data });
  }
  if (transfers.length !== 1) throw refused('invalid_payload', 'The transaction must hold exactly one USDC TransferChecked.');
  return {
    messageBytes: new Uint8Array(transaction.messageBytes),
    signatures: transaction.signatures as Record<string, Uint8Array | null>,
    staticAccounts,
    transfer: transfers[0],
  };
}

function identify(data: Uint8Array): TokenInstruction | undefined {
  try {
    return identifyTokenInstruction(data);
  } catch {
    return undefined;
  }
}
