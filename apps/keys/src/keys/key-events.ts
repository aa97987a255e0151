import { Injectable } from '@nestjs/common';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';

/** Tells every gateway to drop keys from its auth cache now, instead of at cache expiry. */
export abstract class KeyEvents {
  abstract revoked(ids: string[]): void;
}

/** A plain NATS publish (no queue group on the gateway side), in Nest's `{pattern, data}` format. */
@Injectable()
export class NatsKeyEvents extends KeyEvents {
  constructor(private readonly rpc: RpcClient) {
    super();
  }

  revoked(ids: string[]): void {
    if (ids.length) this.rpc.emit(KEYS.REVOKED, { ids });
  }
}

/** For tooling that runs while NATS is down: gateways then forget the key at cache expiry. */
export class NoKeyEvents extends KeyEvents {
  revoked(): void {}
}
