import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** How the double answers: as a healthy facilitator, or refusing, or failing at one step. */
export type FacilitatorMode = 'accept' | 'refuse-verify' | 'refuse-settle' | 'settle-500';

interface Body {
  x402Version: number;
  paymentPayload: { accepted: { network: string }; payload: { authorization?: { from: string; nonce: string }; transaction?: string } };
  paymentRequirements: { amount: string; payTo: string };
}

/**
 * A local x402 facilitator speaking its HTTP API (`POST /verify`, `POST /settle`). Like a chain, it
 * settles each authorization nonce once; it counts every call so tests can see none was repeated.
 */
export class FacilitatorDouble {
  mode: FacilitatorMode = 'accept';
  readonly settled = new Map<string, string>();
  calls = { verify: 0, settle: 0 };
  /** Milliseconds each settle takes (a slow chain), so racing requests overlap. */
  settleDelayMs = 0;
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(([status, body]) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage): Promise<[number, unknown]> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
    const auth = body.paymentPayload.payload.authorization;
    const payer = auth?.from;
    // EVM: the authorization's nonce; Solana: the transaction itself (its signature makes it unique).
    const nonce = `${body.paymentPayload.accepted.network}:${auth?.nonce ?? body.paymentPayload.payload.transaction ?? ''}`;
    if (req.url === '/verify') {
      this.calls.verify += 1;
      if (this.mode === 'refuse-verify') return [200, { isValid: false, invalidReason: 'insufficient_funds', payer }];
      if (this.settled.has(nonce)) return [200, { isValid: false, invalidReason: 'nonce_already_used', payer }];
      return [200, { isValid: true, payer }];
    }
    if (req.url === '/settle') {
      this.calls.settle += 1;
      if (this.settleDelayMs) await new Promise((r) => setTimeout(r, this.settleDelayMs));
      if (this.mode === 'settle-500') return [500, { error: 'node down' }];
      if (this.mode === 'refuse-settle' || this.settled.has(nonce)) {
        return [200, { success: false, errorReason: 'transaction_failed', payer, transaction: '', network: body.paymentPayload.accepted.network }];
      }
      const transaction = `0x${randomBytes(32).toString('hex')}`;
      this.settled.set(nonce, transaction);
      return [200, { success: true, payer, transaction, network: body.paymentPayload.accepted.network }];
    }
    return [404, { error: 'not found' }];
  }
}
