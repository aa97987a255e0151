import { ServiceName } from '../services';

export type HealthSubject = `${ServiceName}.cmd.health.v1`;
export const healthSubject = (service: ServiceName): HealthSubject => `${service}.cmd.health.v1`;

export type HealthRequest = Record<string, never>;

export interface HealthReply {
  service: ServiceName;
  status: 'ok' | 'degraded';
  version: string;
  uptimeSeconds: number;
  /** Per-dependency checks, e.g. `{ database: 'ok', engines: 'ok' }`. */
  checks: Record<string, string>;
}
