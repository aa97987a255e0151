import { TextPiece, ThinkSplitter } from './think-splitter';

/** Feeds `pieces` one by one and joins what came out by kind. */
function feed(pieces: string[]): { reasoning: string; text: string } {
  const splitter = new ThinkSplitter();
  const out: TextPiece[] = [...pieces.flatMap((p) => splitter.push(p)), ...splitter.flush()];
  const join = (kind: TextPiece['kind']) =>
    out
      .filter((p) => p.kind === kind)
      .map((p) => p.text)
      .join('');
  return { reasoning: join('reasoning'), text: join('text') };
}

describe('ThinkSplitter', () => {
  it('splits a leading <think> block from the answer, tags split anywhere across pieces', () => {
    const whole = '\n<think>Plan: say hi.</think>\n\nHi there.';
    for (let cut = 0; cut <= whole.length; cut++)
      for (let cut2 = cut; cut2 <= whole.length; cut2 += 3)
        expect(feed([whole.slice(0, cut), whole.slice(cut, cut2), whole.slice(cut2)])).toEqual({ reasoning: 'Plan: say hi.', text: 'Hi there.' });
  });

  it('text without a leading block is all answer, a later <think> included', () => {
    expect(feed(['<th', 'is is text'])).toEqual({ reasoning: '', text: '<this is text' });
    expect(feed(['Hi <think>x</think>'])).toEqual({ reasoning: '', text: 'Hi <think>x</think>' });
    expect(feed(['<thi'])).toEqual({ reasoning: '', text: '<thi' });
  });

  it('an unterminated block (cut by the token cap) is all reasoning', () => {
    expect(feed(['<think>still going</thi'])).toEqual({ reasoning: 'still going</thi', text: '' });
  });
});
