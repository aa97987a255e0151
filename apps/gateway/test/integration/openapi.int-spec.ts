import { parse } from 'yaml';
import { Gateway, RateLimitStack, startRateLimitStack } from './support/rate-limit-stack';

/**
 * The published API description and its docs page, against a real gateway process: readable
 * without a key, in the media types clients and viewers expect, and the page needs no network.
 */
let stack: RateLimitStack;
let gateway: Gateway;

beforeAll(async () => {
  stack = await startRateLimitStack();
  gateway = await stack.startGateway('gateway-openapi', {});
}, 180_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const get = (path: string) => fetch(`${gateway.api}${path}`);

describe('the OpenAPI document and the docs page', () => {
  it('serves the document as YAML and JSON without a key, both the same 3.1 document versioned like x-svc-version', async () => {
    const [yamlAnswer, jsonAnswer] = await Promise.all([get('/openapi.yaml'), get('/openapi.json')]);
    expect(yamlAnswer.status).toBe(200);
    expect(yamlAnswer.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(jsonAnswer.status).toBe(200);
    expect(jsonAnswer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const fromYaml = parse(await yamlAnswer.text());
    expect(await jsonAnswer.json()).toEqual(fromYaml);
    expect(fromYaml.openapi).toBe('3.1.0');
    expect(fromYaml.info.version).toBe(yamlAnswer.headers.get('x-svc-version'));
    expect(fromYaml.paths['/chat/completions'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('svc_parameters');
    expect(yamlAnswer.headers.get('cf-ray')).toBeTruthy();
  });

  it('renders it on a page whose scripts and styles the gateway serves itself (no CDN)', async () => {
    const page = await get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="\/api\/v1(\/docs\/[^"]+)"/g)].map(([, href]) => href);
    expect(assets.sort()).toEqual(['/docs/docs-init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
    for (const href of assets) {
      const asset = await get(href);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(href.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(50);
    }
    const init = await (await get('/docs/docs-init.js')).text();
    expect(init).toContain("url: '/api/v1/openapi.json'");
    // With a trailing slash too (the same page, the same absolute asset paths).
    expect(await (await get('/docs/')).text()).toBe(html);
  });

  it('answers an unknown docs asset 404 in the one error shape', async () => {
    const answer = await get('/docs/..%2F..%2Fpackage.json');
    expect(answer.status).toBe(404);
    expect(Object.keys((await answer.json()) as object)).toEqual(['error']);
  });
});
