import path from 'node:path';
import { REPO_ROOT } from '@svc/config';

/**
 * `apps/<service>/prisma/migrations`, the committed SQL of one service. Read from the source
 * tree (not dist/), so a deployed image ships these folders next to dist/.
 */
export function serviceMigrationsDir(service: string, root: string = REPO_ROOT): string {
  return path.join(root, 'apps', service, 'prisma', 'migrations');
}
