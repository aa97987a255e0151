/**
 * Token-stream protocol over NATS (see docs/streaming-protocol.md).
 *
 * 1. The caller listens on a fresh inbox (a subject of its connection's InboxMux), then sends a `*.stream.*` request carrying
 *    `StreamOpenRequest`. The service validates, replies `StreamOpenReply` and starts producing.
 * 2. The service publishes frames to the inbox. The frame kind and sequence number travel in NATS
 *    headers (`svc-frame`, `svc-seq`; `svc-count` on a batch of several chunks, where the open request
 *    allowed batches); the body is the payload bytes (a JSON chunk for `chunk`, newline-separated ones for a batch,
 *    JSON `StreamEnd` for `end`, JSON `ErrorPayload` for `error`, empty for `heartbeat`).
 *    `chunk`, `end` and `error` are numbered 0, 1, 2, ... with no gaps; `end` or `error` is last.
 * 3. The caller grants credit by publishing `{"t":"ack","seq":n}` to `control`: the service may
 *    publish chunks up to `n + window`. It publishes `{"t":"cancel"}` to stop generation early.
 * 4. The service sends a heartbeat after `heartbeatMs` without frames; the caller treats
 *    `idleTimeoutMs` without any frame as the service having died. The service aborts when it
 *    has waited `ackTimeoutMs` for credit (the caller died or its client stopped reading).
 */
export type FrameKind = 'chunk' | 'end' | 'error' | 'heartbeat';

export interface StreamOpenRequest {
  inbox: string;
  window: number;
  /** The reader takes several chunks in one message (`svc-count`); without it, every chunk is its own message. */
  batch?: boolean;
}

export interface StreamOpenReply {
  streamId: string;
  control: string;
  heartbeatMs: number;
}

export type ControlMessage = { t: 'ack'; seq: number } | { t: 'cancel' };

export interface StreamEnd {
  /** Usage of the whole stream, for metering. Counts only. */
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  finishReason: string;
}
