import { z } from 'zod';

/** A price in both currencies. Per million tokens, per image, per second... depending on the field. */
export const priceSchema = z.object({ usd: z.number().nonnegative(), diem: z.number().nonnegative() });
export type Price = z.infer<typeof priceSchema>;
