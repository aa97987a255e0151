import { Injectable } from '@nestjs/common';
import { DomainError } from '@svc/errors';
import { ReplyHeadersStore } from './reply-headers.store';

/** A refusal decided before admission (the abuse block), with its response headers; null to pass. */
export type GateVerdict = { refusal: DomainError; headers: Record<string, string> } | null;

/**
 * A check that admission can answer from its own Redis call: the admission script reads
 * `blockKey` before it counts anything, so the check costs no round trip of its own.
 */
export interface FoldableCheck {
  /** The Redis key whose value, when present, is the lift time (ms) of a block that refuses the request. */
  readonly blockKey: string;
  /** The verdict from that key's value as the script read it; undefined when it takes the full check. */
  decide(liftAt: number | null): GateVerdict | undefined;
  /** The full check on its own (Redis unreachable, or the request ended before admission). */
  run(): Promise<GateVerdict>;
  /**
   * Whether admission may skip the read and admit from a rate-limit lease: false for a caller
   * that failed here lately, whose block this replica may have just set.
   */
  readonly leasable: boolean;
}

type Deferred = Promise<GateVerdict> | FoldableCheck;

const isFoldable = (check: Deferred): check is FoldableCheck => !(check instanceof Promise);

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
 * with body parsing and authentication instead of adding to them; or, when admission makes a
 * Redis call anyway (rate limits), the check is folded into that call. Also records which
 * requests reached admission (the hooks learn from it which routes are inference routes).
 */
@Injectable()
export class AdmissionGate {
  private readonly pending = new BoundedMap<Deferred>();
  private readonly reached = new BoundedMap<true>();

  constructor(private readonly replyHeaders: ReplyHeadersStore) {}

  defer(requestId: string, check: Deferred): void {
    this.pending.set(requestId, check);
  }

  /** Called by admission before any work: throws the refusal of a deferred check. */
  async pass(requestId: string): Promise<void> {
    const check = this.take(requestId);
    if (check) this.enforce(requestId, await (isFoldable(check) ? check.run() : check));
  }

  /**
   * Called by admission before any work when its own Redis call can answer a foldable check:
   * returns that check (the caller then `enforce`s its verdict); any other check is passed here.
   */
  async passUnlessFoldable(requestId: string): Promise<FoldableCheck | undefined> {
    const check = this.pending.get(requestId);
    if (!check || !isFoldable(check)) {
      await this.pass(requestId);
      return undefined;
    }
    return this.take(requestId) as FoldableCheck;
  }

  /** Throws the refusal of a verdict; its headers go on the response. */
  enforce(requestId: string, verdict: GateVerdict): void {
    if (!verdict) return;
    this.replyHeaders.set(requestId, verdict.headers);
    throw verdict.refusal;
  }

  /** A deferred check that admission never took (the request ended before it), for the response hook. */
  takeUnawaited(requestId: string): Promise<GateVerdict> | undefined {
    const check = this.pending.get(requestId);
    if (!check) return undefined;
    this.pending.delete(requestId);
    return isFoldable(check) ? check.run() : check;
  }

  /** Whether this request reached admission (once). */
  takeReached(requestId: string): boolean {
    return this.reached.delete(requestId);
  }

  private take(requestId: string): Deferred | undefined {
    this.reached.set(requestId, true);
    const check = this.pending.get(requestId);
    if (check) this.pending.delete(requestId);
    return check;
  }
}
