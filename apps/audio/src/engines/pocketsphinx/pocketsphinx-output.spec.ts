import { parsePocketsphinx } from './pocketsphinx-output';

const OUTPUT = `hello world this is a test
<s> 0.070 0.150 0.999400
hello(2) 0.160 0.590 0.999500
world 0.600 1.050 0.999500
<sil> 1.050 1.200 0.99
this 1.210 1.380 0.998900
</s> 1.390 1.500 1.000000
is a test
<s> 2.000 2.100 1.0
is 2.110 2.300 0.95
[NOISE] 2.300 2.350 0.5
a 2.360 2.400 0.4
test 2.410 2.900 0.3
</s> 2.900 3.000 1.0
`;

describe('parsePocketsphinx', () => {
  it('reads words with times, dropping fillers and pronunciation variants, and groups utterances into segments', () => {
    const { words, segments } = parsePocketsphinx(OUTPUT);
    expect(words.map((w) => w.word)).toEqual(['hello', 'world', 'this', 'is', 'a', 'test']);
    expect(words[0]).toEqual({ word: 'hello', start: 0.16, end: 0.59 });
    expect(segments).toEqual([
      { text: 'hello world this', start: 0.16, end: 1.38 },
      { text: 'is a test', start: 2.11, end: 2.9 },
    ]);
  });

  it('returns nothing for silence', () => {
    expect(parsePocketsphinx('\n<s> 0.0 0.5 1.0\n</s> 0.5 1.0 1.0\n')).toEqual({ words: [], segments: [] });
  });
});
