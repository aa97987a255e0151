// The usage types are wire contracts (they cross NATS at reservation and settlement).
export type { BillableUsage, BillableUsageKind, SettledUsage, TextUsage } from '@svc/contracts';
