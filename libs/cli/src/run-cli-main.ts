import { CliIo } from './cli-io';
import { errorMessage } from '@svc/errors';

/** A CLI's `main`: run with the process arguments on stdout/stderr and set the exit code. */
export function runCliMain(run: (args: string[], io: CliIo) => Promise<number>): void {
  run(process.argv.slice(2), {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`error: ${errorMessage(err)}\n`);
      process.exitCode = 1;
    },
  );
}
