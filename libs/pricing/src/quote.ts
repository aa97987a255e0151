import { addAmounts, Amounts, amountOf, divCeil, zeroAmounts } from './money';
import { ModelPricing, Price, QualityTier } from './pricing.schema';
import { BillableUsage, TextUsage } from './usage';
import { UnitType } from './unit-type';
import { videoLines } from './video-lines';

export type { UnitType } from './unit-type';

/** One priced part of a request: what the usage history shows as one row. */
export interface QuoteLine {
  /** 'Input', 'Output', 'Cache Read', 'Cache Write', 'Image', 'Edit', ... */
  type: string;
  /** `<model id>-<what>-<unit>`, e.g. `svc-tiny-random-llm-output-mtoken`. */
  sku: string;
  unitType: UnitType;
  /** Base units consumed: tokens, images, characters, milliseconds of audio, seconds, credits. */
  quantity: number;
  /** Base units in one priced unit: 1,000,000 tokens per `mtoken`, 1,000 ms per audio second, 1 per image. */
  perSkuUnit: number;
  /** Nano-units per priced unit. */
  unitPrice: Amounts;
  /** Nano-units, rounded up per line. */
  amount: Amounts;
}

export interface Quote {
  lines: QuoteLine[];
  total: Amounts;
}

export class PricingError extends Error {
  override name = 'PricingError';
}

const MTOKEN = 1_000_000;
const DEFAULT_QUALITY: QualityTier = 'high';

/**
 * The one place prices are computed: the worst case reserved at admission, the actual cost at
 * settlement, the `cost` of a response and (later) the video quote all come from here.
 * Each line is rounded up to the nano-unit; a line of zero units is left out.
 */
export function quote(modelId: string, pricing: ModelPricing, usage: BillableUsage): Quote {
  const lines = linesOf(modelId, pricing, usage).filter((l) => l.quantity > 0);
  return { lines, total: lines.reduce((sum, l) => addAmounts(sum, l.amount), zeroAmounts()) };
}

function linesOf(model: string, p: ModelPricing, usage: BillableUsage): QuoteLine[] {
  const mk = (type: string, what: string, unitType: UnitType, quantity: number, perSkuUnit: number, price: Price | undefined, field: string) =>
    priced(model, type, what, unitType, quantity, perSkuUnit, need(model, price, field));
  switch (usage.kind) {
    case 'text':
      return textLines(model, p, usage);
    case 'embedding':
      return [mk('Input', 'embedding-input-mtoken', 'tokens', usage.inputTokens, MTOKEN, p.input, 'input')];
    case 'image':
      return [
        mk(
          'Image',
          'image-unit',
          'images',
          usage.images,
          1,
          tierPrice(p, usage.resolution, usage.quality) ?? p.generation,
          'generation, resolutions or quality',
        ),
      ];
    case 'upscale':
      return [mk('Upscale', `upscale-${usage.factor}-unit`, 'images', usage.images, 1, p.upscale?.[usage.factor], `upscale.${usage.factor}`)];
    case 'image-edit': {
      const lines = [mk('Edit', 'edit-unit', 'images', usage.edits, 1, tierPrice(p, usage.resolution, usage.quality) ?? p.inpaint, 'inpaint')];
      const extra = p.inputImages ? Math.max(0, (usage.inputImages ?? 1) - p.inputImages.included) * usage.edits : 0;
      if (extra > 0 && p.inputImages)
        lines.push(mk('Additional input image', 'edit-input-image-unit', 'images', extra, 1, p.inputImages.additional, 'inputImages'));
      return lines;
    }
    case 'tts':
      return p.per_thousand_characters
        ? [mk('Characters', 'tts-kchar', 'chars', usage.characters, 1_000, p.per_thousand_characters, 'per_thousand_characters')]
        : [mk('Characters', 'tts-mchar', 'chars', usage.characters, MTOKEN, p.input, 'input')];
    case 'asr':
      return [mk('Audio', 'asr-second', 'seconds', usage.audioMs, 1_000, p.per_audio_second, 'per_audio_second')];
    case 'music':
      return musicLines(model, p, usage);
    case 'video':
      return videoLines(p.video, usage).map((l) => mk(l.type, l.what, l.unitType, l.quantity, l.perSkuUnit, l.price, l.field));
    case 'rpc':
      return [mk('Credits', 'rpc-credit', 'credits', usage.credits, 1, p.per_credit, 'per_credit')];
    case 'request':
      return [mk('Request', 'request', 'requests', usage.requests, 1, p.per_request, 'per_request')];
  }
}

