import { MODERATION_CATEGORIES } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { SafeMode } from '../images/safe-mode';
import { imageSafetyResult } from './image-safety-result';
import { parseResults } from './upstream-moderation.engine';

describe("the image classifier's result in OpenAI's categories", () => {
  it('scores sexual only, flagged from the threshold, for images; every other category false with score 0', () => {
    const clean = imageSafetyResult(0.2, 0.5);
    expect(Object.keys(clean.categories)).toEqual([...MODERATION_CATEGORIES]);
    expect(clean.flagged).toBe(false);
    expect(clean.category_scores.sexual).toBe(0.2);
    expect(clean.category_applied_input_types?.sexual).toEqual(['image']);
    const adult = imageSafetyResult(0.5, 0.5);
    expect([adult.flagged, adult.categories.sexual]).toEqual([true, true]);
    for (const category of MODERATION_CATEGORIES.filter((c) => c !== 'sexual')) {
      expect([adult.categories[category], adult.category_scores[category], adult.category_applied_input_types?.[category]]).toEqual([false, 0, []]);
    }
  });
});

describe("an upstream's moderation response", () => {
  it('keeps the four fields of each result (extra categories too) and drops values of the wrong type', () => {
    const body = {
      id: 'modr-1',
      model: 'omni',
      results: [
        {
          flagged: true,
          categories: { violence: true, illicit: null, odd: 'x' },
          category_scores: { violence: 0.9, odd: 'x' },
          category_applied_input_types: { violence: ['text', 'video'] },
          extra: 1,
        },
      ],
    };
    expect(parseResults(JSON.stringify(body))).toEqual([
      {
        flagged: true,
        categories: { violence: true, illicit: null },
        category_scores: { violence: 0.9 },
        category_applied_input_types: { violence: ['text'] },
      },
    ]);
  });

  it('is null for a body that is not one', () => {
    for (const text of ['not json', '{}', '{"results":[{"flagged":"no","categories":{},"category_scores":{}}]}', '{"results":[{"flagged":true}]}']) {
      expect(parseResults(text)).toBeNull();
    }
  });
});

describe('the classifier for moderation', () => {
  const rgb = new Uint8Array(4 * 4 * 3);

  it("answers the classifier's score, and 503 (never a clean verdict) when no classifier is loaded", async () => {
    const logger = createLogger('media-test', 'silent');
    const loaded = new SafeMode(async () => ({ score: async () => 0.7, close: async () => undefined }), 0.5, logger);
    expect(await loaded.score(rgb, 4, 4)).toBe(0.7);
    const err = await new SafeMode(async () => null, 0.5, logger).score(rgb, 4, 4).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(503);
  });
});
