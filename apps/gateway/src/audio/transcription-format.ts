import { TranscribeReply } from '@svc/contracts';

/** OpenAI's `verbose_json` transcription shape, for OpenAI clients. */
export function toVerboseJson(result: TranscribeReply): Record<string, unknown> {
  return {
    task: 'transcribe',
    language: result.language,
    duration: result.duration,
    text: result.text,
    words: result.timestamps?.word ?? [],
    segments: (result.timestamps?.segment ?? []).map((s, id) => ({ id, start: s.start, end: s.end, text: s.text })),
  };
}
