/** Where a platform process's CPU is shown; `nats-server` is the bench's private one. */
export const PLATFORM_GROUPS = ['gateway', 'chat', 'billing', 'keys', 'others', 'nats-server'] as const;
export type PlatformGroup = (typeof PLATFORM_GROUPS)[number];

/** Shared infrastructure, shown on lines of its own and not in the platform's total. */
export const INFRA_GROUPS = ['postgres-bench', 'postgres-shared', 'redis'] as const;
export type InfraGroup = (typeof INFRA_GROUPS)[number];

export type CpuGroup = PlatformGroup | InfraGroup | 'portkey' | 'upstream';
export type CpuByGroup = Partial<Record<CpuGroup, number>>;

/** `label` is proc-cpu's processLabel: the app a process runs (`gateway`, `chat`, ...) or its command. */
export function platformGroup(label: string): PlatformGroup {
  return label === 'gateway' || label === 'chat' || label === 'billing' || label === 'keys' ? label : 'others';
}

/**
 * A postgres process by its command line (the title Postgres sets): a backend of one of the bench's
 * `databases`, a server-wide helper (postmaster, WAL writer, checkpointer, autovacuum, ...), or a
 * backend of someone else's database (undefined: not counted).
 */
export function postgresGroup(cmdline: string, databases: string[]): 'postgres-bench' | 'postgres-shared' | undefined {
  if (databases.some((db) => cmdline.includes(` ${db} `))) return 'postgres-bench';
  // Client backends read "postgres: 15/main: <user> <database> <host>(<port>) <state>" or "... [local] ...".
  if (/\(\d+\)|\[local\]/.test(cmdline)) return undefined;
  return 'postgres-shared';
}

/** Everything the platform runs, its private nats-server included. */
export function platformTotal(cpu: CpuByGroup): number {
  return PLATFORM_GROUPS.reduce((sum, group) => sum + (cpu[group] ?? 0), 0);
}
