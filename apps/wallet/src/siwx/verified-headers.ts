import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { VerifiedSignIn } from './sign-in-fields';

/**
 * Headers whose signature verified, by SHA-256 of the exact header text, until their message
 * expires. Safe because it only skips the signature check, never the nonce: a hit still spends
 * the nonce, and a header seen before is by definition a replay, so it is refused there. What it
 * saves is the elliptic-curve work on repeated headers (replays, retries of a refused request);
 * a fresh sign-in always misses (bench/wallet). Size 0 turns it off.
 */
export class VerifiedHeaders {
  private readonly cache?: LRUCache<string, VerifiedSignIn>;

  constructor(max: number) {
    if (max > 0) this.cache = new LRUCache<string, VerifiedSignIn>({ max });
  }

  get(header: string, now: number): VerifiedSignIn | undefined {
    if (!this.cache) return undefined;
    const hit = this.cache.get(digest(header));
    return hit && hit.expiresAt > now ? hit : undefined;
  }

  set(header: string, verified: VerifiedSignIn): void {
    this.cache?.set(digest(header), verified);
  }
}

const digest = (header: string): string => createHash('sha256').update(header).digest('base64');
