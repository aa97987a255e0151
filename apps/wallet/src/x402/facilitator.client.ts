import { z } from 'zod';
import { X402PaymentRequirements } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { PaymentPayload } from './x402-payload';

const verifyReplySchema = z.object({ isValid: z.boolean(), invalidReason: z.string().nullish(), payer: z.string().nullish() });
const settleReplySchema = z.object({
  success: z.boolean(),
  errorReason: z.string().nullish(),
  payer: z.string().nullish(),
  transaction: z.string().nullish(),
  network: z.string().nullish(),
});
export type SettleReply = z.infer<typeof settleReplySchema>;
export type VerifyReply = z.infer<typeof verifyReplySchema>;

/** Where the facilitator failed to answer (not a refusal): the caller must not treat it as one. */
export class FacilitatorUnavailable extends Error {}

/**
 * An x402 facilitator's HTTP API (`POST /verify`, `POST /settle`, body
 * `{ x402Version, paymentPayload, paymentRequirements }`). Its URL is the operator's, never shown to clients.
 */
export class FacilitatorClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  verify(payload: PaymentPayload, requirements: X402PaymentRequirements): Promise<VerifyReply> {
    return this.call('verify', payload, requirements, verifyReplySchema);
  }

  settle(payload: PaymentPayload, requirements: X402PaymentRequirements): Promise<SettleReply> {
    return this.call('settle', payload, requirements, settleReplySchema);
  }

  private async call<T>(path: 'verify' | 'settle', payload: PaymentPayload, requirements: X402PaymentRequirements, schema: z.ZodType<T>): Promise<T> {
    let response: Response;
    try {
      response = await this.fetchImpl(new URL(path, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new FacilitatorUnavailable(`facilitator ${path}: ${(error as Error).name}`);
    }
    const body: unknown = await response.json().catch(() => undefined);
    const parsed = schema.safeParse(body);
    // A 4xx with a well-formed answer is the facilitator's verdict; anything else is it failing.
    if (!parsed.success || response.status >= 500) throw new FacilitatorUnavailable(`facilitator ${path}: HTTP ${response.status}`);
    return parsed.data;
  }
}

export const facilitatorDown = (): DomainError =>
  new DomainError(ErrorCode.ServiceUnavailable, 'The payment facilitator did not answer; nothing was charged or credited. Retry the same payment.');
