import { parseArgs } from 'node:util';
import { CliIo } from './cli-io';
import { CliHelp, reportCliError } from './report-cli-error';
import { UsageError } from './usage-error';
import { errorMessage } from '@svc/errors';

export type CliValues = Record<string, string | undefined>;

/** One command of an operator CLI: its flags, validation and action. */
export interface CliCommand<Ctx> {
  options: Record<string, { type: 'string' }>;
  /** Names of the positional arguments it takes (`<slug>`); without it, it takes none. */
  positionals?: string[];
  /** Validates the command line before anything connects; returns the input of `run`. */
  parse(values: CliValues, positionals: string[]): unknown;
  run(ctx: Ctx, input: never): Promise<unknown>;
}

/** An operator CLI: its commands, named by their first `words` arguments, and how it connects. */
export interface CliProgram<Ctx extends { close(): Promise<void> }, C extends CliCommand<Ctx>> {
  help: CliHelp;
  commands: Record<string, C>;
  /** How many arguments name a command: 1 (`credit`) or 2 (`keys create`). */
  words: number;
  /** Connects for a parsed command (after its command line was found valid). */
  open(command: C): Promise<Ctx>;
}

/**
 * Runs one command and prints its result as JSON; returns the exit code (0 ok, 1 failed, 2 bad
 * command line or config). With no arguments, or help asked for, prints the usage.
 */
export async function runCommands<Ctx extends { close(): Promise<void> }, C extends CliCommand<Ctx>>(
  argv: string[],
  io: CliIo,
  program: CliProgram<Ctx, C>,
): Promise<number> {
  if (argv.length === 0 || argv.some((a) => a === '--help' || a === '-h' || a === 'help')) {
    io.out(program.help.usage);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const name = argv.slice(0, program.words).join(' ');
    const command = program.commands[name];
    if (!command) throw new UsageError(`Unknown command: ${name}`, true);
    const { values, positionals } = parseCommandLine(argv.slice(program.words), command);
    const input = command.parse(values, positionals);
    const ctx = await program.open(command);
    try {
      io.out(JSON.stringify(await command.run(ctx, input as never), null, 2));
    } finally {
      await ctx.close();
    }
    return 0;
  } catch (err) {
    return reportCliError(err, io, program.help);
  }
}

function parseCommandLine(args: string[], command: CliCommand<unknown>): { values: CliValues; positionals: string[] } {
  let parsed: { values: CliValues; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: command.options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    throw new UsageError(errorMessage(err), true);
  }
  const expected = command.positionals;
  if (expected === undefined) {
    if (parsed.positionals.length) throw new UsageError(`Unexpected argument: ${parsed.positionals[0]}`, true);
  } else if (parsed.positionals.length !== expected.length) {
    throw new UsageError(`Expected ${expected.length ? expected.map((p) => `<${p}>`).join(' ') : 'no positional arguments'}`, true);
  }
  return parsed;
}
