import { z } from 'zod';

export const createAccountSchema = z.object({ name: z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters') });
