import { Injectable } from '@nestjs/common';
import { BillableUsage, BillingCurrency } from '@svc/contracts';
import { ModelPricing } from '@svc/pricing';

/** What settling needs from a reservation this replica made (never its status: Postgres decides that). */
export interface CachedReservation {
  modelId: string;
  pricing: ModelPricing;
  worstCase: BillableUsage;
  currency: BillingCurrency;
}

const MAX_ENTRIES = 100_000;

/**
 * Pricing snapshots of recent reservations made by this replica, so their settlement is one
 * round trip (billing_settle) instead of two (read the snapshot, then settle). A miss (another
 * replica reserved, a restart, an eviction) just reads the snapshot from Postgres. Identical
 * price objects are shared, so an entry is a few hundred bytes.
 */
@Injectable()
export class ReservationCache {
  private readonly entries = new Map<string, CachedReservation>();
  private readonly prices = new Map<string, ModelPricing>();

  remember(id: string, entry: CachedReservation, pricingJson: string): void {
    let pricing = this.prices.get(pricingJson);
    if (!pricing) {
      if (this.prices.size >= 1_000) this.prices.clear();
      pricing = entry.pricing;
      this.prices.set(pricingJson, pricing);
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(id, { ...entry, pricing });
  }

  get(id: string): CachedReservation | undefined {
    return this.entries.get(id);
  }

  forget(id: string): void {
    this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}
