import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BILLING_X402,
  X402ClaimReply,
  x402ClaimRequestSchema,
  X402CreditReply,
  x402FailedRequestSchema,
  X402HistoryReply,
  x402HistoryRequestSchema,
  X402PaymentStatus,
  x402ReferenceRequestSchema,
  x402SettledRequestSchema,
  X402UnfinishedReply,
  x402UnfinishedRequestSchema,
} from '@svc/contracts';
import { X402PaymentsRepository } from './x402-payments.repository';

/** The state of x402 payments, for the wallet service (which verifies and settles them). */
@Controller()
export class X402PaymentsHandler {
  constructor(private readonly payments: X402PaymentsRepository) {}

  @MessagePattern(BILLING_X402.CLAIM)
  claim(@Payload() data: unknown): Promise<X402ClaimReply> {
    return this.payments.claim(x402ClaimRequestSchema.parse(data));
  }

  @MessagePattern(BILLING_X402.SETTLED)
  async settled(@Payload() data: unknown): Promise<{ status: X402PaymentStatus }> {
    const r = x402SettledRequestSchema.parse(data);
    return { status: await this.payments.settled(r.reference, r.transaction) };
  }

  @MessagePattern(BILLING_X402.FAILED)
  async failed(@Payload() data: unknown): Promise<{ status: X402PaymentStatus }> {
    const r = x402FailedRequestSchema.parse(data);
    return { status: await this.payments.failed(r.reference, r.reason) };
  }

  @MessagePattern(BILLING_X402.CREDIT)
  credit(@Payload() data: unknown): Promise<X402CreditReply> {
    return this.payments.credit(x402ReferenceRequestSchema.parse(data).reference);
  }

  @MessagePattern(BILLING_X402.UNFINISHED)
  unfinished(@Payload() data: unknown): Promise<X402UnfinishedReply> {
    return this.payments.unfinished(x402UnfinishedRequestSchema.parse(data));
  }

  @MessagePattern(BILLING_X402.HISTORY)
  history(@Payload() data: unknown): Promise<X402HistoryReply> {
    return this.payments.history(x402HistoryRequestSchema.parse(data));
  }
}
