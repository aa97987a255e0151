import { createInbox, headers as natsHeaders, Msg, NatsConnection, Subscription } from 'nats';
import { EventMap, EventSubject, RpcReply, RpcRequest, RpcSubject } from '@svc/contracts';
import { DomainError, ErrorCode, isErrorPayload } from '@svc/errors';
import { NATS_HEADER } from '@svc/headers';
import { injectActiveContext, RpcSpan, startRpcSpan } from '@svc/tracing';
import { decodeJson, encodeJson, NestReplyPacket } from './wire';

export interface CallOptions {
  requestId?: string;
  /** Overall deadline (504 after it). */
  timeoutMs?: number;
  /**
   * For long calls: the service sends a heartbeat every `idleTimeoutMs / 4`, and the call fails
   * with 503 after `idleTimeoutMs` without one, so a service that dies mid-call is noticed in
   * seconds while a healthy slow one may take up to `timeoutMs`.
   */
  idleTimeoutMs?: number;
  /**
   * With `idleTimeoutMs`: a call that got not one heartbeat in that time was most likely never
   * taken (NATS routed it to a replica that had just died, before the server noticed its closed
   * socket), so it is sent once more, to whichever replica takes it, instead of failing. Only for
   * calls that are safe to run twice: inference whose money is settled once per reservation id.
   */
  resendUntaken?: boolean;
}

export type RpcOutcome = 'ok' | 'error' | 'timeout' | 'unavailable';

/**
 * Told each call's round trip (from `send` to its reply or failure), e.g. the gateway's metrics.
 * Injected at construction, never global; without one a call pays nothing for it.
 */
export interface RpcObserver {
  observe(subject: string, seconds: number, outcome: RpcOutcome): void;
}

interface Pending {
  subject: string;
  resolve(msg: Msg): void;
  reject(err: DomainError): void;
  timer: NodeJS.Timeout;
  idle?: { ms: number; timer: NodeJS.Timeout; beats: number; resent?: boolean };
  /** Set while the connection is down: the call waits to be published on reconnect. */
  parked?: () => void;
  /** Sends it (again): "no responders" right after a reconnect may only mean the service has not subscribed again yet. */
  resend?: () => void;
}

const NO_RESPONDERS = 503;
/** After a reconnect (or a cluster server leaving), services subscribe again within about this long (they reconnect every 0.5 s). */
const RESUBSCRIBE_GRACE_MS = 2_000;
const RESEND_AFTER_MS = 100;
/** Events emitted while disconnected are sent on reconnect, up to this many (then dropped, as nats.js would). */
const MAX_PARKED_EVENTS = 10_000;

/**
 * The one way to call a service: typed subjects, request ids in headers, errors as DomainError.
 *
 * Replies arrive on one wildcard inbox subscription and are matched by token. (nats.js's own
 * `request()` does the same, but allocates several Error objects per call, which showed up in
 * the gateway's profile at thousands of requests per second.)
 *
 * While the NATS connection is down (a NATS restart), nats.js drops what is published, so a call
 * would wait out its whole timeout and, with its reply lost, so would every call after it that
 * shares its result (a key verification). Instead, a call made while disconnected is held and
 * published on reconnect (within its own timeout), and a call in flight when the connection
 * drops fails at once unless it has heartbeats (`idleTimeoutMs`): its reply, if the service sent
 * it meanwhile, is lost, while a long call with heartbeats may still be answered after the
 * reconnect, and its idle timer tells otherwise. A call that finds no responder in the first 2 s
 * after a reconnect is sent again every 100 ms: its service may not have subscribed again yet,
 * and "no responders" means nobody got it. The same holds in the 2 s after a server of a NATS
 * cluster left it (the server announces the change): every replica of a service may have been on
 * that server and be subscribing again on another one, while this connection never dropped.
 */
