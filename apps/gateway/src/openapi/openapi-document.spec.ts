import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { validate } from '@readme/openapi-parser';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@svc/config';
import { declaredRoutes } from '@svc/testing';
import { Access, ACCESS } from '../auth/auth.decorators';
import { buildOpenApiDocument } from './openapi-document';
import { ROUTE_DOCS } from './route-docs';

const document = buildOpenApiDocument();
const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  Object.keys(item ?? {})
    .filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))
    .map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
);

describe('the published OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result).toMatchObject({ valid: true });
    expect(document.openapi).toBe('3.1.0');
  });

  it('describes every route the controllers declare, and no other', () => {
    expect(operations.sort()).toEqual(declaredRoutes());
  });

  it('has a date-time version, the bearer API key scheme, and no key on public routes', () => {
    expect(document.info.version).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    expect(document.components?.securitySchemes?.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths?.['/models']?.get?.security).toEqual([]);
    // A key, or a wallet's SIGN-IN-WITH-X (docs/wallet.md); ADMIN routes take a key only.
    expect(document.paths?.['/chat/completions']?.post?.security).toEqual([{ apiKey: [] }, { siwx: [] }]);
    expect(document.paths?.['/api_keys']?.get?.security).toEqual([{ apiKey: [] }]);
    expect(document.components?.securitySchemes?.siwx).toMatchObject({ type: 'apiKey', in: 'header', name: 'SIGN-IN-WITH-X' });
  });

  it('carries svc_parameters, the error shapes and the spec headers', () => {
    const chat = document.paths?.['/chat/completions']?.post;
    const json = JSON.stringify(chat);
    expect(json).toContain('"svc_parameters"');
    expect(json).toContain('include_svc_system_prompt');
    expect(Object.keys(chat?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '402', '429', '500', '503']));
    expect(JSON.stringify(chat?.responses?.['400'])).toContain('DetailedError');
    expect(Object.keys((chat?.responses?.['200'] as { headers: object }).headers)).toEqual(
      expect.arrayContaining(['cf-ray', 'x-request-id', 'x-svc-version', 'x-ratelimit-remaining-requests', 'x-svc-balance-usd']),
    );
    expect(document.components?.schemas).toHaveProperty('StandardError');
  });

  it("describes every error in OpenAI's shape with ERROR_STYLE=openai, x402's 402 kept", async () => {
    const openai = buildOpenApiDocument(ROUTE_DOCS, 'openai');
    expect(await validate(structuredClone(openai) as never)).toMatchObject({ valid: true });
    const chat = openai.paths?.['/chat/completions']?.post?.responses;
    for (const status of ['400', '401', '429', '500']) expect(JSON.stringify(chat?.[status])).toContain('OpenAiError');
    expect(JSON.stringify(chat?.['400'])).not.toContain('DetailedError');
    expect(JSON.stringify(chat?.['402'])).toMatch(/OpenAiError.*X402InferencePaymentRequired/);
    expect(JSON.stringify(openai.paths?.['/models']?.get?.responses)).not.toContain('StandardError');
  });

  it("lets charged inference answer a wallet's 402 with x402's body and PAYMENT-REQUIRED, and keys' with the error shape", () => {
    const payment = document.paths?.['/chat/completions']?.post?.responses?.['402'] as { headers: object; content: object };
    expect(JSON.stringify(payment.content)).toMatch(/StandardError.*X402InferencePaymentRequired/);
    expect(Object.keys(payment.headers)).toEqual(expect.arrayContaining(['payment-required', 'x-balance-remaining']));
    expect(document.components?.schemas?.X402InferencePaymentRequired).toMatchObject({ required: expect.arrayContaining(['code', 'siwxChallenge']) });
  });
});

/** Every controller's routes with the access their decorators give them (`@Public`, `@AdminOnly`, else any key). */
async function declaredAccess(): Promise<Record<string, string>> {
  const root = path.join(REPO_ROOT, 'apps/gateway/src');
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.controller.ts'));
  const access: Record<string, string> = {};
  const asDoc = (a: Access | undefined) => (a === 'public' ? 'public' : a === 'admin' ? 'admin' : 'key');
  for (const file of files) {
    for (const exported of Object.values((await import(path.join(root, file))) as Record<string, unknown>)) {
      if (typeof exported !== 'function' || Reflect.getMetadata(PATH_METADATA, exported) === undefined) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, exported));
      for (const name of Object.getOwnPropertyNames(exported.prototype)) {
        const handler = (exported.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const sub = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (sub === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const route = `/${[base, sub].filter((p) => p && p !== '/').join('/')}`;
        access[`${method} ${route}`] = asDoc(Reflect.getMetadata(ACCESS, handler) ?? Reflect.getMetadata(ACCESS, exported));
      }
    }
  }
  return access;
}

describe('route-docs.ts', () => {
  it('documents the JSON-RPC proxy’s optional Idempotency-Key header with its pattern', () => {
    const parameters = (document.paths?.['/crypto/rpc/{network}']?.post?.parameters ?? []) as Array<{
      in: string;
      name: string;
      required?: boolean;
      schema?: { pattern?: string };
    }>;
    expect(parameters.find((p) => p.in === 'header')).toMatchObject({ name: 'Idempotency-Key', schema: { pattern: '^[A-Za-z0-9_-]{1,255}$' } });
    expect(parameters.find((p) => p.in === 'header')?.required).not.toBe(true);
  });

  it("says who may call each route as the controllers' decorators do", async () => {
    const documented = Object.fromEntries(Object.entries(ROUTE_DOCS).map(([route, doc]) => [route, doc.access]));
    const declared = await declaredAccess();
    expect(Object.keys(declared).sort()).toEqual(declaredRoutes());
    expect(documented).toEqual(declared);
  });
});
