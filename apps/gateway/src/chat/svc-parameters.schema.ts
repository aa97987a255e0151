import { z } from 'zod';
import { svcParametersSchema } from '@svc/contracts';

/** `svc_parameters` of a chat request: the rules live in @svc/contracts (shared with the chat service's messages). */
export { svcParametersSchema };
export type SvcParametersInput = z.infer<typeof svcParametersSchema>;
