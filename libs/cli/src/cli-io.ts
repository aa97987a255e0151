/** Where a CLI writes: stdout and stderr in `main`, arrays in tests. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}
