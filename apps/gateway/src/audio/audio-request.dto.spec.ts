import { loadCatalog, ModelDefinition } from '@svc/catalog';
import { DomainError } from '@svc/errors';
import { formatFor, speechRequestSchema, transcriptionRequestSchema, voiceFor } from './audio-request.dto';

const model = {
  id: 'svc-flite',
  constraints: { voices: ['slt', 'awb'], default_voice: 'slt', supported_formats: ['mp3', 'wav'], default_format: 'mp3' },
} as unknown as ModelDefinition;

describe('audio request validation', () => {
  it('uses the default voice and format, and refuses others listing the valid ones', () => {
    expect(voiceFor(model, undefined)).toBe('slt');
    expect(voiceFor(model, 'awb')).toBe('awb');
    expect(formatFor(model, undefined)).toBe('mp3');
    const err = (() => {
      try {
        voiceFor(model, 'alloy');
      } catch (e) {
        return e as DomainError;
      }
    })();
    expect(err?.status).toBe(400);
    expect(err?.message).toBe('Voice "alloy" is not available for svc-flite. Valid voices: slt, awb.');
    expect(err?.details).toEqual({ _errors: [], voice: { _errors: [err?.message] } });
    expect(() => formatFor(model, 'flac')).toThrow(/Supported formats: mp3, wav/);
  });

  it("maps every built-in voice of OpenAI's speech API to a voice of the shipped tts model", () => {
    const flite = loadCatalog().resolve('gpt-4o-mini-tts', 'tts')!;
    const openAiVoices = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];
    for (const voice of openAiVoices) expect(flite.constraints.voices).toContain(voiceFor(flite, voice));
    expect(voiceFor(flite, 'marin')).toBe('slt');
    expect(voiceFor(flite, 'Cedar')).toBe('rms');
  });

  it('parses speech defaults and bounds', () => {
    expect(speechRequestSchema.parse({ input: 'Hi' })).toEqual({ input: 'Hi', model: 'default', speed: 1, streaming: false });
    expect(speechRequestSchema.safeParse({ input: 'Hi', speed: 4.01 }).success).toBe(false);
    expect(speechRequestSchema.safeParse({ input: 'Hi', speed: 0.25 }).success).toBe(true);
  });

  it('reads multipart string fields for transcriptions', () => {
    const parsed = transcriptionRequestSchema.parse({ file: Buffer.from('x'), timestamps: 'true', response_format: 'text' });
    expect(parsed.timestamps).toBe(true);
    expect(parsed.model).toBe('default');
    expect(transcriptionRequestSchema.safeParse({ model: 'm' }).success).toBe(false);
    expect(transcriptionRequestSchema.safeParse({ file: Buffer.from('x'), response_format: 'xml' }).success).toBe(false);
  });
});
