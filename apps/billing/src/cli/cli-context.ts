import { createLogger } from '@svc/logging';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { BillingConfig } from '../config';
import { createBillingDb } from '../database/billing-db';
import { migrateBillingDatabase } from '../database/billing-migrations';
import { LeasesRepository } from '../leases/leases.repository';
import { ReservationCache } from '../reservations/reservation.cache';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { LeaseSweeper } from '../sweeper/lease.sweeper';
import { ReservationSweeper } from '../sweeper/reservation.sweeper';

/** The service's own classes wired by hand against svc_billing: works while the platform is down. */
export interface CliContext {
  accounts: AccountsService;
  sweeper: ReservationSweeper;
  close(): Promise<void>;
}

export async function openCliContext(config: BillingConfig): Promise<CliContext> {
  await migrateBillingDatabase(config.BILLING_DATABASE_URL);
  const db = createBillingDb(config.BILLING_DATABASE_URL, 2);
  const logger = createLogger('billing-cli', config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  const reservations = new ReservationsRepository(db);
  return {
    accounts: new AccountsService(new AccountsRepository(db), config, logger),
    sweeper: new ReservationSweeper(
      reservations,
      new ReservationsService(reservations, new ReservationCache(), config, logger),
      new LeaseSweeper(new LeasesRepository(db), config, logger),
      config,
      logger,
    ),
    close: () => db.end(),
  };
}
