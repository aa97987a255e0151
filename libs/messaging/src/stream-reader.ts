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
  /** The rest of a batched message's chunks (`svc-count`), handed out one by one before the next message. */
  private parts: Uint8Array[] = [];
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
    if (this.parts.length > 0) return this.nextPart();
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
    if (this.parts.length > 0) return this.nextPart();
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
    switch (kind) {
      case 'chunk': {
        const count = Number(msg.headers?.get(NATS_HEADER.count) || 1);
        if (count === 1) {
          this.expectedSeq++;
          return { kind, seq, body: msg.data };
        }
        const parts = splitLines(msg.data);
        if (parts.length !== count) return this.fail(ErrorCode.Internal, 'The stream was interrupted: a malformed frame.');
        this.parts = parts;
        return this.nextPart();
      }
      case 'end':
        this.expectedSeq++;
        this.close();
        return { kind, seq, body: msg.data };
      case 'error':
        this.expectedSeq++;
        this.close();
        return { kind, seq, error: decodeJson<ErrorPayload>(msg.data) };
      default:
        return this.fail(ErrorCode.Internal, 'The stream was interrupted: unknown frame.');
    }
  }

  /** The next chunk of a batched message: numbered on from the message's `svc-seq`. */
  private nextPart(): Frame {
    this.maybeAck();
    return { kind: 'chunk', seq: this.expectedSeq++, body: this.parts.shift() as Uint8Array };
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
    this.parts = [];
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

/** A batched message's chunks: its bytes split at each newline (views, not copies). */
function splitLines(data: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, start)) {
    parts.push(data.subarray(start, i));
    start = i + 1;
  }
  parts.push(data.subarray(start));
  return parts;
}
