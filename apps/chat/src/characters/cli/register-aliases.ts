import { existsSync } from 'node:fs';
import path from 'node:path';

// Run as plain `node dist/.../main.js`: resolve the @svc/* aliases here, with the same
// tools/register-paths.js that `node -r` would load.
let dir = __dirname;
while (!existsSync(path.join(dir, 'tools', 'register-paths.js')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(path.join(dir, 'tools', 'register-paths.js'));
