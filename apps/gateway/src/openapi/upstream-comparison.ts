/**
 * Compares the gateway's OpenAPI document with the reference's (../shared/reference/upstream-openapi.yaml)
 * on the paths both have: top-level request fields (body and query) and response statuses, after
 * translating the reference's names (venice -> svc). Used by openapi-upstream.spec.ts, which
 * checks each difference against docs/openapi-differences.md.
 */
type Json = Record<string, unknown>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The reference's names in ours: venice_parameters -> svc_parameters, x-venice-* -> x-svc-*. */
export const translateName = (name: string): string => name.replace(/venice/gi, (m) => (m[0] === 'V' ? 'Svc' : 'svc'));

function resolve(doc: Json, node: unknown): Json {
  let value = node as Json | undefined;
  for (let hops = 0; value && typeof value.$ref === 'string' && hops < 20; hops++) {
    value = (value.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], doc) as Json | undefined;
  }
  return value ?? {};
}

/** Property names of an object schema, through $ref, allOf, anyOf and oneOf. */
function fieldsOf(doc: Json, node: unknown, depth = 0): Set<string> {
  const schema = resolve(doc, node);
  const fields = new Set(Object.keys((schema.properties as Json | undefined) ?? {}));
  if (depth > 5) return fields;
  for (const key of ['allOf', 'anyOf', 'oneOf'])
    for (const part of (schema[key] as unknown[] | undefined) ?? []) fieldsOf(doc, part, depth + 1).forEach((f) => fields.add(f));
  return fields;
}

function requestFields(doc: Json, operation: Json): Set<string> {
  const fields = new Set<string>();
  const content = (resolve(doc, operation.requestBody).content as Json | undefined) ?? {};
  for (const media of Object.values(content)) fieldsOf(doc, (media as Json).schema).forEach((f) => fields.add(f));
  for (const parameter of (operation.parameters as unknown[] | undefined) ?? []) {
    const p = resolve(doc, parameter);
    if (p.in === 'query') fields.add(String(p.name));
  }
  return fields;
}

/** One line per difference, e.g. `POST /chat/completions: request field only in the reference: foo`. */
export function upstreamDifferences(ours: Json, reference: Json): string[] {
  const lines: string[] = [];
  const ourPaths = (ours.paths ?? {}) as Json;
  for (const [refPath, refItem] of Object.entries((reference.paths ?? {}) as Json)) {
    const path = translateName(refPath);
    for (const method of METHODS) {
      const refOp = (refItem as Json)[method] as Json | undefined;
      const ourOp = (ourPaths[path] as Json | undefined)?.[method] as Json | undefined;
      if (!refOp || !ourOp) continue;
      const route = `${method.toUpperCase()} ${path}`;
      const refFields = new Set([...requestFields(reference, refOp)].map(translateName));
      const ourFields = requestFields(ours, ourOp);
      for (const f of [...refFields].filter((f) => !ourFields.has(f)).sort()) lines.push(`${route}: request field only in the reference: ${f}`);
      for (const f of [...ourFields].filter((f) => !refFields.has(f)).sort()) lines.push(`${route}: request field only here: ${f}`);
      const refStatuses = new Set(Object.keys((refOp.responses as Json | undefined) ?? {}));
      const ourStatuses = new Set(Object.keys((ourOp.responses as Json | undefined) ?? {}));
      for (const s of [...refStatuses].filter((s) => !ourStatuses.has(s)).sort()) lines.push(`${route}: status only in the reference: ${s}`);
      for (const s of [...ourStatuses].filter((s) => !refStatuses.has(s)).sort()) lines.push(`${route}: status only here: ${s}`);
    }
  }
  return lines;
}
