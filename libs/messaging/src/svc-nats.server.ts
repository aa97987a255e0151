import { ServerNats } from '@nestjs/microservices';

/**
 * Nest's NATS server with one fix on the hot path: Nest tries `JSON.parse` on every incoming
 * pattern (for object patterns) and throws for plain subject strings, one exception per
 * message. Our subjects are plain strings (`<svc>.<kind>.<action>.v<N>`), so skip the attempt.
 */
export class SvcNatsServer extends ServerNats {
  override getRouteFromPattern(pattern: string): string {
    return pattern.charCodeAt(0) === 123 /* { */ ? super.getRouteFromPattern(pattern) : this.normalizePattern(pattern);
  }
}
