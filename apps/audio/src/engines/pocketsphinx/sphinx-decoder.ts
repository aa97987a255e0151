/** A decoder is unusable here (a missing Debian package, say); the message says what is missing. */
export class EngineUnavailableError extends Error {
  override name = 'EngineUnavailableError';
}

/**
 * One way to run PocketSphinx on a 16 kHz mono WAV file: a command line whose stdout is
 * `pocketsphinx_continuous -time yes` output (pocketsphinx-output.ts).
 */
export interface SphinxDecoder {
  readonly name: 'debian' | 'wasm';
  /** Throws EngineUnavailableError when this decoder cannot run here. */
  check(): void;
  command(wavFile: string): { file: string; args: string[] };
}
