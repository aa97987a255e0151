import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';

/**
 * `METHOD /path` (without `/api/v1`, `:params` as declared) of every route the gateway's
 * controllers declare, read from their decorators: what suites that must cover every route
 * (fuzz, tenant isolation) compare their tables with.
 */
export function declaredRoutes(): string[] {
  const root = path.join(REPO_ROOT, 'apps/gateway/src');
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.controller.ts'));
  const routes: string[] = [];
  for (const file of files) {
    const source = readFileSync(path.join(root, file), 'utf8');
    const base = /@Controller\((?:'([^']*)')?\)/.exec(source)?.[1] ?? '';
    for (const [, method, sub] of source.matchAll(/@(Get|Post|Patch|Delete|Put)\((?:'([^']*)')?\)/g)) {
      const joined = `/${[base, sub ?? ''].filter(Boolean).join('/')}`;
      routes.push(`${method.toUpperCase()} ${joined}`);
    }
  }
  return routes.sort();
}
