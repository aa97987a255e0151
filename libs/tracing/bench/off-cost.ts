/**
 * What tracing costs on the hot path when it is off (no OTEL_EXPORTER_OTLP_ENDPOINT): the calls a
 * gateway request and its service handlers make into @svc/tracing, in a loop, against the same
 * loop without them, in one process. Prints nanoseconds per request.
 *
 *   node -r ./apps/gateway/test/integration/support/register-ts.js libs/tracing/bench/off-cost.ts
 *
 * One chat request makes three NATS calls (key check, chat, settle; reserve rides the lease), so
 * three startRpcSpan + three startHandlerSpan + one traceEngine per "request" below.
 */
import { headers as natsHeaders } from 'nats';
import { startHandlerSpan, startRpcSpan, traceEngine, TRACING } from '../src';

const ROUNDS = 5;
const REQUESTS = 1_000_000;
const headers = natsHeaders();
headers.set('svc-request-id', 'abc');
const done = Promise.resolve(1);
const engineCall = () => done;
let sink = 0;

function withHooks(): void {
  for (let i = 0; i < 3; i++) {
    const client = startRpcSpan('chat.cmd.complete.v1', 'abc');
    const handler = startHandlerSpan('chat.cmd.complete.v1', headers, 'svc-request-id');
    if (client || handler) sink++;
  }
  void traceEngine('model', 'upstream', engineCall);
}

function without(): void {
  for (let i = 0; i < 3; i++) sink++;
  void engineCall();
}

function cpuNsPerRequest(fn: () => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) fn();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / REQUESTS;
}

if (TRACING.on) throw new Error('tracing must be off for this measurement');
for (let i = 0; i < 200_000; i++) {
  withHooks();
  without();
}
const rows: { round: number; without: number; withHooks: number }[] = [];
for (let round = 1; round <= ROUNDS; round++) rows.push({ round, without: cpuNsPerRequest(without), withHooks: cpuNsPerRequest(withHooks) });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const r of rows)
  process.stdout.write(`round ${r.round}: without ${r.without.toFixed(1)} ns, with the off hooks ${r.withHooks.toFixed(1)} ns per request\n`);
const added = median(rows.map((r) => r.withHooks)) - median(rows.map((r) => r.without));
process.stdout.write(`median added: ${added.toFixed(1)} ns per request (sink ${sink > 0})\n`);
