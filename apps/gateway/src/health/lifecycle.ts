import { Injectable } from '@nestjs/common';

/** The gateway's own state for its probes: draining from the first SIGTERM (main.ts). */
@Injectable()
export class GatewayLifecycle {
  draining = false;
}
