import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { z } from 'zod';
import { DomainError } from '@svc/errors';
import { asRegex, sampler } from '../../../test/gbnf-sampler';
import { formatRule } from './format-rules';

const ajv = addFormats(new Ajv2020({ strict: false }));
const AT = ['response_format', 'json_schema', 'schema', 'properties', 'x'];

/** zod's own check for a format, where zod has it (its patterns are stricter than ajv-formats' in places). */
const ZOD: Record<string, z.ZodType> = {
  email: z.email(),
  uuid: z.uuid(),
  date: z.iso.date(),
  'date-time': z.iso.datetime(),
  uri: z.url(),
  ipv4: z.ipv4(),
};

describe('string formats with their length bounds, as one grammar rule', () => {
  it.each([
    ['email', undefined, 30],
    ['email', undefined, 6],
    ['email', undefined, 7],
    ['email', 5, 12],
    ['email', 25, 40],
    ['email', undefined, undefined],
    ['email', 100, 120],
    ['uri', undefined, 20],
    ['uri', undefined, 12],
    ['uri', 40, 60],
    ['uri', undefined, undefined],
    ['hostname', undefined, 4],
    ['hostname', 10, undefined],
    ['date', undefined, 10],
    ['date-time', undefined, 20],
    ['date-time', 24, 24],
    ['date-time', undefined, undefined],
    ['time', 9, 14],
    ['uuid', 36, 36],
    ['ipv4', undefined, 9],
    ['ipv4', 14, undefined],
    ['ipv4', undefined, undefined],
  ] as Array<[string, number | undefined, number | undefined]>)(
    '%s with minLength %p and maxLength %p: every drawn value fits both',
    (format, minLength, maxLength) => {
      const rule = formatRule(format, minLength, maxLength, AT)!;
      expect(rule).toBeDefined();
      const validate = ajv.compile({
        type: 'string',
        format,
        ...(minLength !== undefined ? { minLength } : {}),
        ...(maxLength !== undefined ? { maxLength } : {}),
      });
      const draw = sampler(rule, format.length * 31 + (maxLength ?? 0));
      const lengths = new Set<number>();
      for (let i = 0; i < 400; i++) {
        const text = draw();
        const value = JSON.parse(text) as string;
        lengths.add(value.length);
        expect([value, validate(value)]).toEqual([value, true]);
        if (ZOD[format]) expect([value, ZOD[format].safeParse(value).success]).toEqual([value, true]);
        expect(asRegex(rule).test(text)).toBe(true);
      }
      // Room for the model where the bounds leave the format everyday lengths.
      if (['email', 'uri'].includes(format) && (maxLength ?? 99) >= 20) expect(lengths.size).toBeGreaterThan(5);
    },
  );

  it('z.string().email().max(30): everyday addresses that fit, none longer than 30', () => {
    const rule = formatRule('email', undefined, 30, AT)!;
    for (const ok of ['"ada@example.com"', '"first.last@mail.org"', '"a@b.cd"']) expect([ok, asRegex(rule).test(ok)]).toEqual([ok, true]);
    for (const bad of ['"averyveryverylongname@example.com"', '"ada@"', '"a..b@example.com"', '".a@example.com"', '"a@b"'])
      expect([bad, asRegex(rule).test(bad)]).toEqual([bad, false]);
  });

  it.each([
    ['email', undefined, 5, /shorter than 6/],
    ['uuid', undefined, 35, /shorter than 36/],
    ['uuid', 37, undefined, /has 36 characters/],
    ['date', 11, 20, /has 10 characters/],
    ['date-time', 21, 21, /between 21 and 21/],
    ['uri', undefined, 11, /shorter than 12/],
    ['ipv4', undefined, 6, /7 to 15/],
  ] as Array<[string, number | undefined, number | undefined, RegExp]>)('%s with lengths [%p, %p]: a 400 naming the bound', (format, min, max, message) => {
    let error: unknown;
    try {
      formatRule(format, min, max, AT);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).status).toBe(400);
    expect((error as DomainError).message).toMatch(message);
    expect(JSON.stringify((error as DomainError).details)).toContain('"x"');
  });

  it('formats without a rule, and minimums past what the rule reaches, are left to the check after generation', () => {
    expect(formatRule('ipv6', undefined, 30, AT)).toBeUndefined();
    expect(formatRule('regex', undefined, undefined, AT)).toBeUndefined();
    expect(formatRule('email', 500, undefined, AT)).toBeUndefined();
  });
});
