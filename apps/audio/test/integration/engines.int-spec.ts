import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createLogger } from '@svc/logging';
import { SPEECH_FORMATS, SpeechFormat } from '@svc/contracts';
import { FliteSpeechEngine } from '../../src/engines/flite/flite-speech.engine';
import { ffmpegPath } from '@svc/ffmpeg';
import { BadAudioError, probeAudio } from '../../src/engines/ffmpeg/probe';
import { DebianSphinxDecoder } from '../../src/engines/pocketsphinx/debian-decoder';
import { PocketsphinxEngine } from '../../src/engines/pocketsphinx/pocketsphinx.engine';
import { WasmSphinxDecoder } from '../../src/engines/pocketsphinx/wasm-decoder';
import { ffprobe, ROUND_TRIP_SENTENCES, wordAccuracy } from './audio-check';

const TEXT = 'Speech synthesis runs on this machine. It needs no download and no network.';
const CODECS: Record<SpeechFormat, string> = { mp3: 'mp3', opus: 'opus', aac: 'aac', flac: 'flac', wav: 'pcm_s16le', pcm: 'pcm_s16le' };
const signal = () => new AbortController().signal;
// The native decoder is Debian's (pocketsphinx, pocketsphinx-en-us; .ci/run installs them). The
// platform serves without it (WebAssembly, audio-without-debian.int-spec), so `npm test` on a
// machine without the packages compares nothing and runs the WebAssembly cases only.
const DEBIAN_BIN = '/usr/bin/pocketsphinx_continuous';
const DEBIAN_MODEL = '/usr/share/pocketsphinx/model/en-us';
const haveDebian = existsSync(DEBIAN_BIN) && existsSync(`${DEBIAN_MODEL}/en-us`);
if (!haveDebian) process.stderr.write(`native PocketSphinx cases skipped: no ${DEBIAN_BIN} (apt-get install -y pocketsphinx pocketsphinx-en-us)\n`);
/** it.each over the decoders installed here, with the Debian ones shown as skipped where absent. */
const eachDecoder = (title: string, fn: (decoder: 'debian' | 'wasm') => Promise<void>, timeout?: number) => {
  it.each(['wasm'] as const)(title, fn, timeout);
  (haveDebian ? it.each : it.skip.each)(['debian'] as const)(title, fn, timeout);
};

