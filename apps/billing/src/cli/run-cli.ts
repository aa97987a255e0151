import { parseArgs } from 'node:util';
import { CliIo, reportCliError } from '@svc/cli';
import { BillingConfig, loadServiceConfig } from '../config';
import { CliContext, openCliContext } from './cli-context';
import { COMMANDS } from './commands';
import { USAGE, UsageError } from './usage';

export type { CliIo } from '@svc/cli';

export interface CliDeps {
  loadConfig: () => BillingConfig;
  open: (config: BillingConfig) => Promise<CliContext>;
}

const defaultDeps: CliDeps = { loadConfig: () => loadServiceConfig(), open: openCliContext };

/** Runs one command; returns the exit code (0 ok, 1 failed, 2 bad command line or config). */
export async function runCli(argv: string[], io: CliIo, deps: CliDeps = defaultDeps): Promise<number> {
  if (argv.length === 0 || argv.some((a) => a === '--help' || a === '-h' || a === 'help')) {
    io.out(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const command = COMMANDS[argv[0]];
    if (!command) throw new UsageError(`Unknown command: ${argv[0]}`, true);
    const values = parseCommandLine(argv.slice(1), command.options);
    const input = command.parse(values);
    const ctx = await deps.open(deps.loadConfig());
    try {
      io.out(JSON.stringify(await command.run(ctx, input as never), null, 2));
    } finally {
      await ctx.close();
    }
    return 0;
  } catch (err) {
    return report(err, io);
  }
}

function parseCommandLine(args: string[], options: Record<string, { type: 'string' }>): Record<string, string | undefined> {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    if (positionals.length) throw new Error(`Unexpected argument: ${positionals[0]}`);
    return values as Record<string, string | undefined>;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err), true);
  }
}

function report(err: unknown, io: CliIo): number {
  return reportCliError(err, io, { usage: USAGE, helpCommand: 'npm run billing -- --help' });
}
