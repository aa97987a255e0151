import { ImageConstraints, imageConstraintsOf, ModelDefinition } from '@svc/catalog';
import { QualityTier } from '@svc/contracts';
import { DomainError, IssueLike } from '@svc/errors';
import { ImageGenerateInput } from './image-request.dto';

export const DEFAULT_SIDE = 1024;
/** Long side of each resolution tier. */
export const TIER_SIDE: Record<string, number> = { '1K': 1024, '2K': 2048, '4K': 4096 };

export interface ResolvedImageRequest {
  width: number;
  height: number;
  steps: number;
  cfgScale?: number;
  /** Billing tier, when the model is priced by resolution and/or quality. */
  resolution?: string;
  quality?: QualityTier;
}

/**
 * The rules of the model's family (catalog `constraints`) applied to a valid request: sizing
 * (pixels, aspect ratio or tiers), prompt limit, steps, guidance, style references, quality.
 * Every violation is a 400 DetailedError naming its field.
 */
export function resolveGenerate(model: ModelDefinition, input: ImageGenerateInput): ResolvedImageRequest {
  const c = imageConstraintsOf(model);
  const issues: IssueLike[] = [];
  const bad = (field: string, message: string) => issues.push({ path: [field], message });

  if (input.prompt.length > c.promptCharacterLimit) bad('prompt', `must be at most ${c.promptCharacterLimit} characters for model ${model.id}`);
  if (input.steps !== undefined && input.steps > c.steps.max) bad('steps', `must be at most ${c.steps.max} for model ${model.id}`);
  if (input.cfg_scale !== undefined && c.cfgScale && input.cfg_scale > c.cfgScale.max)
    bad('cfg_scale', `must be at most ${c.cfgScale.max} for model ${model.id}`);
  if (input.style_references?.length) {
    if (!c.supportsStyleReferences) bad('style_references', `model ${model.id} does not support style references`);
    else if (input.style_references.length > c.maxStyleReferences) bad('style_references', `at most ${c.maxStyleReferences} for model ${model.id}`);
  }
  if (input.quality !== undefined && c.qualities && !c.qualities.includes(input.quality))
    bad('quality', `must be one of ${c.qualities.join(', ')} for model ${model.id}`);

  let width = DEFAULT_SIDE;
  let height = DEFAULT_SIDE;
  let tier: string | undefined;
  const hasPixels = input.width !== undefined || input.height !== undefined;
  if (c.sizing === 'pixels') {
    if (input.resolution !== undefined) bad('resolution', `model ${model.id} has no resolution tiers; send width and height`);
    if (input.aspect_ratio !== undefined && !hasPixels) {
      const ratio = parseRatio(input.aspect_ratio, c, (m) => bad('aspect_ratio', m));
      if (ratio) [width, height] = fitRatio(ratio, DEFAULT_SIDE, c.widthHeightDivisor);
    } else {
      width = input.width ?? DEFAULT_SIDE;
      height = input.height ?? DEFAULT_SIDE;
    }
    if (width > c.maxWidth) bad('width', `must be at most ${c.maxWidth} for model ${model.id}`);
    if (height > c.maxHeight) bad('height', `must be at most ${c.maxHeight} for model ${model.id}`);
    if (width % c.widthHeightDivisor !== 0) bad('width', `must be divisible by ${c.widthHeightDivisor} for model ${model.id}`);
    if (height % c.widthHeightDivisor !== 0) bad('height', `must be divisible by ${c.widthHeightDivisor} for model ${model.id}`);
  } else {
    if (input.width !== undefined) bad('width', `model ${model.id} does not accept width and height; send aspect_ratio`);
    if (input.height !== undefined) bad('height', `model ${model.id} does not accept width and height; send aspect_ratio`);
    if (c.sizing === 'aspect-ratio' && input.resolution !== undefined)
      bad('resolution', `model ${model.id} has no resolution tiers; send aspect_ratio without resolution`);
    if (c.sizing === 'tiered') {
      tier = input.resolution ?? c.defaultResolution ?? c.resolutions?.[0] ?? '1K';
      if (c.resolutions && !c.resolutions.includes(tier)) bad('resolution', `must be one of ${c.resolutions.join(', ')} for model ${model.id}`);
    }
    const ratio = parseRatio(input.aspect_ratio ?? c.defaultAspectRatio ?? '1:1', c, (m) => bad('aspect_ratio', m));
    if (ratio) [width, height] = fitRatio(ratio, TIER_SIDE[tier ?? '1K'] ?? DEFAULT_SIDE, c.widthHeightDivisor);
  }
  if (issues.length) throw DomainError.validation(issues);

  const priced = pricedTiers(model);
  return {
    width,
    height,
    steps: input.steps ?? c.steps.default,
    cfgScale: input.cfg_scale ?? c.cfgScale?.default,
    resolution: priced.resolution ? (tier ?? input.resolution) : undefined,
    quality: priced.quality ? (input.quality ?? c.defaultQuality) : undefined,
  };
}

/** Whether the model's price depends on the resolution tier and/or the quality. */
export function pricedTiers(model: ModelDefinition): { resolution: boolean; quality: boolean } {
  return { resolution: Boolean(model.pricing.quality ?? model.pricing.resolutions), quality: Boolean(model.pricing.quality) };
}

function parseRatio(text: string, c: ImageConstraints, fail: (message: string) => void): [number, number] | undefined {
  if (c.aspectRatios && !c.aspectRatios.includes(text)) {
    fail(`must be one of ${c.aspectRatios.join(', ')}`);
    return undefined;
  }
  const [w, h] = text.split(':').map(Number);
  if (!(w > 0 && h > 0)) {
    fail('must be two positive numbers, e.g. 16:9');
    return undefined;
  }
  return [w, h];
}

/** The size with this ratio whose long side is `side`, each side a multiple of `divisor`. */
export function fitRatio([w, h]: [number, number], side: number, divisor = 1): [number, number] {
  const round = (v: number) => Math.max(divisor, Math.round(v / divisor) * divisor);
  return w >= h ? [round(side), round((side * h) / w)] : [round((side * w) / h), round(side)];
}

/** The supported ratio closest to an image's own (for `aspect_ratio: auto`). */
export function closestRatio(width: number, height: number, ratios: readonly string[]): string {
  const target = Math.log(width / height);
  let best = ratios[0];
  let bestDistance = Infinity;
  for (const r of ratios) {
    const [w, h] = r.split(':').map(Number);
    const d = Math.abs(Math.log(w / h) - target);
    if (d < bestDistance) {
      best = r;
      bestDistance = d;
    }
  }
  return best;
}

export function invalidField(field: string, message: string): DomainError {
  return DomainError.validation([{ path: [field], message }]);
}
