import { z } from 'zod';
import { x402Env } from './x402.config';

export type X402Config = z.infer<z.ZodObject<typeof x402Env>>;
export const X402_CONFIG = Symbol('X402_CONFIG');
export const X402_LOGGER = Symbol('X402_LOGGER');
