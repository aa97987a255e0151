/** The NATS-connected services behind the gateway. Each subscribes in a queue group of its name. */
export const SERVICE_NAMES = ['chat', 'media', 'audio', 'billing', 'keys', 'wallet'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Context every request carries from the gateway into a service (also sent as NATS headers). */
export interface CallerContext {
  requestId: string;
  accountId: string;
  apiKeyId: string;
}