export class RpcClient {
  private readonly inbox = createInbox();
  private readonly pending = new Map<string, Pending>();
  private readonly sub: Subscription;
  private sequence = 0;
  private connected = true;
  private parkedEvents: (() => void)[] = [];
  /** When the last reconnect, or change of the cluster's servers, happened: "no responders" may be momentary for a while after. */
  private resubscribingSince = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly defaultTimeoutMs: number,
    /**
     * A call that may take longer than this and names no `idleTimeoutMs` gets this one: a service
     * that dies holding it is noticed in this time, not at its (maybe minutes long) timeout.
     */
    private readonly longCallIdleMs?: number,
    private readonly observer?: RpcObserver,
  ) {
    this.sub = nc.subscribe(`${this.inbox}.*`, { callback: (_err, msg) => this.onReply(msg) });
    void this.watchConnection();
  }

  send<S extends RpcSubject>(subject: S, data: RpcRequest<S>, options: CallOptions = {}): Promise<RpcReply<S>> {
    // With tracing off (the default), startRpcSpan is one branch and returns nothing.
    const span = startRpcSpan(subject, options.requestId);
    if (!this.observer && !span) return this.call(subject, data, options);
    return this.observed(subject, data, options, span);
  }

  private async observed<S extends RpcSubject>(subject: S, data: RpcRequest<S>, options: CallOptions, span: RpcSpan | undefined): Promise<RpcReply<S>> {
    const startedAt = performance.now();
    try {
      const reply = await this.call(subject, data, options, span);
      this.observer?.observe(subject, (performance.now() - startedAt) / 1000, 'ok');
      span?.end();
      return reply;
    } catch (err) {
      const outcome = outcomeOf(err);
      this.observer?.observe(subject, (performance.now() - startedAt) / 1000, outcome);
      span?.end(outcome);
      throw err;
    }
  }

  private async call<S extends RpcSubject>(subject: S, data: RpcRequest<S>, options: CallOptions, span?: RpcSpan): Promise<RpcReply<S>> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const idleTimeoutMs = options.idleTimeoutMs ?? (this.longCallIdleMs && timeoutMs > this.longCallIdleMs ? this.longCallIdleMs : undefined);
    const token = (++this.sequence).toString(36);
    const replyTo = `${this.inbox}.${token}`;
    const h = natsHeaders();
    if (options.requestId) h.set(NATS_HEADER.requestId, options.requestId);
    span?.inject(h);
    if (idleTimeoutMs) {
      h.set(NATS_HEADER.heartbeatTo, replyTo);
      h.set(NATS_HEADER.heartbeatMs, String(Math.max(50, Math.floor(idleTimeoutMs / 4))));
    }
    const payload = encodeJson({ pattern: subject, data, id: token });
    const msg = await new Promise<Msg>((resolve, reject) => {
      const fail = (err: DomainError) => {
        const pending = this.pending.get(token);
        if (!pending) return;
        this.forget(token, pending);
        reject(err);
      };
      const timer = setTimeout(
        () =>
          fail(
            this.pending.get(token)?.parked
              ? busUnavailable() // never sent: the connection stayed down
              : new DomainError(ErrorCode.Timeout, `The ${serviceOf(subject)} service did not answer in time.`),
          ),
        timeoutMs,
      );
      const pending: Pending = { subject, resolve, reject, timer };
      if (idleTimeoutMs) {
        const idle: NonNullable<Pending['idle']> = {
          ms: idleTimeoutMs,
          beats: 0,
          timer: setTimeout(() => {
            // Timers run before the socket is read: after a stall of this process (a busy machine),
            // the heartbeat that kept the call alive may be waiting unread. Decide once it is read.
            const beats = idle.beats;
            setImmediate(() => {
              if (idle.beats !== beats || this.pending.get(token) !== pending) return;
              if (pending.parked) return fail(busUnavailable());
              if (beats === 0 && options.resendUntaken && !idle.resent) {
                idle.resent = true;
                return publish();
              }
              fail(stoppedResponding(subject));
            });
          }, idleTimeoutMs),
        };
        pending.idle = idle;
      }
      this.pending.set(token, pending);
      const publish = () => {
        pending.parked = undefined;
        pending.idle?.timer.refresh(); // the service's heartbeats start now
        try {
          this.nc.publish(subject, payload, { reply: replyTo, headers: h });
        } catch {
          fail(busUnavailable());
        }
      };
      if (this.connected) publish();
      else pending.parked = publish;
      pending.resend = publish;
    });
    const reply = decodeJson<NestReplyPacket<RpcReply<S>>>(msg.data);
    if (reply.err !== undefined && reply.err !== null) {
      throw isErrorPayload(reply.err) ? DomainError.fromPayload(reply.err) : new DomainError(ErrorCode.Internal, 'Internal server error');
    }
    return reply.response as RpcReply<S>;
  }

  emit<S extends EventSubject>(subject: S, data: EventMap[S], options: { requestId?: string } = {}): void {
    const h = natsHeaders();
    if (options.requestId) h.set(NATS_HEADER.requestId, options.requestId);
    injectActiveContext(h);
    const payload = encodeJson({ pattern: subject, data });
    const publish = () => this.nc.publish(subject, payload, { headers: h });
    if (this.connected) publish();
    else if (this.parkedEvents.length < MAX_PARKED_EVENTS) this.parkedEvents.push(publish);
  }

  /** Fails every call still waiting (e.g. at shutdown). */
  close(): void {
    this.sub.unsubscribe();
    for (const [token, pending] of this.pending) {
      this.forget(token, pending);
      pending.reject(new DomainError(ErrorCode.ServiceUnavailable, 'The message bus connection closed.'));
    }
  }

  private async watchConnection(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') this.onDisconnect();
      else if (status.type === 'reconnect') this.onReconnect();
      // An INFO naming the cluster's servers anew: one joined or left (a dead server's clients reconnect elsewhere).
      else if (status.type === 'update') this.resubscribingSince = Date.now();
    }
  }

  private onDisconnect(): void {
    this.connected = false;
    for (const [token, pending] of this.pending) {
      if (pending.parked || pending.idle) continue;
      this.forget(token, pending);
      pending.reject(new DomainError(ErrorCode.ServiceUnavailable, 'The message bus connection was lost. Try again shortly.'));
    }
  }

  private onReconnect(): void {
    this.connected = true;
    this.resubscribingSince = Date.now();
    for (const pending of [...this.pending.values()]) pending.parked?.();
    const events = this.parkedEvents;
    this.parkedEvents = [];
    for (const publish of events) publish();
  }

  private forget(token: string, pending: Pending): void {
    this.pending.delete(token);
    clearTimeout(pending.timer);
    if (pending.idle) clearTimeout(pending.idle.timer);
  }

  private onReply(msg: Msg): void {
    const token = msg.subject.slice(this.inbox.length + 1);
    const pending = this.pending.get(token);
    if (!pending) return;
    if (msg.headers?.get(NATS_HEADER.frame) === 'heartbeat') {
      if (pending.idle) {
        pending.idle.beats++;
        pending.idle.timer.refresh();
      }
      return;
    }
    if (msg.headers?.code === NO_RESPONDERS && pending.resend && Date.now() - this.resubscribingSince < RESUBSCRIBE_GRACE_MS) {
      // Nobody took it: nothing was delivered, so it may go again (within its own timeout).
      const resend = pending.resend;
      setTimeout(() => this.pending.get(token) === pending && resend(), RESEND_AFTER_MS);
      return;
    }
    this.forget(token, pending);
    if (msg.headers?.code === NO_RESPONDERS) {
      pending.reject(new DomainError(ErrorCode.ServiceUnavailable, `The ${serviceOf(pending.subject)} service is unavailable. Try again shortly.`));
    } else {
      pending.resolve(msg);
    }
  }
}

function outcomeOf(err: unknown): RpcOutcome {
  if (err instanceof DomainError && err.code === ErrorCode.Timeout) return 'timeout';
  if (err instanceof DomainError && err.code === ErrorCode.ServiceUnavailable) return 'unavailable';
  return 'error';
}

function busUnavailable(): DomainError {
  return new DomainError(ErrorCode.ServiceUnavailable, 'The message bus is unavailable. Try again shortly.');
}

function stoppedResponding(subject: string): DomainError {
  return new DomainError(ErrorCode.ServiceUnavailable, `The ${serviceOf(subject)} service stopped responding. Try again.`);
}

function serviceOf(subject: string): string {
  return subject.slice(0, subject.indexOf('.'));
}
