import { z } from 'zod';
import { createKeyRequestSchema, updateKeyRequestSchema } from '@svc/contracts';

// The message schemas are @svc/contracts' (keys/schemas.ts); what the keys service adds:

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID.test(value);

export type CreateKeyInput = z.output<typeof createKeyRequestSchema>;
export type UpdateKeyInput = z.output<typeof updateKeyRequestSchema>;
