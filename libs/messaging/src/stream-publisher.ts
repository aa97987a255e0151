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

  /** Publishes one chunk, first waiting for credit (back-pressure) if the reader is behind. */
  async chunk(payload: string | object): Promise<void> {
    if (this.seq > this.acked + this.open.window) await this.waitForCredit();
    if (this.abort.signal.aborted) throw new StreamAbortedError(String(this.abort.signal.reason ?? 'aborted'));
    this.publish('chunk', typeof payload === 'string' ? payload : JSON.stringify(payload));
  }

  end(end: StreamEnd): void {
    this.finish('end', JSON.stringify(end));
  }

  error(payload: ErrorPayload): void {
    this.finish('error', JSON.stringify(payload));
  }

  private finish(kind: 'end' | 'error', body: string): void {
    if (this.closed) return;
    if (!this.abort.signal.aborted) this.publish(kind, body);
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ended();
    clearInterval(this.heartbeat);
    this.release();
    this.creditWaiter?.();
  }

  private publish(kind: FrameKind, body: string | undefined): void {
    if (this.closed) return;
    const h = natsHeaders();
    h.set(NATS_HEADER.frame, kind);
    if (kind !== 'heartbeat') h.set(NATS_HEADER.seq, String(this.seq++));
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
