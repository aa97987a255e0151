import { stripThinking, ThinkStripper } from './think-stripper';

/** Feeds `pieces` one by one and returns everything emitted. */
function streamed(pieces: string[]): string {
  const stripper = new ThinkStripper();
  return pieces.map((p) => stripper.push(p)).join('') + stripper.flush();
}

const CASES: Array<[string, string]> = [
  ['<think>plan the answer</think>\n\nThe sky is blue.', 'The sky is blue.'],
  ['No thinking here.', 'No thinking here.'],
  ['Before <think>hidden</think> after', 'Before after'],
  ['<think>a</think>one<think>b</think> two', 'one two'],
  ['<think>\n</think>\n\n', ''],
  ['<think>cut off by max_tokens', ''],
  ['a < b and <thin ice> stays', 'a < b and <thin ice> stays'],
  ['ends with a partial <thin', 'ends with a partial <thin'],
  ['x <think>has < and </ inside</think>y', 'x y'],
  ['</think> stray close stays', '</think> stray close stays'],
  ['<think><think>nested</think>after', 'after'],
  ['unicode é <think>ü</think>ß', 'unicode é ß'],
];

describe('stripThinking', () => {
  it.each(CASES)('%j -> %j', (input, expected) => {
    expect(stripThinking(input)).toBe(expected);
  });
});

describe('ThinkStripper over every split point', () => {
  it.each(CASES)('%j gives the same text however it is cut in two or three pieces', (input, expected) => {
    for (let i = 0; i <= input.length; i++) {
      expect(streamed([input.slice(0, i), input.slice(i)])).toBe(expected);
      for (let j = i; j <= input.length; j++) {
        expect(streamed([input.slice(0, i), input.slice(i, j), input.slice(j)])).toBe(expected);
      }
    }
  });

  it.each(CASES)('%j gives the same text one character at a time', (input, expected) => {
    expect(streamed([...input])).toBe(expected);
  });

  it('emits text as soon as it cannot be part of a tag', () => {
    const stripper = new ThinkStripper();
    expect(stripper.push('Hello <')).toBe('Hello ');
    expect(stripper.push('b>')).toBe('<b>');
    expect(stripper.push('<think>secret')).toBe('');
    expect(stripper.push('</thi')).toBe('');
    expect(stripper.push('nk> Visible')).toBe(' Visible');
  });
});
