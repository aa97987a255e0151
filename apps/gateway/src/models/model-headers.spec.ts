import { FastifyReply } from 'fastify';
import { modelSchema } from '@svc/catalog';
import { setModelHeaders } from './model-headers';

function fakeReply() {
  const headers: Record<string, string> = {};
  const reply = { header: (k: string, v: string) => ((headers[k] = v), reply) } as unknown as FastifyReply;
  return { reply, headers };
}

const base = {
  id: 'old-model',
  name: 'Old Model',
  type: 'text',
  engine: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'x' },
  pricing: {},
};

describe('x-svc-model-* headers', () => {
  it('names the model and the engine that ran it', () => {
    const { reply, headers } = fakeReply();
    setModelHeaders(reply, modelSchema.parse(base));
    expect(headers).toEqual({ 'x-svc-model-id': 'old-model', 'x-svc-model-name': 'Old Model', 'x-svc-model-router': 'openai-compatible' });
  });

  it('adds the deprecation warning and date for deprecated models', () => {
    const { reply, headers } = fakeReply();
    setModelHeaders(reply, modelSchema.parse({ ...base, deprecation: { date: '2027-01-31', warning: 'Use new-model instead.' } }));
    expect(headers['x-svc-model-deprecation-warning']).toBe('Use new-model instead.');
    expect(headers['x-svc-model-deprecation-date']).toBe('2027-01-31');
  });
});
