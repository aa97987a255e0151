import os from 'node:os';
import { parseArgs } from 'node:util';
import { createLogger } from '@svc/logging';
import { runBench } from '@svc/testing';
import { FliteSpeechEngine } from '../src/engines/flite/flite-speech.engine';
import { probeAudio } from '../src/engines/ffmpeg/probe';
import { DebianSphinxDecoder } from '../src/engines/pocketsphinx/debian-decoder';
import { PocketsphinxEngine } from '../src/engines/pocketsphinx/pocketsphinx.engine';
import { WasmSphinxDecoder } from '../src/engines/pocketsphinx/wasm-decoder';
import { ROUND_TRIP_SENTENCES, wordAccuracy } from './integration/audio-check';

const USAGE = `Usage: node -r ./apps/gateway/test/integration/support/register-ts.js apps/audio/test/compare-decoders.ts [--voices slt,awb,rms,kal16]
  Word accuracy and time of the two PocketSphinx decoders (Debian native, WebAssembly from npm)
  on the round-trip set (eight sentences, spoken by Flite as the audio service speaks them).`;
const say = (msg: string) => process.stderr.write(`[compare-decoders] ${msg}\n`);
const signal = () => new AbortController().signal;

interface Row {
  voice: string;
  decoder: string;
  words: number;
  correct: number;
  ms: number;
  audioMs: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { voices: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const voices = (values.voices ?? 'slt,awb,rms,kal16').split(',');
  const flite = new FliteSpeechEngine({ utteranceTimeoutMs: 20_000, requestTimeoutMs: 60_000 }, createLogger('bench', 'silent'));
  const engines = {
    debian: new PocketsphinxEngine({
      decoders: [new DebianSphinxDecoder('/usr/bin/pocketsphinx_continuous', '/usr/share/pocketsphinx/model/en-us')],
      timeoutPerAudioSecondMs: 4_000,
    }),
    wasm: new PocketsphinxEngine({ decoders: [new WasmSphinxDecoder()], timeoutPerAudioSecondMs: 4_000 }),
  };
  await Promise.all([flite.ready(), engines.debian.ready(), engines.wasm.ready()]);
  const text = ROUND_TRIP_SENTENCES.join(' ');
  const rows: Row[] = [];
  try {
    for (const voice of voices) {
      const { audio } = await flite.speak({ input: text, voice, format: 'wav', speed: 1, signal: signal() });
      const { durationMs } = await probeAudio(audio, 30_000);
      for (const [decoder, engine] of Object.entries(engines)) {
        const started = performance.now();
        const result = await engine.transcribe({ audio, durationMs, timestamps: true, signal: signal() });
        const ms = performance.now() - started;
        const words = text.split(/\s+/).length;
        rows.push({ voice, decoder, words, correct: Math.round(wordAccuracy(text, result.text) * words), ms, audioMs: durationMs });
        say(`${voice} ${decoder}: ${result.text}`);
      }
    }
  } finally {
    await flite.close();
  }
  const lines = ['| voice | decoder | words right | accuracy | ms | RTF |', '|---|---|---:|---:|---:|---:|'];
  const line = (voice: string, decoder: string, rs: Row[]) => {
    const sum = (k: keyof Row) => rs.reduce((a, r) => a + (r[k] as number), 0);
    lines.push(
      `| ${voice} | ${decoder} | ${sum('correct')}/${sum('words')} | ${((100 * sum('correct')) / sum('words')).toFixed(1)} % | ${sum('ms').toFixed(0)} | ${(sum('ms') / sum('audioMs')).toFixed(3)} |`,
    );
  };
  for (const r of rows) line(r.voice, r.decoder, [r]);
  for (const decoder of Object.keys(engines))
    line(
      'all',
      decoder,
      rows.filter((r) => r.decoder === decoder),
    );
  process.stdout.write(`${lines.join('\n')}\n${os.cpus().length} x ${os.cpus()[0]?.model}, load average ${os.loadavg()[0].toFixed(1)}\n`);
}

runBench('compare-decoders', main, []);
