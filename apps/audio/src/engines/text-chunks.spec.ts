import { splitForSpeech } from './text-chunks';

describe('splitForSpeech', () => {
  it('splits at sentence ends and drops blank space', () => {
    expect(splitForSpeech('Hello there.  How are you?\n\nFine!')).toEqual(['Hello there.', 'How are you?', 'Fine!']);
  });

  it('cuts long sentences at commas, then spaces, within the limit, losing no words', () => {
    const long = Array.from({ length: 60 }, (_, i) => `word${i}${i % 7 === 6 ? ',' : ''}`).join(' ');
    const pieces = splitForSpeech(long, 80);
    expect(pieces.length).toBeGreaterThan(3);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(80);
    expect(pieces.join(' ').split(/\s+/)).toEqual(long.split(/\s+/));
  });

  it('hard-cuts text without spaces', () => {
    const pieces = splitForSpeech('x'.repeat(250), 100);
    expect(pieces.map((p) => p.length)).toEqual([100, 100, 50]);
  });
});
