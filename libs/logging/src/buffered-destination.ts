import pino from 'pino';

const WARN = 40;

export interface LogSink {
  write(data: string): unknown;
}

export interface BufferedDestinationOptions {
  /** Lines wait at most this long. */
  flushMs: number;
  /** Written at once when this many characters are waiting. */
  maxBuffered: number;
}

/**
 * A pino destination that batches lines: info and debug lines wait up to `flushMs` (or until
 * `maxBuffered` characters), warnings and errors go out at once together with what waits before
 * them. A synchronous write per line was one system call per request in every service (two
 * counting the reader of a pipe), a visible share of the CPU profiles at one request in flight.
 */
export class BufferedDestination {
  /** pino sets `lastLevel` before each write on streams that carry this symbol. */
  readonly [pino.symbols.needsMetadataGsym] = true;
  lastLevel = 0;
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private direct = false;

  constructor(
    private readonly sink: LogSink,
    private readonly options: BufferedDestinationOptions,
  ) {}

  write(line: string): void {
    if (this.direct) {
      this.sink.write(line);
      return;
    }
    this.pending += line;
    if (this.lastLevel >= WARN || this.pending.length >= this.options.maxBuffered) this.writePending();
    else this.timer ??= setTimeout(this.writePending, this.options.flushMs).unref();
  }

  /** Writes what waits (pino's `logger.flush(cb)` calls this). */
  flush(cb?: (err?: Error) => void): void {
    this.writePending();
    cb?.();
  }

  private readonly writePending = (): void => {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending === '') return;
    const data = this.pending;
    this.pending = '';
    this.sink.write(data);
  };

  /** From now on every line is written at once (shutdown: nothing may wait in memory). */
  unbuffered(): void {
    this.writePending();
    this.direct = true;
  }
}
