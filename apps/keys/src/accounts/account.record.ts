import { ApiTier } from '@svc/contracts';

export interface AccountRecord {
  id: string;
  name: string;
  createdAt: Date;
  /** Which default rate limits apply (`npm run svc -- limits tier`). */
  apiTier: ApiTier;
  /** Keys not deleted. */
  activeKeys: number;
}
