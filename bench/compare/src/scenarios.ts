/** A system under load: the fake upstream alone, this platform in front of it, or Portkey in front of it. */
export type System = 'direct' | 'platform' | 'portkey';

export interface Scenario {
  name: string;
  connections: number;
  stream: boolean;
  /** Accounts (one key each) the requests are spread over, round-robin. */
  accounts: number;
}

export function scenarioName(connections: number, stream: boolean, accounts: number): string {
  return `${stream ? 'stream' : 'non-stream'} ${connections} conn ${accounts} acct`;
}

/** 1 and `connections` connections, non-streaming and streaming, one hot account and `accounts` accounts. */
export function scenarios(connections: number, accounts: number): Scenario[] {
  const list: Scenario[] = [];
  for (const stream of [false, true]) {
    for (const c of [1, connections]) {
      for (const a of [1, accounts]) list.push({ name: scenarioName(c, stream, a), connections: c, stream, accounts: a });
    }
  }
  return list;
}

/** The fake upstream has no accounts, so its baseline is measured once per mode and connection count, with the one-account scenario. */
export const hasDirectRun = (scenario: Scenario): boolean => scenario.accounts === 1;

/** The scenario whose direct run is the baseline of `scenario` (same mode and connections). */
export function baselineName(scenario: Scenario): string {
  return scenarioName(scenario.connections, scenario.stream, 1);
}

/**
 * The systems in the order they are loaded in scenario `index`: the direct baseline first, then the
 * platform and Portkey in ABBA order (platform first in scenarios 0, 3, 4, 7, ...), so that drift
 * in the machine's load hits both alike.
 */
export function runOrder(scenario: Scenario, index: number): System[] {
  const pair: System[] = index % 4 === 0 || index % 4 === 3 ? ['platform', 'portkey'] : ['portkey', 'platform'];
  return hasDirectRun(scenario) ? ['direct', ...pair] : pair;
}
