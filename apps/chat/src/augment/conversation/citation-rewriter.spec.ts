import { CitationRewriter } from './citation-rewriter';

const rewrite = (text: string, sources = 3, mode?: 'rewrite' | 'suppress') => CitationRewriter.rewriteAll(text, { sources, mode });

describe('CitationRewriter', () => {
  it('rewrites bracket, parenthesis and <sup> forms to carets', () => {
    expect(rewrite('Lanterns are old [1]. Glass too [1, 2].')).toBe('Lanterns are old ^1^. Glass too ^1,2^.');
    expect(rewrite('Brass (2) and glass (1,3).')).toBe('Brass ^2^ and glass ^1,3^.');
    expect(rewrite('See<sup>1</sup> and<sup>[2]</sup> and <sup>1, 3</sup>.')).toBe('See^1^ and^2^ and ^1,3^.');
    expect(rewrite('Both [1][2].')).toBe('Both ^1,2^.');
    expect(rewrite('Already ^1^ fine.')).toBe('Already ^1^ fine.');
  });

  it('leaves numbers that are not sources alone (years, list items past the count, arrays)', () => {
    expect(rewrite('In (2024) there were [4] items and a[0] index; f(x) and [a].')).toBe('In (2024) there were [4] items and a[0] index; f(x) and [a].');
    expect(rewrite('Mixed [1, 9] stays.')).toBe('Mixed [1, 9] stays.');
  });

  it('suppresses markers instead when asked', () => {
    expect(rewrite('Old [1] and new<sup>2</sup>.', 3, 'suppress')).toBe('Old  and new.');
  });

  it('gives the same output for every way of splitting the stream into chunks', () => {
    const text = 'A [1] b (2,3) c<sup>[1]</sup> d [7] e (x) f <b>bold</b> g [1][3] h <sup>2</sup>(3) i (1)<sup>2</sup>';
    const whole = rewrite(text);
    expect(whole).toBe('A ^1^ b ^2,3^ c^1^ d [7] e (x) f <b>bold</b> g ^1,3^ h ^2,3^ i ^1,2^');
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j++) {
        const r = new CitationRewriter({ sources: 3 });
        const out = r.push(text.slice(0, i)) + r.push(text.slice(i, j)) + r.push(text.slice(j)) + r.flush();
        if (out !== whole) throw new Error(`split at ${i},${j}: ${out}`);
      }
    }
    const chars = new CitationRewriter({ sources: 3 });
    expect([...text].map((c) => chars.push(c)).join('') + chars.flush()).toBe(whole);
  });

  it('holds back only a possible marker prefix, and releases it when it cannot be one', () => {
    const r = new CitationRewriter({ sources: 3 });
    expect(r.push('Lanterns [')).toBe('Lanterns ');
    expect(r.push('1')).toBe('');
    expect(r.push('] glow <su')).toBe('^1^ glow ');
    expect(r.push('mmary>')).toBe('<summary>');
    expect(r.push(' end (')).toBe(' end ');
    expect(r.flush()).toBe('(');
  });
});