describe('embedded audio engines (Flite WASI + ffmpeg, PocketSphinx native and WebAssembly)', () => {
  const logger = createLogger('audio-test', 'silent');
  const flite = new FliteSpeechEngine({ utteranceTimeoutMs: 20_000, requestTimeoutMs: 60_000 }, logger);
  const sphinx = {
    debian: new PocketsphinxEngine({
      decoders: [new DebianSphinxDecoder(DEBIAN_BIN, DEBIAN_MODEL)],
      timeoutPerAudioSecondMs: 3_000,
    }),
    wasm: new PocketsphinxEngine({ decoders: [new WasmSphinxDecoder()], timeoutPerAudioSecondMs: 3_000 }),
  };
  let wavSeconds = 0;

  beforeAll(async () => {
    await flite.ready();
    await Promise.all([haveDebian ? sphinx.debian.ready() : undefined, sphinx.wasm.ready()]);
  });
  afterAll(() => flite.close());

  it('writes every format so that ffprobe decodes it with the expected codec, 24 kHz mono and a duration that fits the text', async () => {
    const durations: Record<string, number> = {};
    for (const format of SPEECH_FORMATS) {
      const { audio, characters } = await flite.speak({ input: TEXT, voice: 'slt', format, speed: 1, signal: signal() });
      expect(characters).toBe(TEXT.length);
      const probed = format === 'pcm' ? ffprobe(audio, { sampleRate: 24_000 }) : ffprobe(audio);
      expect(probed.codec).toBe(CODECS[format]);
      // Opus always decodes at 48 kHz; the encoder ran at 24 kHz.
      expect(probed.sampleRate).toBe(format === 'opus' ? 48_000 : 24_000);
      expect(probed.channels).toBe(1);
      durations[format] = probed.durationS;
    }
    wavSeconds = durations.wav;
    // Read speech is about 10 to 20 characters per second.
    expect(wavSeconds).toBeGreaterThan(TEXT.length / 20);
    expect(wavSeconds).toBeLessThan(TEXT.length / 10);
    for (const format of SPEECH_FORMATS) expect(Math.abs(durations[format] - wavSeconds)).toBeLessThan(0.35);
  });

  it('changes the duration with speed (0.5x doubles it, 2x halves it, 4x quarters it)', async () => {
    const at = async (speed: number) => ffprobe((await flite.speak({ input: TEXT, voice: 'slt', format: 'wav', speed, signal: signal() })).audio).durationS;
    const normal = wavSeconds || (await at(1));
    expect((await at(0.5)) / normal).toBeCloseTo(2, 1);
    expect((await at(2)) / normal).toBeCloseTo(0.5, 1);
    expect((await at(4)) / normal).toBeCloseTo(0.25, 1);
  });

  it('streams audio in several chunks that together decode as one file', async () => {
    const chunks: Buffer[] = [];
    const text = 'First sentence here. Second sentence here. Third sentence here.';
    const result = await flite.speak({ input: text, voice: 'awb', format: 'mp3', speed: 1, signal: signal() }, async (c) => {
      chunks.push(c);
    });
    expect(result.audio.length).toBe(0);
    expect(chunks.length).toBeGreaterThan(1);
    const probed = ffprobe(Buffer.concat(chunks));
    expect(probed.codec).toBe('mp3');
    expect(probed.durationS).toBeGreaterThan(2);
  });

  it('recovers when the Flite process dies: the next request starts a new one', async () => {
    const pid = flite.pid as number;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const { audio } = await flite.speak({ input: 'Back again.', voice: 'rms', format: 'wav', speed: 1, signal: signal() });
    expect(ffprobe(audio).durationS).toBeGreaterThan(0.3);
    expect(flite.pid).not.toBe(pid);
  });

  eachDecoder('round trip: Flite speech of eight sentences transcribed by PocketSphinx (%s) with at least 80%% of the words right', async (decoder) => {
    const text = ROUND_TRIP_SENTENCES.join(' ');
    const { audio } = await flite.speak({ input: text, voice: 'slt', format: 'wav', speed: 1, signal: signal() });
    const { durationMs } = await probeAudio(audio, 30_000);
    const started = Date.now();
    const result = await sphinx[decoder].transcribe({ audio, durationMs, timestamps: true, signal: signal() });
    const accuracy = wordAccuracy(text, result.text);
    process.stdout.write(
      `round-trip word accuracy (${decoder}): ${(accuracy * 100).toFixed(1)}% (${ROUND_TRIP_SENTENCES.length} sentences, ${durationMs} ms of audio, ${Date.now() - started} ms)\n`,
    );
    expect(accuracy).toBeGreaterThanOrEqual(0.8);
    expect(result.words.length).toBeGreaterThan(30);
    for (const w of result.words) expect(w.end).toBeGreaterThanOrEqual(w.start);
    expect(result.words[result.words.length - 1].end).toBeLessThanOrEqual(durationMs / 1000 + 0.1);
    expect(result.segments.length).toBeGreaterThanOrEqual(1);
  });

  describe('probeAudio refuses bad uploads', () => {
    let mp3: Buffer;
    let wav: Buffer;
    beforeAll(async () => {
      mp3 = (await flite.speak({ input: TEXT, voice: 'slt', format: 'mp3', speed: 1, signal: signal() })).audio;
      wav = (await flite.speak({ input: TEXT, voice: 'slt', format: 'wav', speed: 1, signal: signal() })).audio;
    });

    it('measures good files by their decoded length', async () => {
      const probed = await probeAudio(mp3, 10_000);
      expect(probed.container).toBe('mp3');
      expect(Math.abs(probed.durationMs / 1000 - ffprobe(mp3).durationS)).toBeLessThan(0.1);
      expect(Math.abs((await probeAudio(wav, 10_000)).durationMs / 1000 - ffprobe(wav).durationS)).toBeLessThan(0.02);
    });

    it.each([
      ['empty', () => Buffer.alloc(0), /empty/],
      ['not audio', () => Buffer.from('this is plain text, not audio at all '.repeat(50)), /not audio/],
      [
        'a PNG image',
        () => Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
        /not audio|not .* supported|corrupt|truncated/,
      ],
      ['truncated mp3', () => mp3.subarray(0, 700), /truncated/],
      ['truncated wav', () => wav.subarray(0, Math.floor(wav.length / 2)), /truncated/],
      ['a wav header without samples', () => wav.subarray(0, 44), /truncated|not audio/],
    ])('%s', async (_name, bytes, message) => {
      const err = await probeAudio(bytes(), 10_000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadAudioError);
      expect((err as Error).message).toMatch(message);
    });
  });

  eachDecoder('decodes other containers for transcription (ogg/opus upload, %s)', async (decoder) => {
    const { audio } = await flite.speak({ input: 'Thank you very much.', voice: 'slt', format: 'opus', speed: 1, signal: signal() });
    const probed = await probeAudio(audio, 10_000);
    const result = await sphinx[decoder].transcribe({ audio, durationMs: probed.durationMs, timestamps: false, signal: signal() });
    expect(result.text).toMatch(/thank you/);
    expect(spawnSync(ffmpegPath(), ['-version']).status).toBe(0);
  });
});
