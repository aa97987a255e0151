import { ConfigError } from '@svc/config';
import { CliIo } from './cli-io';
import { UsageError } from './usage-error';
import { errorMessage } from '@svc/errors';

export interface CliHelp {
  usage: string;
  /** The command that prints the usage, e.g. `npm run svc -- --help`. */
  helpCommand: string;
}

/** Prints a CLI failure and returns its exit code: 2 for usage and configuration, 1 otherwise. */
export function reportCliError(err: unknown, io: CliIo, help: CliHelp): number {
  if (err instanceof UsageError) {
    io.err(err.showUsage ? `error: ${err.message}\n\n${help.usage}` : `error: ${err.message}\n(${help.helpCommand} for usage)`);
    return 2;
  }
  if (err instanceof ConfigError) {
    io.err(err.message);
    return 2;
  }
  io.err(`error: ${errorMessage(err)}`);
  return 1;
}
