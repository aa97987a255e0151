import { IncomingEvent, IncomingRequest, NatsContext, ServerNats } from '@nestjs/microservices';
import { NO_MESSAGE_HANDLER } from '@nestjs/microservices/constants';
import { Msg, NatsConnection, Subscription } from 'nats';
import { isObservable } from 'rxjs';
import { finalize } from 'rxjs/operators';
import { requestSchemaOf } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { Heartbeats } from './heartbeats';

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
 */
export class SvcNatsServer extends ServerNats {
  private readonly heartbeats = new Heartbeats();
  private shared?: NatsConnection;

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
    const ctx = new NatsContext([natsMsg.subject, natsMsg.headers]);
    const message = (await this.deserializer.deserialize(natsMsg.data, { channel, replyTo: natsMsg.reply })) as IncomingRequest | IncomingEvent;
    if (!('id' in message) || message.id === undefined) return this.handleEvent(channel, message, ctx);
    const publish = this.getPublisher(natsMsg, message.id, ctx);
    const handler = this.getHandlerByPattern(channel);
    if (!handler) return publish({ id: message.id, status: 'error', err: NO_MESSAGE_HANDLER });
    const schema = requestSchemaOf(channel);
    if (schema) {
      const parsed = schema.safeParse(message.data);
      if (!parsed.success) return publish({ err: DomainError.validation(parsed.error.issues).toPayload(), isDisposed: true });
      message.data = parsed.data;
    }
    const stop = natsMsg.reply ? this.heartbeats.start(this.unwrap<NatsConnection>(), natsMsg.headers) : undefined;
    return this.onProcessingStartHook(this.transportId, ctx, async () => {
      let result: unknown;
      try {
        result = await handler(message.data, ctx);
      } catch (err) {
        stop?.();
        throw err;
      }
      if (isObservable(result)) {
        this.send(stop ? result.pipe(finalize(stop)) : result, publish);
        return;
      }
      stop?.();
      // The packet Nest's `send` publishes for a single value: {response, isDisposed, id}.
      publish({ response: result, isDisposed: true });
    });
  }

  override async close(): Promise<void> {
    this.heartbeats.stopAll();
    if (!this.shared) return super.close();
    // Stop taking requests and give those in flight the grace period; MessagingModule drains the
    // connection afterwards, once the application's shutdown hooks have run.
    for (const sub of (this as unknown as { subscriptions: Subscription[] }).subscriptions) sub.unsubscribe();
    const { gracefulShutdown, gracePeriod } = (this as unknown as { options: { gracefulShutdown?: boolean; gracePeriod?: number } }).options;
    if (gracefulShutdown && gracePeriod) await new Promise((resolve) => setTimeout(resolve, gracePeriod));
    this.statusEventEmitter.removeAllListeners();
  }
}
