import { IncomingEvent, IncomingRequest, NatsContext, ServerNats } from '@nestjs/microservices';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import { Msg, NatsConnection, Subscription } from 'nats';
import { isObservable } from 'rxjs';
import { finalize } from 'rxjs/operators';
import { requestSchemaOf } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { NATS_HEADER } from '@svc/headers';
import { startHandlerSpan } from '@svc/tracing';
import { Heartbeats } from './heartbeats';
import { inFlight } from './in-flight';

/**
 * Nest's NATS server with the per-message work its profile showed cut down (docs/architecture.md):
 * - plain subject strings skip Nest's `JSON.parse` attempt on every pattern (one exception per
 *   message);
 * - a handler that returns a value (not an Observable) is answered at once with the same packet
 *   Nest would build, without the RxJS pipeline and the `process.nextTick` hop of `Server.send`;
 * - heartbeats for callers that ask for them (RpcClient `idleTimeoutMs`) are sent from here rather
 *   than by a global interceptor: any interceptor puts every message through Nest's interceptor
 *   chain (two `AsyncResource.bind` per message, each building deprecation wrappers);
 * - with `useConnection`, the service's one NATS connection (MessagingModule's) carries the
 *   subscriptions too, so a reply and the calls a handler makes leave in one socket write.
 * It is also the contract pipe: a request whose subject has a schema in @svc/contracts
 * (`REQUEST_SCHEMAS`) is validated before its handler runs; a bad payload is answered with a
 * Validation error (400 at the gateway), never passed on.
 * Closing is graceful (docs/operations.md, "Lifecycle"): the queue subscriptions drain first, so
 * the group's other replicas take new messages, then the handlers and streams in flight get
 * `gracePeriod` (SHUTDOWN_GRACE_MS) to finish.
 */
export class SvcNatsServer extends ServerNats {
  private readonly heartbeats = new Heartbeats();
  private shared?: NatsConnection;
  private draining?: Promise<void>;

  /** Serve on this connection (owned and drained by MessagingModule) instead of opening another. */
  useConnection(nc: NatsConnection): void {
    this.shared = nc;
  }

  override getRouteFromPattern(pattern: string): string {
    return pattern.charCodeAt(0) === 123 /* { */ ? super.getRouteFromPattern(pattern) : this.normalizePattern(pattern);
  }

  override createNatsClient(): Promise<NatsConnection> {
    return this.shared ? Promise.resolve(this.shared) : (super.createNatsClient() as Promise<NatsConnection>);
  }

  override async handleMessage(channel: string, natsMsg: Msg): Promise<void> {
    // A span per message when tracing is on, the caller's span (from the headers) its parent.
    const span = startHandlerSpan(channel, natsMsg.headers, NATS_HEADER.requestId);
    const end = span ? span.ending(inFlight.begin()) : inFlight.begin();
    try {
      await (span ? span.run(() => this.serve(channel, natsMsg, end)) : this.serve(channel, natsMsg, end));
    } catch (err) {
      span?.fail(err instanceof Error ? err.name : 'error');
      end();
      throw err;
    }
  }

  /** Handles one message; `end` is called once its work is done (an Observable's, when it completes). */
  private async serve(channel: string, natsMsg: Msg, end: () => void): Promise<void> {
    const ctx = new NatsContext([natsMsg.subject, natsMsg.headers]);
    const message = (await this.deserializer.deserialize(natsMsg.data, { channel, replyTo: natsMsg.reply })) as IncomingRequest | IncomingEvent;
    if (!('id' in message) || message.id === undefined) return this.handleEvent(channel, message, ctx).finally(end);
    const publish = this.getPublisher(natsMsg, message.id, ctx);
    const handler = this.getHandlerByPattern(channel);
    if (!handler) {
      end();
      return publish({ id: message.id, status: 'error', err: NO_MESSAGE_HANDLER });
    }
    const schema = requestSchemaOf(channel);
    if (schema) {
      const parsed = schema.safeParse(message.data);
      if (!parsed.success) {
        end();
        return publish({ err: DomainError.validation(parsed.error.issues).toPayload(), isDisposed: true });
      }
      message.data = parsed.data;
    }
    const stop = natsMsg.reply ? this.heartbeats.start(this.unwrap<NatsConnection>(), natsMsg.headers) : undefined;
    return this.onProcessingStartHook(this.transportId, ctx, async () => {
      let result: unknown;
      try {
        result = await handler(message.data, ctx);
      } catch (err) {
        stop?.();
        end();
        throw err;
      }
      if (isObservable(result)) {
        this.send(
          result.pipe(
            finalize(() => {
              stop?.();
              end();
            }),
          ),
          publish,
        );
        return;
      }
      stop?.();
      end();
      // The packet Nest's `send` publishes for a single value: {response, isDisposed, id}.
      publish({ response: result, isDisposed: true });
    });
  }

  /**
   * Stops taking messages: every queue subscription drains (unsubscribes, then still handles what
   * had reached this process), so the group's other replicas take the rest. Idempotent.
   */
  stopTaking(): Promise<void> {
    const subs = (this as unknown as { subscriptions: Subscription[] }).subscriptions;
    this.draining ??= Promise.all(subs.map((sub) => (sub.isClosed() ? undefined : sub.drain().catch(() => undefined)))).then(() => undefined);
    return this.draining;
  }

  override async close(): Promise<void> {
    if (!this.shared) {
      this.heartbeats.stopAll();
      return super.close();
    }
    // Stop taking requests and give those in flight (handlers, open streams) the grace period;
    // MessagingModule drains the connection afterwards, once the shutdown hooks have run.
    await this.stopTaking();
    const { gracefulShutdown, gracePeriod } = (this as unknown as { options: { gracefulShutdown?: boolean; gracePeriod?: number } }).options;
    if (gracefulShutdown && gracePeriod) await inFlight.idle(gracePeriod);
    this.heartbeats.stopAll();
    this.statusEventEmitter.removeAllListeners();
  }
}
