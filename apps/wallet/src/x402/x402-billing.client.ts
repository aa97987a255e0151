import { Injectable } from '@nestjs/common';
import { BILLING_X402, X402ClaimReply, X402ClaimRequest, X402CreditReply, X402HistoryReply, X402HistoryRequest, X402UnfinishedPayment } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';

/** The payment state and credits kept by billing (its billing_x402_* rules), over NATS. */
@Injectable()
export class X402BillingClient {
  constructor(private readonly rpc: RpcClient) {}

  claim(request: X402ClaimRequest, requestId?: string): Promise<X402ClaimReply> {
    return this.rpc.send(BILLING_X402.CLAIM, request, { requestId });
  }

  async settled(reference: string, transaction: string, requestId?: string): Promise<void> {
    await this.rpc.send(BILLING_X402.SETTLED, { reference, transaction }, { requestId });
  }

  async failed(reference: string, reason: string, requestId?: string): Promise<void> {
    await this.rpc.send(BILLING_X402.FAILED, { reference, reason }, { requestId });
  }

  credit(reference: string, requestId?: string): Promise<X402CreditReply> {
    return this.rpc.send(BILLING_X402.CREDIT, { reference }, { requestId });
  }

  async unfinished(olderThanMs: number, limit: number): Promise<X402UnfinishedPayment[]> {
    return (await this.rpc.send(BILLING_X402.UNFINISHED, { olderThanMs, limit })).payments;
  }

  history(request: X402HistoryRequest, requestId?: string): Promise<X402HistoryReply> {
    return this.rpc.send(BILLING_X402.HISTORY, request, { requestId });
  }
}
