import { Msg, NatsConnection, Subscription } from 'nats';
import {
  BalanceReply,
  BILLING,
  KeyUsageReply,
  LeaseOpenReply,
  ReserveReply,
  ReserveRequest,
  SettleBatchReply,
  SettleBatchRequest,
  SettleReply,
} from '@svc/contracts';

const PLENTY = '1000000000000000';

// Nest's NATS packet format, spelled out here: importing @svc/messaging would make the testing
// lib and the messaging lib (whose tests use this lib) depend on each other.
interface NestRequestPacket {
  id: string;
  data: unknown;
}
const encodeJson = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const decodeJson = <T>(bytes: Uint8Array): T => JSON.parse(new TextDecoder().decode(bytes)) as T;

/**
 * A billing service that grants every reservation (a private NATS's `billing` queue group), so
 * rate-limit tests see only rate limits: a refusal by billing would release the rate-limit slot.
 */
export function startFakeBilling(nc: NatsConnection): () => void {
  const answer = <Req, Res>(subject: string, reply: (data: Req) => Res): Subscription =>
    nc.subscribe(subject, {
      queue: 'billing',
      callback: (_err, msg: Msg) => {
        const packet = decodeJson<NestRequestPacket>(msg.data);
        msg.respond(encodeJson({ id: packet.id, response: reply(packet.data as Req), isDisposed: true }));
      },
    });
  const subs = [
    answer(BILLING.RESERVE, (req: ReserveRequest): ReserveReply => ({
      reservationId: req.reservationId,
      currency: 'USD',
      heldNano: '0',
      balancesBefore: { usd: PLENTY, diem: '0' },
      replay: false,
    })),
    answer(BILLING.SETTLE, (): SettleReply => ({ status: 'settled', currency: 'USD', chargedNano: '0' })),
    answer(BILLING.SETTLE_BATCH, (req: SettleBatchRequest): SettleBatchReply => ({
      results: req.items.map(() => ({ status: 'settled', currency: 'USD', chargedNano: '0' })),
    })),
    // No leases: every request takes the reservation path above.
    answer(BILLING.LEASE_OPEN, (): LeaseOpenReply => ({ outcome: 'exact' })),
    answer(BILLING.BALANCE, (): BalanceReply => ({
      usdNano: PLENTY,
      diemNano: '0',
      diemAllocationNano: '0',
      consumptionOrder: 'USD_FIRST',
      consumptionCurrency: 'USD',
      canConsume: true,
      epoch: new Date().toISOString().slice(0, 10),
    })),
    answer(BILLING.KEY_USAGE, (): KeyUsageReply => ({ usage: {} })),
  ];
  return () => subs.forEach((s) => s.unsubscribe());
}
