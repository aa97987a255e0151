// The harness of bench/gateway-overhead (helper processes, /proc accounting, autocannon and
// streaming measurement), shared instead of copied. Bench projects have no path alias and one
// type:bench project may not import another, so this file is the one exception to the module
// boundaries; moving these modules into @svc/testing would remove it.
/* eslint-disable @nx/enforce-module-boundaries */
export { freePort, repoRoot, sleep, startFakeUpstream, startPrivateNats, stopChild } from '../../gateway-overhead/src/helper-processes';
export type { Helper } from '../../gateway-overhead/src/helper-processes';
export { runLoad } from '../../gateway-overhead/src/load';
export type { LoadResult, Target } from '../../gateway-overhead/src/load';
export type { LatencySummary } from '../../gateway-overhead/src/percentiles';
export { startPlatform } from '../../gateway-overhead/src/platform';
export { clockTicksPerSecond, processLabel, processTree, readAllStats } from '../../gateway-overhead/src/proc-cpu';
export type { ProcStat } from '../../gateway-overhead/src/proc-cpu';
export { measureStreaming } from '../../gateway-overhead/src/stream-ttfb';
export type { StreamResult } from '../../gateway-overhead/src/stream-ttfb';
