import { createInbox, Msg, NatsConnection } from 'nats';

/**
 * One wildcard subscription per connection (`<inbox>.*`) for every stream's frames or controls,
 * routed to each stream by the subject's last token. A subscription per stream would send SUB and
 * UNSUB for every request, each a socket write here and a change to nats-server's subscription
 * table (which drops its cache of subject matches); a subject of the mux costs neither.
 */
export class InboxMux {
  private readonly prefix = createInbox();
  private readonly handlers = new Map<string, (msg: Msg) => void>();
  private next = 0;

  private constructor(nc: NatsConnection) {
    const start = this.prefix.length + 1;
    nc.subscribe(`${this.prefix}.*`, { callback: (_err, msg) => this.handlers.get(msg.subject.slice(start))?.(msg) });
  }

  /** The connection's mux, made on first use; it lives as long as the connection. */
  static of(nc: NatsConnection): InboxMux {
    let mux = MUXES.get(nc);
    if (!mux) MUXES.set(nc, (mux = new InboxMux(nc)));
    return mux;
  }

  /** A subject of its own whose messages go to `handler` until `release` (later ones are dropped). */
  open(handler: (msg: Msg) => void): { subject: string; release: () => void } {
    const id = (this.next++).toString(36);
    this.handlers.set(id, handler);
    return { subject: `${this.prefix}.${id}`, release: () => this.handlers.delete(id) };
  }
}

const MUXES = new WeakMap<NatsConnection, InboxMux>();
