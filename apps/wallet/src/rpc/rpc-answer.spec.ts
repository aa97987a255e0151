import { JsonRpcRequestItem } from '@svc/contracts';
import { answersBody, chargedCredits } from './rpc-answer';

const item = (id: number | string, method = 'eth_call'): JsonRpcRequestItem => ({ jsonrpc: '2.0', method, id });
const errorCredits = (full: number) => Math.min(5, full);

describe('chargedCredits', () => {
  it('charges a result in full and an error at the error credits', () => {
    expect(chargedCredits([item(1)], [20], { jsonrpc: '2.0', id: 1, result: '0x1' }, errorCredits)).toBe(20);
    expect(chargedCredits([item(1)], [20], { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'invalid params' } }, errorCredits)).toBe(5);
  });

  it('matches a reordered batch by id, charges nothing for an unanswered item or a stranger id', () => {
    const items = [item(1), item('b'), item(3), item(1)];
    const answer = [
      { jsonrpc: '2.0', id: 3, error: { code: -1, message: 'x' } },
      { jsonrpc: '2.0', id: 1, result: 1 },
      { jsonrpc: '2.0', id: 'b', result: 2 },
      { jsonrpc: '2.0', id: 99, result: 3 },
    ];
    expect(chargedCredits(items, [20, 40, 80, 20], answer, errorCredits)).toBe(20 + 40 + 5);
  });

  it('never charges more than the hold, whatever the node answers', () => {
    const items = [item(1), item(2)];
    const answer = Array.from({ length: 10 }, () => ({ jsonrpc: '2.0', id: 1, result: 1 }));
    expect(chargedCredits(items, [20, 20], answer, errorCredits)).toBe(20);
    expect(chargedCredits(items, [20, 20], { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } }, errorCredits)).toBe(5);
  });
});

describe('answersBody', () => {
  it('accepts a response object for a single request, an array of them (or one error) for a batch', () => {
    expect(answersBody(false)({ jsonrpc: '2.0', id: 1, result: null })).toBe(true);
    expect(answersBody(false)([{ jsonrpc: '2.0', id: 1, result: 1 }])).toBe(false);
    expect(answersBody(false)({ hello: 'world' })).toBe(false);
    expect(
      answersBody(true)([
        { id: 1, result: 1 },
        { id: 2, error: {} },
      ]),
    ).toBe(true);
    expect(answersBody(true)([{ id: 1, result: 1 }, 'x'])).toBe(false);
    expect(answersBody(true)({ id: null, error: { code: -32600 } })).toBe(true);
  });
});
