import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * The default chat model (svc-zoo-chat, models/zoo/chat/MODEL_CARD.md) through the platform, on the
 * measures of issue 17 (models/zoo/chat/v2/evaluate.mjs has the full evaluation):
 * - five fixed questions about held-out packages (never in training; the first five of the
 *   held-out list, not chosen by their answers), asked bare: at least three answers share a
 *   content word (4+ letters, not the package name) with the package's real description;
 * - a two-field JSON schema at max_tokens 64 parses, both fields strings, in at least 95 of 100
 *   seeded tries at temperature 0.8.
 */
interface HeldOut {
  name: string;
  question: string;
  content_words: string[];
}

const QUESTIONS = JSON.parse(readFileSync(path.join(__dirname, 'fixtures/heldout-questions.json'), 'utf8')) as HeldOut[];
const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, summary: { type: 'string' } },
  required: ['name', 'summary'],
  additionalProperties: false,
};

/** The answer shares a content word with the real description (the name itself excluded). */
function relevant(answer: string, q: HeldOut): boolean {
  const truth = new Set(q.content_words);
  const words = answer.toLowerCase().match(/[a-z][a-z0-9+]+/g) ?? [];
  return words.some((w) => w.length >= 4 && w !== q.name.toLowerCase() && truth.has(w));
}

describe('the default chat model answers (issue 17)', () => {
  let platform: RunningPlatform;

  beforeAll(async () => {
    platform = await startPlatform({ env: { RATE_LIMITS_ENABLED: 'false' } });
  }, 150_000);

  afterAll(async () => {
    await platform?.stop();
  });

  const chat = async (body: Record<string, unknown>): Promise<{ content: string; finish: string }> => {
    const res = await fetch(`${platform.apiUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-zoo-chat', ...body }),
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { choices: Array<{ message: { content: string }; finish_reason: string }> };
    return { content: json.choices[0].message.content, finish: json.choices[0].finish_reason };
  };

  it('answers at least three of five questions about held-out packages with a word of their real description', async () => {
    const answers = [];
    for (const q of QUESTIONS)
      answers.push({
        name: q.name,
        answer: (
          await chat({
            messages: [{ role: 'user', content: q.question }],
            max_tokens: 64,
            temperature: 0,
            // the bare question, as the card's evaluation asks it (with the deployment's default
            // system prompt the 200-question share is the same, 64.5% against 65%)
            svc_parameters: { include_svc_system_prompt: false },
          })
        ).content,
      });
    const hits = answers.filter((a, i) => relevant(a.answer, QUESTIONS[i]));
    if (hits.length < 3) process.stdout.write(`${JSON.stringify(answers, null, 1)}\n`);
    expect(hits.length).toBeGreaterThanOrEqual(3);
  });

  it('fills a two-field JSON schema at max_tokens 64 in at least 95 of 100 seeded tries', async () => {
    const failures: string[] = [];
    for (let seed = 0; seed < 100; seed++) {
      const { content } = await chat({
        messages: [
          { role: 'system', content: 'Answer in JSON with the fields "name" and "summary". Keep the values short.' },
          { role: 'user', content: `Describe the package ${QUESTIONS[seed % QUESTIONS.length].name}.` },
        ],
        max_tokens: 64,
        temperature: 0.8,
        seed,
        response_format: { type: 'json_schema', json_schema: { name: 'package', schema: SCHEMA } },
      });
      try {
        const value = JSON.parse(content) as { name?: unknown; summary?: unknown };
        if (typeof value.name !== 'string' || typeof value.summary !== 'string') failures.push(content);
      } catch {
        failures.push(content);
      }
    }
    if (failures.length > 5) process.stdout.write(`${failures.slice(0, 5).join('\n')}\n`);
    expect(failures.length).toBeLessThanOrEqual(5);
  }, 120_000);
});
