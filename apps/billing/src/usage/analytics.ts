import { AnalyticsBreakdown, UsageAnalyticsReply } from '@svc/contracts';
import { toNumber } from '@svc/pricing';
import { addDays } from '../shared/periods';
import { Totals } from './usage.repository';

export const TOP = 8;

const MODEL_TYPES: Record<string, string> = {
  text: 'LLM',
  embedding: 'EMBEDDING',
  image: 'IMAGE',
  upscale: 'IMAGE',
  inpaint: 'IMAGE',
  tts: 'TTS',
  asr: 'ASR',
  video: 'VIDEO',
  music: 'MUSIC',
};

export type ModelLine = { modelName: string; modelType: string; unitType: string; lineType: string } & Totals;

const spend = (t: { usd: bigint; diem: bigint }) => t.usd + t.diem;
const byDesc = (a: bigint, b: bigint) => (a > b ? -1 : a < b ? 1 : 0);

/** Every day of the range, newest first, with zeros for quiet days. */
export function dailyTotals(firstDay: string, lastDay: string, rows: Array<{ day: string } & Totals>): UsageAnalyticsReply['byDate'] {
  const found = new Map(rows.map((r) => [r.day, r]));
  const out: UsageAnalyticsReply['byDate'] = [];
  for (let day = lastDay; day >= firstDay; day = addDays(day, -1)) {
    const r = found.get(day);
    out.push({ date: day, USD: r ? toNumber(r.usd) : 0, DIEM: r ? toNumber(r.diem) : 0 });
  }
  return out;
}

/** Per model, highest spend first, with a breakdown by line type when there is more than one. */
export function modelTotals(lines: ModelLine[]): UsageAnalyticsReply['byModel'] {
  const models = new Map<
    string,
    { modelType: string; unitType: string; usd: bigint; diem: bigint; units: number; breakdown: Array<AnalyticsBreakdown & { spend: bigint }> }
  >();
  for (const l of lines) {
    const m = models.get(l.modelName) ?? { modelType: l.modelType, unitType: l.unitType, usd: 0n, diem: 0n, units: 0, breakdown: [] };
    m.usd += l.usd;
    m.diem += l.diem;
    m.units += l.units;
    m.breakdown.push({ type: l.lineType, usd: toNumber(l.usd), diem: toNumber(l.diem), units: l.units, spend: spend(l) });
    models.set(l.modelName, m);
  }
  return [...models.entries()]
    .sort(([, a], [, b]) => byDesc(spend(a), spend(b)))
    .map(([modelName, m]) => ({
      modelName,
      unitType: m.unitType,
      modelType: MODEL_TYPES[m.modelType] ?? m.modelType.toUpperCase(),
      totalUsd: toNumber(m.usd),
      totalDiem: toNumber(m.diem),
      totalUnits: m.units,
      ...(m.breakdown.length > 1 ? { breakdown: m.breakdown.sort((a, b) => byDesc(a.spend, b.spend)).map(({ spend: _s, ...b }) => b) } : {}),
    }));
}

export function topBySpend<T extends { usd: bigint; diem: bigint }>(rows: T[], name: (row: T) => string | null): string[] {
  return [...rows]
    .sort((a, b) => byDesc(spend(a), spend(b)))
    .map(name)
    .filter((n): n is string => n !== null)
    .slice(0, TOP);
}

/** Chart rows: one per day (newest first) with `date` (ms) and one number per series. */
export function dailySeries(
  firstDay: string,
  lastDay: string,
  names: string[],
  rows: Array<{ day: string; name: string; spend: bigint }>,
): Array<Record<string, number>> {
  const out: Array<Record<string, number>> = [];
  for (let day = lastDay; day >= firstDay; day = addDays(day, -1)) {
    const entry: Record<string, number> = { date: Date.parse(`${day}T00:00:00.000Z`) };
    for (const name of names) entry[name] = 0;
    for (const r of rows) if (r.day === day) entry[r.name] = toNumber(r.spend);
    out.push(entry);
  }
  return out;
}
