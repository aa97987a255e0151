import { BILLING, SettleRequest } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { RpcClient } from './rpc-client';
import { BillingSettler, promptTokensOnAbort } from './billing-settler';

function fakeRpc(failures: ErrorCode[]) {
  const sent: SettleRequest[] = [];
  const rpc = {
    send: async (subject: string, request: SettleRequest) => {
      expect(subject).toBe(BILLING.SETTLE);
      sent.push(request);
      const code = failures.shift();
      if (code) throw new DomainError(code, 'failed');
      return { status: 'settled', currency: 'USD', chargedNano: '1' };
    },
  } as unknown as RpcClient;
  return { rpc, sent };
}

const logger = createLogger('chat-test', 'silent');

describe('BillingSettler', () => {
  it('sends the exact usage for the reservation, as the service', async () => {
    const { rpc, sent } = fakeRpc([]);
    const settler = new BillingSettler(rpc, logger);
    settler.settle({ reservationId: 'r1' }, 'req', 'completed', { kind: 'text', promptTokens: 5, completionTokens: 7 }, 12);
    await settler.drain();
    expect(sent).toEqual([{ reservationId: 'r1', source: 'service', outcome: 'completed', usage: { kind: 'text', promptTokens: 5, completionTokens: 7 }, executionMs: 12 }]);
  });

  it('settles around an engine call: completed with the usage it charged, released when it fails first', async () => {
    const { rpc, sent } = fakeRpc([]);
    const settler = new BillingSettler(rpc, logger);
    const usage = { kind: 'tts' as const, characters: 12 };
    await expect(settler.around({ reservationId: 'ok' }, 'req', async (charge) => (charge(usage), 'done'))).resolves.toBe('done');
    await expect(
      settler.around({ reservationId: 'late' }, 'req', async (charge) => {
        charge(usage);
        throw new Error('delivery failed after the engine ran');
      }),
    ).rejects.toThrow('delivery failed');
    await expect(
      settler.around({ reservationId: 'early' }, 'req', async () => {
        throw new Error('engine failed');
      }),
    ).rejects.toThrow('engine failed');
    await settler.around({ reservationId: 'silent' }, 'req', async () => 'no charge');
    await settler.drain();
    expect(sent.map((r) => [r.reservationId, r.outcome, r.usage])).toEqual([
      ['ok', 'completed', usage],
      ['late', 'completed', usage],
      ['early', 'failed', null],
      ['silent', 'failed', null],
    ]);
  });

  it('retries while billing is unreachable, and stops on a permanent refusal', async () => {
    const transient = fakeRpc([ErrorCode.ServiceUnavailable, ErrorCode.Timeout]);
    const a = new BillingSettler(transient.rpc, logger);
    a.settle({ reservationId: 'r1' }, 'req', 'cut', null);
    await a.drain();
    expect(transient.sent).toHaveLength(3);
    const permanent = fakeRpc([ErrorCode.Validation]);
    const b = new BillingSettler(permanent.rpc, logger);
    b.settle({ reservationId: 'r2' }, 'req', 'cut', null);
    await b.drain();
    expect(permanent.sent).toHaveLength(1);
  });

  it('does nothing for a request without a reservation', async () => {
    const { rpc, sent } = fakeRpc([]);
    const settler = new BillingSettler(rpc, logger);
    settler.settle(undefined, 'req', 'completed', null);
    await settler.drain();
    expect(sent).toEqual([]);
  });

  it('reads a prompt count an engine attaches to its abort error, if any', () => {
    expect(promptTokensOnAbort(Object.assign(new Error('aborted'), { promptTokens: 42 }))).toBe(42);
    expect(promptTokensOnAbort(new Error('aborted'))).toBeNull();
    expect(promptTokensOnAbort(undefined)).toBeNull();
  });
});
