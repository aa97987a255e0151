import { z } from 'zod';

/** `CallerContext`: who a request runs for, as the gateway authenticated it. */
export const callerContextSchema = z.looseObject({
  requestId: z.string().min(1).max(64),
  accountId: z.string().min(1).max(100),
  apiKeyId: z.string().min(1).max(100),
});
