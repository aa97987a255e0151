import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, NatsConnection } from 'nats';
import { ControlMessage, FrameKind, StreamEnd, StreamOpenReply, StreamOpenRequest } from '@svc/contracts';
import { ErrorPayload } from '@svc/errors';
import { NATS_HEADER } from '@svc/headers';
import { inFlight } from './in-flight';
import { InboxMux } from './inbox-mux';
import { decodeJson } from './wire';

export interface StreamPublisherOptions {
  heartbeatMs: number;
  /** How long to wait for credit before concluding the reader is gone. */
  ackTimeoutMs: number;
  requestId?: string;
}

/** A batch of chunks holds at most this many UTF-16 units (at most 192 KiB of UTF-8), far inside a NATS message; one chunk alone may be larger. */
const BATCH_MAX_UNITS = 64 * 1024;

export class StreamAbortedError extends Error {
  override name = 'StreamAbortedError';
}

/**
 * The producing side of the token-stream protocol (libs/contracts/src/stream/frames.ts).
 * `signal` aborts when the reader cancels or stops granting credit; pass it to the engine.
 */
export class StreamPublisher {
  readonly streamId = randomUUID();
  /** Where the reader sends acks and cancels (a subject of the connection's InboxMux). */
  readonly control: string;
  private readonly abort = new AbortController();
  private readonly release: () => void;
  private seq = 0;
  private acked = -1;
  private lastSentAt = Date.now();
  private creditWaiter: (() => void) | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;
  /** Chunks produced in this run of microtasks, not yet published: one message when the run ends (`open.batch`). */
  private batch: string[] = [];
  private batchSeq = 0;
  private batchUnits = 0;
  private readonly flushBatch = () => this.publishBatch();
  /** An open stream is in-flight work: a graceful shutdown waits for it to end. */
  private readonly ended = inFlight.begin();

  constructor(
    private readonly nc: NatsConnection,
    private readonly open: StreamOpenRequest,
    private readonly options: StreamPublisherOptions,
  ) {
    ({ subject: this.control, release: this.release } = InboxMux.of(nc).open((msg) => this.onControl(decodeJson<ControlMessage>(msg.data))));
    this.heartbeat = setInterval(
      () => {
        if (Date.now() - this.lastSentAt >= options.heartbeatMs) this.publish('heartbeat', undefined);
      },
      Math.max(50, Math.floor(options.heartbeatMs / 2)),
    );
    this.heartbeat.unref();
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  reply(): StreamOpenReply {
    return { streamId: this.streamId, control: this.control, heartbeatMs: this.options.heartbeatMs };
  }

  /**
   * Publishes one chunk, first waiting for credit (back-pressure) if the reader is behind. Where the
   * reader takes batches (`open.batch`), the chunks produced before the current run of microtasks
   * ends (an upstream read that held several tokens) leave as one message: one header block and one
   * message for nats-server and the reader to handle instead of one each. Each still has its number.
   */
  async chunk(payload: string | object): Promise<void> {
    // A batch leaves when this run of microtasks ends, so also while the producer waits here.
    if (this.seq > this.acked + this.open.window) await this.waitForCredit();
    if (this.abort.signal.aborted) throw new StreamAbortedError(String(this.abort.signal.reason ?? 'aborted'));
    const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
    // A batch's chunks are separated by newlines: a chunk holding one goes alone (JSON never does).
    if (this.open.batch !== true || (typeof payload === 'string' && body.includes('\n'))) {
      this.publishBatch();
      this.publish('chunk', body);
      return;
    }
    // Bounded in size too (speech sends audio).
    if (this.batchUnits + body.length > BATCH_MAX_UNITS) this.publishBatch();
    if (this.batch.length === 0) {
      this.batchSeq = this.seq;
      // After the microtasks now queued: the rest of this read's chunks join first.
      process.nextTick(this.flushBatch);
    }
    this.batch.push(body);
    this.batchUnits += body.length;
    this.seq++;
  }

  end(end: StreamEnd): void {
    this.finish('end', JSON.stringify(end));
  }

  error(payload: ErrorPayload): void {
    this.finish('error', JSON.stringify(payload));
  }

  private finish(kind: 'end' | 'error', body: string): void {
    if (this.closed) return;
    this.publishBatch();
    if (!this.abort.signal.aborted) this.publish(kind, body);
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.batch = [];
    this.batchUnits = 0;
    this.ended();
    clearInterval(this.heartbeat);
    this.release();
    this.creditWaiter?.();
  }

  /** The batch as one `chunk` message: numbered by its first chunk, `svc-count` saying how many it holds. */
  private publishBatch(): void {
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    this.batchUnits = 0;
    this.send('chunk', batch.join('\n'), this.batchSeq, batch.length);
  }

  /** One frame; chunks, `end` and `error` take the next number. */
  private publish(kind: FrameKind, body: string | undefined): void {
    this.send(kind, body, kind === 'heartbeat' ? undefined : this.seq++, 1);
  }

  private send(kind: FrameKind, body: string | undefined, seq: number | undefined, count: number): void {
    if (this.closed) return;
    const h = natsHeaders();
    h.set(NATS_HEADER.frame, kind);
    if (seq !== undefined) h.set(NATS_HEADER.seq, String(seq));
    if (count > 1) h.set(NATS_HEADER.count, String(count));
    if (this.options.requestId) h.set(NATS_HEADER.requestId, this.options.requestId);
    this.nc.publish(this.open.inbox, body === undefined ? undefined : Buffer.from(body), { headers: h });
    this.lastSentAt = Date.now();
  }

  private onControl(message: ControlMessage): void {
    if (message.t === 'cancel') {
      this.abort.abort('cancelled by caller');
    } else if (message.t === 'ack' && message.seq > this.acked) {
      this.acked = message.seq;
    }
    const waiter = this.creditWaiter;
    if (waiter && (this.abort.signal.aborted || this.seq <= this.acked + this.open.window)) waiter();
  }

  private waitForCredit(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.abort.abort('reader stopped granting credit');
        done();
      }, this.options.ackTimeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.creditWaiter = null;
        resolve();
      };
      this.creditWaiter = done;
    });
  }
}
