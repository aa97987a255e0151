import { z } from 'zod';

/**
 * Validates the environment once at boot. On failure prints every problem with the variable
 * name and exits, so a misconfigured process never half-starts.
 */
export function loadConfig<S extends z.ZodType>(app: string, schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  - ${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`${app}: invalid configuration\n${lines.join('\n')}\nSee .env.example for every variable.`);
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}
