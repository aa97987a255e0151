import { GatewayMetrics, NoGatewayMetrics } from './gateway-metrics';

const line = (text: string, prefix: string) => text.split('\n').find((l) => l.startsWith(prefix));

describe('GatewayMetrics', () => {
  it('counts requests per route pattern, method, model and status, reusing each series', async () => {
    const metrics = new GatewayMetrics();
    for (let i = 0; i < 3; i++) metrics.request('/api/v1/chat/completions', 'POST', 'm1', 200, 0.004);
    metrics.request('/api/v1/chat/completions', 'POST', 'm1', 402, 0.001);
    metrics.request('unmatched', 'GET', '', 404, 0.0001);
    const text = await metrics.registry.metrics();
    expect(line(text, 'svc_gateway_requests_total{route="/api/v1/chat/completions",method="POST",model="m1",status="200"}')).toMatch(/ 3$/);
    expect(line(text, 'svc_gateway_requests_total{route="/api/v1/chat/completions",method="POST",model="m1",status="402"}')).toMatch(/ 1$/);
    expect(
      line(text, 'svc_gateway_request_duration_seconds_bucket{le="0.005",route="/api/v1/chat/completions",method="POST",model="m1",status="200"}'),
    ).toMatch(/ 3$/);
    expect(line(text, 'svc_gateway_requests_total{route="unmatched",method="GET",model="",status="404"}')).toMatch(/ 1$/);
  });

  it('adds tokens, credit in currency units and RPC round trips', async () => {
    const metrics = new GatewayMetrics();
    metrics.usage('m1', 10, 8);
    metrics.usage('m1', 5, 0);
    metrics.creditHeld('m1', 'USD', 1_500_000_000n);
    metrics.creditCharged('m1', { usd: 0.25, diem: 0 });
    metrics.observe('keys.cmd.verify.v1', 0.002, 'ok');
    metrics.observe('keys.cmd.verify.v1', 0.003, 'ok');
    const text = await metrics.registry.metrics();
    expect(line(text, 'svc_gateway_tokens_total{model="m1",direction="in"}')).toMatch(/ 15$/);
    expect(line(text, 'svc_gateway_tokens_total{model="m1",direction="out"}')).toMatch(/ 8$/);
    expect(line(text, 'svc_gateway_credit_held_total{model="m1",currency="USD"}')).toMatch(/ 1.5$/);
    expect(line(text, 'svc_gateway_credit_charged_total{model="m1",currency="USD"}')).toMatch(/ 0.25$/);
    expect(line(text, 'svc_gateway_nats_rpc_duration_seconds_count{subject="keys.cmd.verify.v1",outcome="ok"}')).toMatch(/ 2$/);
  });

  it('records nothing when metrics are off', async () => {
    const metrics: GatewayMetrics = new NoGatewayMetrics();
    metrics.request('/api/v1/models', 'GET', '', 200, 0.001);
    metrics.refused('rate_limited', 'm1');
    const text = await metrics.registry.metrics();
    expect(text).not.toContain('svc_gateway_requests_total{');
    expect(text).not.toContain('svc_gateway_refusals_total{');
  });
});
