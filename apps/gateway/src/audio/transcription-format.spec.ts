import { TranscribeReply } from '@svc/contracts';
import { formatTranscript } from './transcription-format';

const result: TranscribeReply = {
  text: 'hello there',
  duration: 2,
  language: 'en',
  timestamps: {
    word: [
      { word: 'hello', start: 0.1, end: 0.5 },
      { word: 'there', start: 0.6, end: 1 },
    ],
    segment: [{ text: 'hello there', start: 0.1, end: 1 }],
  },
};

const transcribe = (granularities: string[] = []) => ({ task: 'transcribe' as const, granularities, timestamps: false });

describe('transcript formats', () => {
  it('answers text, srt and vtt as text/plain; charset=utf-8, as OpenAI does', () => {
    for (const format of ['text', 'srt', 'vtt'] as const) expect(formatTranscript(result, format, transcribe()).contentType).toBe('text/plain; charset=utf-8');
    expect(formatTranscript(result, 'srt', transcribe()).body).toBe('1\n00:00:00,100 --> 00:00:01,000\nhello there\n');
    expect(formatTranscript(result, 'vtt', transcribe()).body).toMatch(/^WEBVTT\n/);
    expect(formatTranscript(result, 'json', transcribe()).contentType).toBeUndefined();
  });

  it('verbose_json: segments by default, words only for word, both for word and segment', () => {
    const body = (granularities: string[]) => formatTranscript(result, 'verbose_json', transcribe(granularities)).body as Record<string, unknown[] | undefined>;
    expect(body([]).segments).toHaveLength(1);
    expect(body([]).words).toBeUndefined();
    expect(body(['word']).words).toHaveLength(2);
    expect(body(['word']).segments).toBeUndefined();
    const both = body(['word', 'segment']);
    expect(both.words).toEqual(result.timestamps!.word);
    expect(both.segments).toEqual([expect.objectContaining({ id: 0, text: 'hello there', start: 0.1, end: 1 })]);
  });
});
