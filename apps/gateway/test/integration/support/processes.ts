// The process helper moved to @svc/testing; this path stays for the benches that load it by path.
export { startService } from '@svc/testing';
export type { ServiceProcess } from '@svc/testing';
