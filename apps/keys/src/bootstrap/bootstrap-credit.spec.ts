import { BILLING } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { BootstrapCredit } from './bootstrap-credit';
import { fakeRpc } from '@svc/messaging/testing';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';

function billingThatAnswersAfter(failures: number) {
  const calls: unknown[] = [];
  const { rpc } = fakeRpc({
    [BILLING.BOOTSTRAP_CREDIT]: (request) => {
      calls.push(request);
      if (calls.length <= failures) throw new DomainError(ErrorCode.ServiceUnavailable, 'The billing service is unavailable.');
      return { credited: calls.length === failures + 1, amountNano: '100000000000' };
    },
  });
  return { rpc, calls };
}

describe('BootstrapCredit', () => {
  it('waits for billing to come up, then asks once more and stops', async () => {
    const { rpc, calls } = billingThatAnswersAfter(2);
    const credit = new BootstrapCredit(rpc);
    await credit.request(ACCOUNT, 2_000);
    expect(calls).toEqual([{ accountId: ACCOUNT }, { accountId: ACCOUNT }, { accountId: ACCOUNT }]);
    credit.stop();
  });

  it('keeps asking in the background after its wait, until billing answers', async () => {
    const { rpc, calls } = billingThatAnswersAfter(3);
    const credit = new BootstrapCredit(rpc);
    await credit.request(ACCOUNT, 0);
    expect(calls).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 900));
    expect(calls).toHaveLength(4);
    await new Promise((r) => setTimeout(r, 400));
    expect(calls).toHaveLength(4);
    credit.stop();
  });
});
