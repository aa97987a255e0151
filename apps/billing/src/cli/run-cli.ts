import { CliIo, runCommands } from '@svc/cli';
import { BillingConfig, loadServiceConfig } from '../config';
import { CliContext, openCliContext } from './cli-context';
import { COMMANDS } from './commands';
import { USAGE } from './usage';

export type { CliIo } from '@svc/cli';

export interface CliDeps {
  loadConfig: () => BillingConfig;
  open: (config: BillingConfig) => Promise<CliContext>;
}

const defaultDeps: CliDeps = { loadConfig: () => loadServiceConfig(), open: openCliContext };

/** Runs one command; returns the exit code (0 ok, 1 failed, 2 bad command line or config). */
export function runCli(argv: string[], io: CliIo, deps: CliDeps = defaultDeps): Promise<number> {
  return runCommands(argv, io, {
    help: { usage: USAGE, helpCommand: 'npm run billing -- --help' },
    commands: COMMANDS,
    words: 1,
    open: () => deps.open(deps.loadConfig()),
  });
}
