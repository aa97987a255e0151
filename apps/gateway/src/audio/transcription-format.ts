import { deflateSync } from 'node:zlib';
import { TranscribeReply, TranscriptSegment } from '@svc/contracts';
import { TranscriptFormat } from './audio-request.dto';
import { toSrt, toVtt } from './subtitles';

/** OpenAI's `verbose_json` names the language in English words; a few common codes, else the code. */
const LANGUAGE_NAMES: Record<string, string> = {
  en: 'english',
  de: 'german',
  es: 'spanish',
  fr: 'french',
  it: 'italian',
  ja: 'japanese',
  pt: 'portuguese',
  zh: 'chinese',
};

/** Whisper's measure of repetitiveness: UTF-8 bytes over their zlib-compressed size. */
function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length === 0 ? 0 : Number((bytes.length / deflateSync(bytes).length).toFixed(4));
}

/**
 * A segment in OpenAI's full shape. Fields an upstream Whisper reported are kept; for engines
 * that have none (PocketSphinx): `seek` is the start in 10 ms frames, `tokens` empty,
 * `temperature` 0 (no sampling), `avg_logprob` 0 and `no_speech_prob` 0 (not measured; a
 * segment exists because speech was found), `compression_ratio` computed from the text.
 */
function fullSegment(s: TranscriptSegment, id: number): Record<string, unknown> {
  return {
    id,
    seek: s.seek ?? Math.round(s.start * 100),
    start: s.start,
    end: s.end,
    text: s.text,
    tokens: s.tokens ?? [],
    temperature: s.temperature ?? 0,
    avg_logprob: s.avg_logprob ?? 0,
    compression_ratio: s.compression_ratio ?? compressionRatio(s.text),
    no_speech_prob: s.no_speech_prob ?? 0,
  };
}

/** The segments to show as cues: the engine's, or one covering the whole audio when it gave none. */
export function cueSegments(result: TranscribeReply): TranscriptSegment[] {
  const segments = result.timestamps?.segment ?? [];
  if (segments.length > 0 || !result.text) return segments;
  return [{ text: result.text, start: 0, end: result.duration }];
}

/** OpenAI's `verbose_json`: `words` when word granularity was asked for, `segments` unless only words were. */
export function toVerboseJson(result: TranscribeReply, task: 'transcribe' | 'translate', granularities: string[]): Record<string, unknown> {
  const words = granularities.includes('word');
  const segments = granularities.length === 0 || granularities.includes('segment');
  return {
    task,
    language: LANGUAGE_NAMES[result.language] ?? result.language,
    duration: result.duration,
    text: result.text,
    ...(words ? { words: result.timestamps?.word ?? [] } : {}),
    ...(segments ? { segments: cueSegments(result).map(fullSegment) } : {}),
  };
}

const TEXT = 'text/plain; charset=utf-8';

export interface FormattedTranscript {
  /** Absent: JSON. */
  contentType?: string;
  body: unknown;
}

/**
 * A transcription (or translation) answer in the requested `response_format`. `text`, `srt` and
 * `vtt` are `text/plain; charset=utf-8`, as OpenAI answers them (its document lists no other text
 * type for these routes), so clients that read a text body by that type get the subtitles.
 */
export function formatTranscript(
  result: TranscribeReply,
  format: TranscriptFormat,
  options: { task: 'transcribe' | 'translate'; granularities: string[]; timestamps: boolean },
): FormattedTranscript {
  switch (format) {
    case 'text':
      return { contentType: TEXT, body: result.text };
    case 'srt':
      return { contentType: TEXT, body: toSrt(cueSegments(result)) };
    case 'vtt':
      return { contentType: TEXT, body: toVtt(cueSegments(result)) };
    case 'verbose_json':
      return { body: toVerboseJson(result, options.task, options.granularities) };
    case 'json':
      return { body: options.timestamps ? result : { text: result.text, duration: result.duration } };
  }
}
