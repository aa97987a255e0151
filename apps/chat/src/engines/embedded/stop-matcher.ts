/**
 * Finds stop strings in streamed text. Text that might be the start of a stop string is held
 * back until it is known not to be, so a stop string never reaches the client, even in part.
 */
export class StopMatcher {
  private readonly stops: string[];
  private held = '';
  private stopped = false;

  constructor(stops: readonly string[] = []) {
    this.stops = stops.filter((s) => s.length > 0);
  }

  /** Returns the text that is safe to emit now, and whether a stop string was completed. */
  push(text: string): { emit: string; stopped: boolean } {
    if (this.stopped) return { emit: '', stopped: true };
    const buffer = this.held + text;
    let cut = -1;
    for (const stop of this.stops) {
      const at = buffer.indexOf(stop);
      if (at !== -1 && (cut === -1 || at < cut)) cut = at;
    }
    if (cut !== -1) {
      this.stopped = true;
      this.held = '';
      return { emit: buffer.slice(0, cut), stopped: true };
    }
    const keep = this.longestPartialStop(buffer);
    this.held = buffer.slice(buffer.length - keep);
    return { emit: buffer.slice(0, buffer.length - keep), stopped: false };
  }

  /** Held-back text, once generation ended without completing a stop string. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  private longestPartialStop(buffer: string): number {
    let best = 0;
    for (const stop of this.stops) {
      for (let k = Math.min(stop.length - 1, buffer.length); k > best; k--) {
        if (buffer.endsWith(stop.slice(0, k))) {
          best = k;
          break;
        }
      }
    }
    return best;
  }
}
