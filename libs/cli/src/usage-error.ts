/** Bad command line, exit code 2; `showUsage` for unknown commands and flags. */
export class UsageError extends Error {
  override name = 'UsageError';

  constructor(
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
  }
}
