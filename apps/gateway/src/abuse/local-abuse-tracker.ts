import { LRUCache } from 'lru-cache';
import { CallerIdentity } from './caller-identity';

interface Track {
  failures: number[];
  liftAt: number;
}

export interface AbuseRules {
  maxFailures: number;
  windowMs: number;
  blockMs: number;
}

/** The abuse block in this process only: the bounded fallback while Redis is unreachable. */
export class LocalAbuseTracker {
  private readonly tracks: LRUCache<CallerIdentity, Track>;

  constructor(
    private readonly rules: AbuseRules,
    maxCallers: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.tracks = new LRUCache({ max: maxCallers });
  }

  /** When the caller's block lifts (ms), or null when it is not blocked. */
  liftAt(identity: CallerIdentity): number | null {
    const track = this.tracks.get(identity);
    return track && track.liftAt > this.clock() ? track.liftAt : null;
  }

  /** Counts a failure; returns the lift time when this failure started a block. */
  fail(identity: CallerIdentity): number | null {
    const now = this.clock();
    const track = this.tracks.get(identity) ?? { failures: [], liftAt: 0 };
    this.tracks.set(identity, track);
    if (track.liftAt > now) return null;
    track.failures = track.failures.filter((at) => at > now - this.rules.windowMs);
    track.failures.push(now);
    if (track.failures.length <= this.rules.maxFailures) return null;
    track.failures = [];
    track.liftAt = now + this.rules.blockMs;
    return track.liftAt;
  }

  forget(): void {
    this.tracks.clear();
  }
}
