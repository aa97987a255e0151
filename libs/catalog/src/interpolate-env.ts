/**
 * Replaces `${NAME}` and `${NAME:-default}` in catalog strings, so operators keep upstream
 * addresses in the environment instead of editing the catalog per deployment.
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, missing: string[]): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      missing.push(name);
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolateEnv(v, env, missing));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateEnv(v, env, missing)]));
  }
  return value;
}