function textLines(model: string, p: ModelPricing, u: TextUsage): QuoteLine[] {
  const tier = p.extended && u.promptTokens > p.extended.context_token_threshold ? p.extended : p;
  const input = need(model, tier.input, 'input');
  const cached = Math.min(u.cachedPromptTokens ?? 0, u.promptTokens);
  const written = Math.min(u.cacheWriteTokens ?? 0, u.promptTokens - cached);
  const lines = [
    priced(model, 'Input', 'llm-input-mtoken', 'tokens', u.promptTokens - cached - written, MTOKEN, input),
    priced(model, 'Output', 'llm-output-mtoken', 'tokens', u.completionTokens, MTOKEN, need(model, tier.output, 'output')),
  ];
  // Without a cache price, cached and written tokens cost what any input token costs.
  if (cached) lines.push(priced(model, 'Cache Read', 'llm-cache-read-mtoken', 'tokens', cached, MTOKEN, tier.cache_input ?? input));
  if (written) lines.push(priced(model, 'Cache Write', 'llm-cache-write-mtoken', 'tokens', written, MTOKEN, tier.cache_write ?? input));
  // Web augmentation (docs/retrieval.md): per search and per scraped page; a model without these prices does not charge them.
  if (u.webSearches && p.web_search) lines.push(priced(model, 'Web Search', 'web-search-request', 'requests', u.webSearches, 1, p.web_search));
  if (u.webScrapes && p.web_scrape) lines.push(priced(model, 'Web Scrape', 'web-scrape-request', 'requests', u.webScrapes, 1, p.web_scrape));
  return lines;
}

function musicLines(model: string, p: ModelPricing, u: Extract<BillableUsage, { kind: 'music' }>): QuoteLine[] {
  const generations = u.generations ?? 1;
  if (p.durations) {
    const seconds = Math.ceil((u.durationMs ?? 0) / 1000);
    const tier = Object.entries(p.durations).find(([, t]) => seconds >= t.min_seconds && seconds <= t.max_seconds);
    if (!tier) throw new PricingError(`Model ${model} has no duration tier for ${seconds} s`);
    return [priced(model, 'Music', `music-${tier[0]}-unit`, 'generations', generations, 1, tier[1])];
  }
  if (p.per_second) return [priced(model, 'Music', 'music-second', 'seconds', u.durationMs ?? 0, 1_000, p.per_second)];
  if (p.per_thousand_characters) return [priced(model, 'Music', 'music-kchar', 'chars', u.characters ?? 0, 1_000, p.per_thousand_characters)];
  return [priced(model, 'Music', 'music-unit', 'generations', generations, 1, need(model, p.generation, 'generation'))];
}

/** Per-(resolution, quality) price, else per-resolution price; undefined when the model has neither. */
function tierPrice(p: ModelPricing, resolution: string | undefined, quality: QualityTier | undefined): Price | undefined {
  if (p.quality) {
    const tier = resolution ?? Object.keys(p.quality)[0];
    const prices = p.quality[tier];
    if (!prices) throw new PricingError(`No price for resolution ${tier}; priced resolutions: ${Object.keys(p.quality).join(', ')}`);
    const price = prices[quality ?? DEFAULT_QUALITY];
    if (!price) throw new PricingError(`No price for quality ${quality ?? DEFAULT_QUALITY} at resolution ${tier}`);
    return price;
  }
  if (p.resolutions) {
    const tier = resolution ?? Object.keys(p.resolutions)[0];
    const price = p.resolutions[tier];
    if (!price) throw new PricingError(`No price for resolution ${tier}; priced resolutions: ${Object.keys(p.resolutions).join(', ')}`);
    return price;
  }
  return undefined;
}

function need(model: string, price: Price | undefined, field: string): Price {
  if (!price) throw new PricingError(`Model ${model} has no ${field} price in the catalog`);
  return price;
}

function priced(model: string, type: string, what: string, unitType: UnitType, quantity: number, perSkuUnit: number, price: Price): QuoteLine {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new PricingError(`${type} quantity must be a non-negative integer, got ${quantity}`);
  const unitPrice = { usd: amountOf(price.usd), diem: amountOf(price.diem) };
  const per = BigInt(perSkuUnit);
  const q = BigInt(quantity);
  return {
    type,
    sku: `${model}-${what}`,
    unitType,
    quantity,
    perSkuUnit,
    unitPrice,
    amount: { usd: divCeil(q * unitPrice.usd, per), diem: divCeil(q * unitPrice.diem, per) },
  };
}
