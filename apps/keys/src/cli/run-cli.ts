import { parseArgs } from 'node:util';
import { CliIo, reportCliError } from '@svc/cli';
import { CliConfig, loadCliConfig } from './cli-config';
import { CliContext, openCliContext } from './cli-context';
import { COMMANDS } from './commands';
import { USAGE, UsageError } from './usage';

export type { CliIo } from '@svc/cli';

export interface CliDeps {
  loadConfig: () => CliConfig;
  open: (config: CliConfig, options: { withEvents: boolean }) => Promise<CliContext>;
}

const defaultDeps: CliDeps = { loadConfig: () => loadCliConfig(), open: openCliContext };

/** Runs one command; returns the exit code (0 ok, 1 failed, 2 bad command line or config). */
export async function runCli(argv: string[], io: CliIo, deps: CliDeps = defaultDeps): Promise<number> {
  if (argv.length === 0 || argv.some((a) => a === '--help' || a === '-h' || a === 'help')) {
    io.out(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const command = COMMANDS[argv.slice(0, 2).join(' ')];
    if (!command) throw new UsageError(`Unknown command: ${argv.slice(0, 2).join(' ')}`, true);
    const { values, positionals } = parseCommandLine(argv.slice(2), command.options);
    if (positionals.length !== command.positionals.length) {
      throw new UsageError(`Expected ${command.positionals.length ? command.positionals.map((p) => `<${p}>`).join(' ') : 'no positional arguments'}`, true);
    }
    const input = command.parse(values, positionals);
    const ctx = await deps.open(deps.loadConfig(), { withEvents: command.needsEvents ?? false });
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

function parseCommandLine(args: string[], options: Record<string, { type: 'string' }>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true }) as { values: Record<string, string | undefined>; positionals: string[] };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err), true);
  }
}

function report(err: unknown, io: CliIo): number {
  return reportCliError(err, io, { usage: USAGE, helpCommand: 'npm run svc -- --help' });
}
