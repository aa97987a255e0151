import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import { headers as natsHeaders, NatsConnection } from 'nats';
import { finalize, Observable } from 'rxjs';
import { NATS_HEADER } from '@svc/headers';

/**
 * While a handler works on a request that asked for heartbeats (RpcClient `idleTimeoutMs`),
 * publishes one to the caller every interval, so the caller can tell "slow" from "dead".
 */
@Injectable()
export class HeartbeatInterceptor implements NestInterceptor {
  constructor(private readonly nc: NatsConnection) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const ctx = context.switchToRpc().getContext<NatsContext | undefined>();
    const h = ctx?.getHeaders?.();
    const to = h?.get(NATS_HEADER.heartbeatTo);
    const every = Number(h?.get(NATS_HEADER.heartbeatMs));
    if (!to || !(every > 0)) return next.handle();
    const beat = natsHeaders();
    beat.set(NATS_HEADER.frame, 'heartbeat');
    const timer = setInterval(() => {
      if (this.nc.isClosed()) return clearInterval(timer);
      try {
        this.nc.publish(to, undefined, { headers: beat });
      } catch {
        clearInterval(timer); // connection draining: the caller's idle timeout takes over
      }
    }, every);
    return next.handle().pipe(finalize(() => clearInterval(timer)));
  }
}
