/** 100 short texts (6 to 12 words) built from a fixed vocabulary, the same on every run. */
const WORDS =
  'the a king queen shepherd sheep river night light word land people house city sea fire stone bread wine law heart voice hand child mother father road mountain garden tree water gold silver'.split(
    ' ',
  );

export function shortTexts(count = 100): string[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: count }, () => Array.from({ length: 6 + (next() % 7) }, () => WORDS[next() % WORDS.length]).join(' ') + '.');
}
