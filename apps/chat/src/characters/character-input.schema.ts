import { z } from 'zod';

/** Same rules as the gateway's POST /characters body (the operator CLI writes without the gateway). */
export const characterInputSchema = z.object({
  slug: z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/, 'must be 1-100 lowercase letters, digits and dashes'),
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable().default(null),
  systemPrompt: z.string({ message: 'is required' }).trim().min(1, 'is required').max(20_000),
  modelId: z.string().min(1).max(200),
  tags: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
  categories: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
  adult: z.boolean().default(false),
  webEnabled: z.boolean().default(false),
  featured: z.boolean().default(false),
});
