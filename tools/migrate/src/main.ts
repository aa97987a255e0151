import './register-aliases';
import { migrateAll } from './migrate-all';
import { errorMessage } from '@svc/errors';

// `npm run migrate`: bring every service database up to date, then exit.
const log = (message: string) => process.stdout.write(`${message}\n`);

migrateAll({ log }).then(
  (results) => {
    for (const r of results) log(`[${r.service}] ${r.database}: ${r.applied.length} applied, ${r.alreadyApplied.length} already applied`);
  },
  (err: unknown) => {
    process.stderr.write(`migrate: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
