import { accessSync, constants, existsSync } from 'node:fs';
import { EngineUnavailableError, SphinxDecoder } from './sphinx-decoder';

/** Debian's native `pocketsphinx_continuous` (package pocketsphinx) with pocketsphinx-en-us's model. */
export class DebianSphinxDecoder implements SphinxDecoder {
  readonly name = 'debian' as const;

  constructor(
    private readonly binary: string,
    /** Directory with the acoustic model, dictionary and language model. */
    private readonly modelDir: string,
  ) {}

  check(): void {
    try {
      accessSync(this.binary, constants.X_OK);
    } catch {
      throw new EngineUnavailableError(
        `${this.binary} is missing: install the Debian package "pocketsphinx" (apt-get install pocketsphinx pocketsphinx-en-us)`,
      );
    }
    if (!existsSync(`${this.modelDir}/en-us`))
      throw new EngineUnavailableError(`${this.modelDir}/en-us is missing: install the Debian package "pocketsphinx-en-us"`);
  }

  command(wavFile: string): { file: string; args: string[] } {
    const dir = this.modelDir;
    return {
      file: this.binary,
      args: [
        '-infile',
        wavFile,
        '-time',
        'yes',
        '-logfn',
        '/dev/null',
        '-hmm',
        `${dir}/en-us`,
        '-lm',
        `${dir}/en-us.lm.bin`,
        '-dict',
        `${dir}/cmudict-en-us.dict`,
      ],
    };
  }
}
