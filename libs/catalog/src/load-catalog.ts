import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@svc/config';
import { Catalog } from './catalog';
import { catalogSchema } from './catalog.schema';
import { interpolateEnv } from './interpolate-env';
import { errorMessage } from '@svc/errors';

/** The catalog shipped in the repository; SVC_CATALOG_PATH points elsewhere. */
export const DEFAULT_CATALOG_PATH = path.join(REPO_ROOT, 'config', 'models.yaml');

export class CatalogError extends Error {
  override name = 'CatalogError';
}

export function loadCatalog(file = process.env.SVC_CATALOG_PATH || DEFAULT_CATALOG_PATH, env: NodeJS.ProcessEnv = process.env): Catalog {
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CatalogError(`Cannot read model catalog ${file}: ${errorMessage(err)}`);
  }
  const missing: string[] = [];
  const interpolated = interpolateEnv(raw, env, missing);
  if (missing.length) throw new CatalogError(`Model catalog ${file} uses unset environment variables: ${[...new Set(missing)].join(', ')}`);
  const parsed = catalogSchema.safeParse(interpolated);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`);
    throw new CatalogError(`Invalid model catalog ${file}:\n${lines.join('\n')}`);
  }
  const catalog = new Catalog(parsed.data);
  const ids = new Set<string>();
  for (const model of catalog.models) {
    if (ids.has(model.id)) throw new CatalogError(`Model catalog ${file}: duplicate model id ${model.id}`);
    ids.add(model.id);
  }
  for (const [name, id] of Object.entries(parsed.data.compatibilityMapping)) {
    if (!catalog.get(id)) throw new CatalogError(`Model catalog ${file}: compatibilityMapping.${name} names unknown model ${id}`);
  }
  return catalog;
}
