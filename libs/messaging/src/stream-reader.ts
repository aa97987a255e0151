import { Msg, NatsConnection } from 'nats';
import { FrameKind, StreamOpenReply } from '@svc/contracts';
import { DomainError, ErrorCode, ErrorPayload } from '@svc/errors';
import { NATS_HEADER } from '@svc/headers';
import { InboxMux } from './inbox-mux';
import { decodeJson, encodeJson } from './wire';

export type Frame =
  { kind: 'chunk'; seq: number; body: Uint8Array } | { kind: 'end'; seq: number; body: Uint8Array } | { kind: 'error'; seq: number; error: ErrorPayload };

export interface StreamReaderOptions {
  window: number;
  /** No frame (not even a heartbeat) for this long means the producing service died. */
  idleTimeoutMs: number;
}

/**
 * The consuming side of the token-stream protocol. Pull frames with `next()`; pulling the next
 * frame acknowledges the previous one, so a slow HTTP client slows the producer down.
 */
export class StreamReader {
  /** Where the producer publishes this stream's frames (a subject of the connection's InboxMux). */
  readonly inbox: string;
  private readonly release: () => void;
  private readonly queue: Msg[] = [];
  private wake: (() => void) | null = null;
  private control: string | null = null;
  private expectedSeq = 0;
  private lastAckSent = -1;
  private lastFrameAt = Date.now();
  private done = false;
  private readonly ackEvery: number;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: StreamReaderOptions,
  ) {
    this.ackEvery = Math.max(1, Math.floor(options.window / 4));
    ({ subject: this.inbox, release: this.release } = InboxMux.of(nc).open((msg) => {
      this.lastFrameAt = Date.now();
      if (msg.headers?.get(NATS_HEADER.frame) === 'heartbeat') return;
      this.queue.push(msg);
      this.wake?.();
    }));
  }

  /**
   * Call with the service's reply to the open request. The reply is a sign of life: the idle
   * clock starts again here, so an open that took a resend (a replica that died holding the
   * first send) is not counted against the stream that follows.
   */
  attach(reply: StreamOpenReply): void {
    this.control = reply.control;
    this.lastFrameAt = Date.now();
  }

  async next(): Promise<Frame> {
    if (this.done && this.queue.length === 0)
      return { kind: 'error', seq: this.expectedSeq, error: { code: ErrorCode.Internal, message: 'The stream was closed.' } };
    this.maybeAck();
    while (this.queue.length === 0) {
      if (this.done) return { kind: 'error', seq: this.expectedSeq, error: { code: ErrorCode.Internal, message: 'The stream was closed.' } };
      const idle = Date.now() - this.lastFrameAt;
      if (idle >= this.options.idleTimeoutMs) return this.fail(ErrorCode.ServiceUnavailable, 'The stream was interrupted: the service stopped responding.');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.idleTimeoutMs - idle);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
      });
    }
    return this.shift();
  }

  /**
   * The next frame if it has already arrived, else undefined (no wait): a relay writes every
   * frame that is already here in one socket write instead of one write each.
   */
  take(): Frame | undefined {
    if (this.queue.length === 0) return undefined;
    this.maybeAck();
    return this.shift();
  }

  private shift(): Frame {
    const msg = this.queue.shift() as Msg;
    const kind = msg.headers?.get(NATS_HEADER.frame) as FrameKind | undefined;
    const seq = Number(msg.headers?.get(NATS_HEADER.seq));
    // Lost in transit (a NATS server of a cluster died between the two ends): the bus failed, not
    // the request, so it is a 503 the client may retry, like a service that stopped responding.
    if (seq !== this.expectedSeq) return this.fail(ErrorCode.ServiceUnavailable, 'The stream was interrupted: frames were lost. Try again.');
    this.expectedSeq++;
    switch (kind) {
      case 'chunk':
        return { kind, seq, body: msg.data };
      case 'end':
        this.close();
        return { kind, seq, body: msg.data };
      case 'error':
        this.close();
        return { kind, seq, error: decodeJson<ErrorPayload>(msg.data) };
      default:
        return this.fail(ErrorCode.Internal, 'The stream was interrupted: unknown frame.');
    }
  }

  /** The HTTP client went away: tell the producer to stop, and stop listening. */
  cancel(): void {
    if (this.done) return;
    if (this.control) this.nc.publish(this.control, encodeJson({ t: 'cancel' }));
    this.close();
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.release();
    this.wake?.();
  }

  private maybeAck(): void {
    const consumed = this.expectedSeq - 1;
    if (!this.control || consumed - this.lastAckSent < this.ackEvery) return;
    this.lastAckSent = consumed;
    this.nc.publish(this.control, encodeJson({ t: 'ack', seq: consumed }));
  }

  private fail(code: ErrorCode, message: string): Frame {
    const error = new DomainError(code, message).toPayload();
    if (this.control) this.nc.publish(this.control, encodeJson({ t: 'cancel' }));
    this.close();
    return { kind: 'error', seq: this.expectedSeq, error };
  }
}
