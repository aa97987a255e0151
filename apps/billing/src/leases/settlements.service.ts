import { Injectable } from '@nestjs/common';
import { SettleReply } from '@svc/contracts';
import { SettleInput } from '../reservations/reservation.schemas';
import { ReservationsService } from '../reservations/reservations.service';
import { LeasedSettleInput, LeasesService } from './leases.service';

const isLeased = (input: SettleInput): input is LeasedSettleInput => input.lease !== undefined;

/**
 * BILLING.SETTLE and BILLING.SETTLE_BATCH: requests admitted under a credit lease settle together
 * in one transaction (LeasesService); requests with a reservation of their own settle one by one
 * as before (ReservationsService). Replies keep the items' order.
 */
@Injectable()
export class SettlementsService {
  constructor(
    private readonly reservations: ReservationsService,
    private readonly leases: LeasesService,
  ) {}

  async settle(input: SettleInput): Promise<SettleReply> {
    return isLeased(input) ? (await this.settleBatch([input]))[0] : this.reservations.settle(input);
  }

  async settleBatch(items: SettleInput[]): Promise<SettleReply[]> {
    const replies = new Array<SettleReply>(items.length);
    const leased: number[] = [];
    const oneByOne: number[] = [];
    items.forEach((item, i) => (isLeased(item) ? leased : oneByOne).push(i));
    if (leased.length > 0) {
      const results = await this.leases.settle(leased.map((i) => items[i] as LeasedSettleInput));
      results.forEach((result, k) => {
        // A held child (the gateway's fallback of a cut stream) is a reservation like any other now.
        if (result.status === 'deferred') oneByOne.push(leased[k]);
        else replies[leased[k]] = { status: result.status, currency: result.currency, chargedNano: result.charged.toString() };
      });
    }
    for (const i of oneByOne.sort((a, b) => a - b)) replies[i] = await this.reservations.settle(items[i]);
    return replies;
  }
}
