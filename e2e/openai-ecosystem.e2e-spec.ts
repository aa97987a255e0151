import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { experimental_generateSpeech as generateSpeech, experimental_transcribe as transcribe, generateObject, generateText, streamText } from 'ai';
import { z } from 'zod';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * The clients people use with OpenAI-compatible servers, with their defaults, against the platform
 * as `npm start` runs it: LangChain's ChatOpenAI (chat completions and the Responses API) and the
 * Vercel AI SDK's default provider (which calls /responses), speech and transcription. The
 * embedded models answer poorly but really: the assertions are about shapes and parsing, and the
 * schemas are what zod writes for ordinary code (.int().min().max(), .email()).
 */
describe('OpenAI ecosystem clients end to end', () => {
  let platform: RunningPlatform;
  let model: string;

  const Person = z.object({ name: z.string().max(20), age: z.number().int().min(0).max(120), email: z.email() });

  beforeAll(async () => {
    platform = await startPlatform();
    model = ((await (await fetch(`${platform.apiUrl}/models/traits`)).json()) as { data: { default: string } }).data.default;
  }, 150_000);

  afterAll(async () => {
    await platform?.stop();
  });

  const chatOpenAI = (options: { useResponsesApi?: boolean } = {}) =>
    new ChatOpenAI({ model, apiKey: platform.adminKey, configuration: { baseURL: platform.apiUrl }, maxRetries: 0, maxTokens: 200, ...options });
  const provider = () => createOpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey });

  describe('LangChain (@langchain/openai)', () => {
    it('withStructuredOutput on a zod schema with .int().min().max() and .email(): a parsed object (JSON schema response_format)', async () => {
      const person = await chatOpenAI().withStructuredOutput(Person, { name: 'person' }).invoke('Invent a person.');
      expect(Person.safeParse(person).error).toBeUndefined();
    });

    it('useResponsesApi: true: a text answer, and structured output through text.format', async () => {
      const llm = chatOpenAI({ useResponsesApi: true });
      const message = await llm.invoke('What is a lamp?');
      expect(typeof message.text).toBe('string');
      expect(message.text.length).toBeGreaterThan(0);
      expect(message.usage_metadata).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
      const person = await llm.withStructuredOutput(Person, { name: 'person' }).invoke('Invent a person.');
      expect(Person.safeParse(person).error).toBeUndefined();
    });
  });

  describe('Vercel AI SDK (ai + @ai-sdk/openai, default provider: /responses)', () => {
    it('generateText: text, a finish reason and usage', async () => {
      const result = await generateText({ model: provider()(model), prompt: 'What is a lamp?', maxOutputTokens: 24, maxRetries: 0 });
      expect(result.text.length).toBeGreaterThan(0);
      expect(['stop', 'length']).toContain(result.finishReason);
      expect(result.usage.inputTokens).toBeGreaterThan(0);
      expect(result.usage.outputTokens).toBeGreaterThan(0);
    });

    it('streamText: deltas that add up to the final text', async () => {
      const result = streamText({ model: provider()(model), prompt: 'Tell me a story.', maxOutputTokens: 24, maxRetries: 0 });
      let streamed = '';
      for await (const delta of result.textStream) streamed += delta;
      expect(streamed.length).toBeGreaterThan(0);
      expect(await result.text).toBe(streamed);
      expect((await result.usage).outputTokens).toBeGreaterThan(0);
    });

    it('generateObject on a zod schema with .int().min().max() and .email(): a validated object', async () => {
      const { object } = await generateObject({ model: provider()(model), schema: Person, prompt: 'Invent a person.', maxRetries: 0 });
      expect(Person.safeParse(object).error).toBeUndefined();
    });

    it('generateSpeech with the default voice, then transcribe with segment timestamps', async () => {
      const speech = await generateSpeech({ model: provider().speech('tts-1'), text: 'The lamp is on the table.', maxRetries: 0 });
      expect(speech.audio.mediaType).toBe('audio/mpeg');
      expect(speech.audio.uint8Array.length).toBeGreaterThan(1000);

      // Provider options make the SDK ask for verbose_json (segments with times); without them it asks for json.
      const transcript = await transcribe({
        model: provider().transcription('whisper-1'),
        audio: speech.audio.uint8Array,
        providerOptions: { openai: { timestampGranularities: ['segment'] } },
        maxRetries: 0,
      });
      expect(typeof transcript.text).toBe('string');
      expect(transcript.durationInSeconds).toBeGreaterThan(0);
      expect(transcript.segments.length).toBeGreaterThan(0);
      for (const segment of transcript.segments) {
        expect(segment.endSecond).toBeGreaterThanOrEqual(segment.startSecond);
        expect(typeof segment.text).toBe('string');
      }
    });
  });
});
