import { headers as natsHeaders, MsgHdrs, NatsConnection } from 'nats';
import { NATS_HEADER } from '@svc/headers';

const BEAT = natsHeaders();
BEAT.set(NATS_HEADER.frame, 'heartbeat');

/**
 * While a service works on a request that asked for heartbeats (RpcClient `idleTimeoutMs`), one
 * goes to the caller every interval, so the caller can tell "slow" from "dead". Timers of calls
 * still running stop all at once when the server closes.
 */
export class Heartbeats {
  private readonly timers = new Set<NodeJS.Timeout>();

  /** Starts beating when the request's headers ask for it; returns the stop function, or undefined. */
  start(nc: NatsConnection, headers: MsgHdrs | undefined): (() => void) | undefined {
    const to = headers?.get(NATS_HEADER.heartbeatTo);
    const every = Number(headers?.get(NATS_HEADER.heartbeatMs));
    if (!to || !(every > 0)) return undefined;
    const timer = setInterval(() => {
      if (nc.isClosed()) return stop();
      try {
        nc.publish(to, undefined, { headers: BEAT });
      } catch {
        stop(); // connection draining: the caller's idle timeout takes over
      }
    }, every);
    const stop = () => {
      clearInterval(timer);
      this.timers.delete(timer);
    };
    this.timers.add(timer);
    return stop;
  }

  stopAll(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
  }
}
