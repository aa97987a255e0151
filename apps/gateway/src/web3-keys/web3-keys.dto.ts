import { z } from 'zod';
import { createKeySchema } from '../api-keys/api-keys.dto';

/** POST /api_keys/generate_web3_key: the key's fields as POST /api_keys takes them, plus the wallet's proof. */
export const generateWeb3KeySchema = createKeySchema.extend({
  description: createKeySchema.shape.description.default('Web3 API Key'),
  address: z.string().min(1).max(64),
  signature: z.string().min(1).max(1_024),
  token: z.string().min(1).max(512),
});
