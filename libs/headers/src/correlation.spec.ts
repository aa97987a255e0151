import { everyResponseHeaders, inboundCorrelation } from './correlation';

describe('correlation', () => {
  it('sends our request id as both CF-RAY and x-request-id', () => {
    expect(everyResponseHeaders('abc123')).toMatchObject({ 'cf-ray': 'abc123', 'x-request-id': 'abc123', 'x-svc-version': expect.any(String) });
  });

  it('takes a short, safe inbound x-request-id and the trace id of a valid traceparent', () => {
    expect(inboundCorrelation({ 'x-request-id': 'req_01HX:a-b.c', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })).toEqual({
      clientRequestId: 'req_01HX:a-b.c',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    // A later version may append fields.
    expect(inboundCorrelation({ traceparent: '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra' }).traceId).toBe(
      '4bf92f3577b34da6a3ce929d0e0e4736',
    );
  });

  it('ignores anything malformed, long or unsafe to log', () => {
    for (const id of ['', 'x'.repeat(65), 'a b', 'a\u0000b', '<script>', 'ä', 'a"b']) expect(inboundCorrelation({ 'x-request-id': id })).toEqual({});
    expect(inboundCorrelation({ 'x-request-id': ['a', 'b'] })).toEqual({});
    for (const tp of [
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01',
      'garbage',
    ])
      expect(inboundCorrelation({ traceparent: tp })).toEqual({});
  });
});
