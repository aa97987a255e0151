import { ModelPricing, Price } from '../../api/types';

const UNITS: Record<string, string> = {
  input: 'per 1M input tokens',
  output: 'per 1M output tokens',
  cache_input: 'per 1M cached input tokens',
  cache_write: 'per 1M cache-write tokens',
  generation: 'per image',
  inpaint: 'per edit',
  per_request: 'per request',
  per_audio_second: 'per audio second',
  per_thousand_characters: 'per 1,000 characters',
  per_second: 'per second',
  web_search: 'per web search',
  web_scrape: 'per scraped page',
};

const isPrice = (v: unknown): v is Price => !!v && typeof v === 'object' && typeof (v as Price).usd === 'number';

/** "0.01 USD per 1M input tokens", one line per priced unit (tiers named by their key). */
export function priceLines(pricing: ModelPricing): string[] {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(pricing)) {
    if (isPrice(value)) lines.push(`${value.usd} USD ${UNITS[name] ?? name}`);
    else if (value && typeof value === 'object') {
      for (const [tier, inner] of Object.entries(value)) if (isPrice(inner)) lines.push(`${inner.usd} USD ${name} ${tier}`);
    }
  }
  return lines;
}

/** The capabilities a model has ("supportsVision" -> "vision"), true ones only. */
export function capabilityNames(capabilities: Record<string, unknown> | undefined): string[] {
  return Object.entries(capabilities ?? {})
    .filter(([, on]) => on === true)
    .map(([name]) => name.replace(/^supports/, '').replace(/^optimizedFor/, 'for ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().trim());
}
