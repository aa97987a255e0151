import { domainErrorOf } from '@svc/testing';
import { assertBodyDepth, MAX_BODY_DEPTH, tooDeepField } from './body-depth';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('body depth', () => {
  it('lets a body nest up to the limit and names the top-level field that goes deeper', () => {
    expect(tooDeepField({ ok: nested(MAX_BODY_DEPTH - 1) })).toBeNull();
    expect(tooDeepField({ ok: nested(2), tools: nested(MAX_BODY_DEPTH) })).toBe('tools');
    expect(tooDeepField(nested(MAX_BODY_DEPTH + 1))).toBe('a');
    expect(tooDeepField([nested(MAX_BODY_DEPTH)])).toBe('');
    expect(tooDeepField('text')).toBeNull();
  });

  it('checks 100,000 levels without overflowing its own stack, and skips Buffers', () => {
    expect(tooDeepField({ deep: nested(100_000) })).toBe('deep');
    expect(tooDeepField({ file: Buffer.alloc(10) })).toBeNull();
  });

  it('refuses with a 400 naming the field, or the body', () => {
    const err = domainErrorOf(() => assertBodyDepth({ svc_parameters: nested(100) }));
    expect(err.status).toBe(400);
    expect(err.message).toBe('svc_parameters is nested deeper than 64 levels.');
    expect(err.details).toEqual({ _errors: [], svc_parameters: { _errors: ['nested deeper than 64 levels'] } });
    expect(domainErrorOf(() => assertBodyDepth([nested(100)])).message).toBe('The request body is nested deeper than 64 levels.');
    expect(domainErrorOf(() => assertBodyDepth(nested(100), 'meta')).details).toMatchObject({ meta: { _errors: ['nested deeper than 64 levels'] } });
  });
});
