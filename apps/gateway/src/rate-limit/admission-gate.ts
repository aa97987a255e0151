import { Injectable } from '@nestjs/common';
import { DomainError } from '@svc/errors';
import { ReplyHeadersStore } from './reply-headers.store';

/** A refusal decided before admission (the abuse block), with its response headers; null to pass. */
export type GateVerdict = { refusal: DomainError; headers: Record<string, string> } | null;

const MAX_TRACKED = 10_000;

/** A Map that forgets its oldest entries beyond a bound (entries of requests that never finished). */
class BoundedMap<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    if (this.size >= MAX_TRACKED) this.delete(this.keys().next().value as string);
    return super.set(key, value);
  }
}

/**
 * Checks that may finish while a request is on its way to admission: a caller check started
 * before authentication is awaited here, before any work starts, so its Redis round trip overlaps
 * with body parsing and authentication instead of adding to them. Also records which requests
 * reached admission (the hooks learn from it which routes are inference routes).
 */
@Injectable()
export class AdmissionGate {
  private readonly pending = new BoundedMap<Promise<GateVerdict>>();
  private readonly reached = new BoundedMap<true>();

  constructor(private readonly replyHeaders: ReplyHeadersStore) {}

  defer(requestId: string, check: Promise<GateVerdict>): void {
    this.pending.set(requestId, check);
  }

  /** Called by admission before any work: throws the refusal of a deferred check. */
  async pass(requestId: string): Promise<void> {
    this.reached.set(requestId, true);
    const check = this.pending.get(requestId);
    if (!check) return;
    this.pending.delete(requestId);
    const verdict = await check;
    if (verdict) {
      this.replyHeaders.set(requestId, verdict.headers);
      throw verdict.refusal;
    }
  }

  /** A deferred check that admission never awaited (the request ended before it), for the response hook. */
  takeUnawaited(requestId: string): Promise<GateVerdict> | undefined {
    const check = this.pending.get(requestId);
    if (check) this.pending.delete(requestId);
    return check;
  }

  /** Whether this request reached admission (once). */
  takeReached(requestId: string): boolean {
    return this.reached.delete(requestId);
  }
}
