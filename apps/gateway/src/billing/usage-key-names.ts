import { UsageAnalyticsReply } from '@svc/contracts';

/** The public shape: keys by description (deleted keys say so), charts keyed by those names. */
export function withKeyNames(a: UsageAnalyticsReply, descriptions: Map<string, string>) {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const nameOf = (id: string | null): string => {
    if (id === null) return 'Unknown key';
    let name = names.get(id);
    if (name) return name;
    name = descriptions.get(id) || `Deleted key ${id.slice(0, 8)}`;
    if (taken.has(name)) name = `${name} (${id.slice(0, 8)})`;
    taken.add(name);
    names.set(id, name);
    return name;
  };
  const { topKeyIds, byKeyDaily, byKey, ...rest } = a;
  return Object.assign({}, rest, {
    byKey: byKey.map((k) => ({
      apiKeyId: k.apiKeyId,
      description: nameOf(k.apiKeyId),
      totalUsd: k.totalUsd,
      totalDiem: k.totalDiem,
      totalUnits: k.totalUnits,
    })),
    byKeyDaily: byKeyDaily.map((day) => Object.fromEntries(Object.entries(day).map(([k, v]) => [k === 'date' ? k : nameOf(k), v]))),
    topKeyNames: topKeyIds.map(nameOf),
  });
}
