import { moderationBody } from './synthetic-moderation';

describe("the fake upstream's moderation answer", () => {
  it('flags only what a text marks, one result per string or one for parts, and refuses other input', () => {
    const strings = moderationBody({ model: 'm', input: ['calm', 'x [flag:hate]'] }, 'modr-1') as {
      results: Array<{ flagged: boolean; categories: Record<string, boolean> }>;
    };
    expect(strings.results.map((r) => [r.flagged, r.categories.hate])).toEqual([
      [false, false],
      [true, true],
    ]);
    const parts = moderationBody(
      {
        input: [
          { type: 'text', text: '[flag:violence]' },
          { type: 'image_url', image_url: { url: 'data:,' } },
        ],
      },
      'modr-2',
    ) as {
      model: string;
      results: Array<{ categories: Record<string, boolean> }>;
    };
    expect([parts.model, parts.results.length, parts.results[0].categories.violence]).toEqual(['fake-moderation', 1, true]);
    expect(typeof moderationBody({ input: 3 }, 'modr-3')).toBe('string');
  });
});
