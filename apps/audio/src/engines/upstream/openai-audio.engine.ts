import { FormData, Pool } from 'undici';
import { TranscriptSegment } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { hostsOf, UpstreamErrors } from '@svc/upstream';
import { AudioAbortedError, OnAudio, SpeakRequest, SpeakResult, SpeechEngine, TranscribeRequest, TranscribeResult, TranscriptionEngine } from '../engine';

export interface OpenAIAudioOptions {
  /** Base URL including the API prefix, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  connections: number;
}

interface VerboseTranscription {
  text?: string;
  language?: string;
  words?: Array<{ word: string; start: number; end: number }>;
  segments?: Array<TranscriptSegment>;
}

/** Whisper's segment fields an upstream may report; kept as they are (docs/audio.md). */
const WHISPER_SEGMENT_FIELDS = ['seek', 'tokens', 'temperature', 'avg_logprob', 'compression_ratio', 'no_speech_prob'] as const;

function upstreamSegment(s: TranscriptSegment): TranscriptSegment {
  const kept = Object.fromEntries(WHISPER_SEGMENT_FIELDS.filter((f) => s[f] !== undefined).map((f) => [f, s[f]]));
  return { ...kept, text: s.text.trim(), start: s.start, end: s.end };
}

/**
 * OpenAI-compatible audio servers: `/audio/speech` (e.g. Kokoro-FastAPI, openedai-speech),
 * `/audio/transcriptions` and `/audio/translations` (whisper.cpp server, faster-whisper servers),
 * and voice cloning through a voice library at `/voices` (chatterbox-tts-api: multipart
 * `voice_name` + `voice_file`, then the name as `voice`), over pooled connections.
 */
export class OpenAIAudioEngine implements SpeechEngine, TranscriptionEngine {
  readonly kind = 'upstream' as const;
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly auth: Record<string, string>;
  private readonly errors: { speech: UpstreamErrors; transcription: UpstreamErrors };

  constructor(private readonly options: OpenAIAudioOptions) {
    const known = { hosts: hostsOf([options.baseUrl]), secrets: [options.apiKey] };
    this.errors = { speech: new UpstreamErrors('speech', known), transcription: new UpstreamErrors('transcription', known) };
    const url = new URL(options.baseUrl);
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: Math.min(options.timeoutMs, 10_000) },
    });
    this.prefix = url.pathname.replace(/\/$/, '');
    this.auth = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  }

  async ready(): Promise<void> {
    /* connections open lazily; an unreachable upstream fails per request with 502 */
  }

  async speak(request: SpeakRequest, onAudio?: OnAudio): Promise<SpeakResult> {
    const body = JSON.stringify({
      model: this.options.model,
      input: request.input,
      voice: request.voice,
      response_format: request.format,
      speed: request.speed,
      ...(request.instructions ? { instructions: request.instructions } : {}),
    });
    const errors = this.errors.speech;
    const res = await this.call(
      errors,
      () =>
        this.pool.request({
          method: 'POST',
          path: `${this.prefix}/audio/speech`,
          headers: { ...this.auth, 'content-type': 'application/json' },
          body,
          signal: request.signal,
        }),
      request.signal,
    );
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of res.body) {
        if (onAudio) await onAudio(Buffer.from(chunk as Uint8Array));
        else chunks.push(Buffer.from(chunk as Uint8Array));
      }
    } catch (err) {
      throw request.signal.aborted ? new AudioAbortedError('aborted') : errors.transport(err, 'response');
    }
    return { audio: Buffer.concat(chunks), characters: [...request.input].length };
  }

  async transcribe(request: TranscribeRequest): Promise<TranscribeResult> {
    const form = new FormData();
    form.set('file', new Blob([request.audio]), 'audio');
    form.set('model', this.options.model);
    form.set('response_format', 'verbose_json');
    const translate = request.task === 'translate';
    // OpenAI's translations take no language or granularities; the output is English.
    if (request.language && !translate) form.set('language', request.language);
    if (request.timestamps && !translate) {
      form.append('timestamp_granularities[]', 'word');
      form.append('timestamp_granularities[]', 'segment');
    }
    const errors = this.errors.transcription;
    const res = await this.call(
      errors,
      () =>
        this.pool.request({
          method: 'POST',
          path: `${this.prefix}/audio/${translate ? 'translations' : 'transcriptions'}`,
          headers: this.auth,
          body: form,
          signal: request.signal,
        }),
      request.signal,
    );
    let parsed: VerboseTranscription;
    try {
      parsed = (await res.body.json()) as VerboseTranscription;
    } catch (err) {
      throw request.signal.aborted ? new AudioAbortedError('aborted') : errors.transport(err, 'response');
    }
    return {
      text: (parsed.text ?? '').trim(),
      words: (parsed.words ?? []).map((w) => ({ word: w.word.trim(), start: w.start, end: w.end })),
      segments: (parsed.segments ?? []).map(upstreamSegment),
      language: translate ? 'en' : (parsed.language ?? request.language ?? 'en'),
    };
  }

  async cloneVoice(sample: Buffer, handle: string, signal: AbortSignal): Promise<void> {
    const form = new FormData();
    form.set('voice_name', handle);
    form.set('voice_file', new Blob([sample]), `${handle}.audio`);
    const res = await this.call(
      this.errors.speech,
      () => this.pool.request({ method: 'POST', path: `${this.prefix}/voices`, headers: this.auth, body: form, signal }),
      signal,
    );
    await res.body.dump();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private async call(errors: UpstreamErrors, send: () => ReturnType<Pool['request']>, signal: AbortSignal): Promise<Awaited<ReturnType<Pool['request']>>> {
    let res;
    try {
      res = await send();
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw signal.aborted ? new AudioAbortedError('aborted') : errors.transport(err);
    }
    if (res.statusCode >= 400) throw errors.http(res.statusCode, await res.body.text().catch(() => ''), res.headers['retry-after']);
    return res;
  }
}
