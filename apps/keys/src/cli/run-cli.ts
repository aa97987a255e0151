import { CliIo, runCommands } from '@svc/cli';
import { CliConfig, loadCliConfig } from './cli-config';
import { CliContext, openCliContext } from './cli-context';
import { COMMANDS } from './commands';
import { USAGE } from './usage';

export type { CliIo } from '@svc/cli';

export interface CliDeps {
  loadConfig: () => CliConfig;
  open: (config: CliConfig, options: { withEvents: boolean }) => Promise<CliContext>;
}

const defaultDeps: CliDeps = { loadConfig: () => loadCliConfig(), open: openCliContext };

/** Runs one command; returns the exit code (0 ok, 1 failed, 2 bad command line or config). */
export function runCli(argv: string[], io: CliIo, deps: CliDeps = defaultDeps): Promise<number> {
  return runCommands(argv, io, {
    help: { usage: USAGE, helpCommand: 'npm run svc -- --help' },
    commands: COMMANDS,
    words: 2,
    open: (command) => deps.open(deps.loadConfig(), { withEvents: command.needsEvents ?? false }),
  });
}
