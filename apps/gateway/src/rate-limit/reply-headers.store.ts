import { Injectable } from '@nestjs/common';

const MAX_PENDING = 10_000;

/**
 * Headers for a response that is not sent by the code that computed them: a refusal thrown as
 * a DomainError leaves through the one error filter, and the onSend hook adds these by request id.
 */
@Injectable()
export class ReplyHeadersStore {
  private readonly pending = new Map<string, Record<string, string>>();

  set(requestId: string, headers: Record<string, string>): void {
    // Bounded: an entry whose response never went out (client gone) is dropped eventually.
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    this.pending.set(requestId, headers);
  }

  take(requestId: string): Record<string, string> | undefined {
    const headers = this.pending.get(requestId);
    if (headers) this.pending.delete(requestId);
    return headers;
  }
}
