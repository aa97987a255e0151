import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { REPO_ROOT } from '@svc/config';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * The admin console (apps/console) in headless Chromium against the platform as `npm start` runs
 * it (default catalog: svc-tiny-random for chat, svc-zoo-image for images). Debian's chromium
 * package provides the browser; CI installs it (.ci/run). CONSOLE_SCREENSHOTS=1 also writes a
 * screenshot of each page to docs/console/.
 */
const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) process.stderr.write(`console e2e skipped: no ${CHROMIUM} (apt-get install -y chromium)\n`);
const SHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs/console') : null;

(haveChromium ? describe : describe.skip)('the admin console in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [platform, browser] = await Promise.all([
      startPlatform({ timeoutMs: 180_000 }),
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] }),
    ]);
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(30_000);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const api = (p: string, key = platform.adminKey) => fetch(`${platform.apiUrl}${p}`, { headers: { authorization: `Bearer ${key}` } });
  const balanceHeader = async () => (await api('/billing/balance')).headers.get('x-svc-balance-usd')!;
  const nano = (decimal: string) => {
    const [whole, fraction = ''] = decimal.split('.');
    return BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0'));
  };
  const go = async (hash: string) => {
    await page.goto(`${platform.baseUrl}/console/#/${hash}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  };
  const shot = async (name: string) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
  };
  /** Settlement is asynchronous: poll the API until the balance is `expected`. */
  async function balanceBecomes(expected: bigint): Promise<void> {
    let last = 0n;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 150))) {
      last = nano(await balanceHeader());
      if (last === expected) return;
    }
    expect(last).toBe(expected);
  }

  let secret = '';

  it('is served by the gateway with caching headers, a CSP and compression, beside the API', async () => {
    const index = await fetch(`${platform.baseUrl}/console/`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await index.text())![1];
    const asset = await fetch(`${platform.baseUrl}${script}`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-encoding')).toBe('br');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cf-ray')).toBeTruthy();
    // API answers carry no console headers.
    expect((await api('/models')).headers.get('content-security-policy')).toBeNull();
  });

  it('signs in with the ADMIN key, kept in session storage only', async () => {
    await page.goto(`${platform.baseUrl}/console`);
    await shot('sign-in');
    await page.getByLabel('API key').fill(platform.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'API keys' }).waitFor();
    expect(await page.evaluate(`sessionStorage.getItem('svc-console-session')`)).toContain(platform.adminKey);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect((await page.context().cookies()).length).toBe(0);
    expect(page.url()).not.toContain(platform.adminKey);
  });

  it('creates a key and shows its secret once', async () => {
    await go('keys');
    await page.getByLabel('Description').first().fill('console e2e key');
    await page.getByRole('button', { name: 'Create key' }).click();
    secret = (await page.getByTestId('new-key-secret').textContent())!;
    expect(secret.length).toBeGreaterThan(20);
    const listed = page.getByRole('listitem', { name: 'Key console e2e key' });
    await listed.waitFor();
    expect(await listed.textContent()).toContain(secret.slice(-6));
    await shot('keys');
  });

  it('streams a chat answer with the new key, and the balance goes down by exactly the shown cost', async () => {
    const before = nano(await balanceHeader());
    await go('playground');
    await page.getByLabel('Call with another API key (optional)').fill(secret);
    await page.getByLabel('Model').selectOption('svc-tiny-random');
    await page.getByLabel('Max tokens (optional)').fill('8');
    await page.getByLabel('Message', { exact: true }).fill('Hello from the console');
    await page.getByRole('button', { name: 'Send' }).click();
    const costText = (await page.getByTestId('call-cost').textContent())!;
    const answer = (await page.getByTestId('assistant-turn').textContent())!;
    expect(answer.replace('Model:', '').trim().length).toBeGreaterThan(0);
    const cost = nano(costText.replace(' USD', ''));
    expect(cost).toBeGreaterThan(0n);
    await shot('playground');
    await balanceBecomes(before - cost);

    // The console's own balance display says the same.
    await go('credits');
    expect(nano((await page.getByTestId('balance-usd').textContent())!)).toBe(before - cost);
  });

  it('generates an image that the browser decodes, and charges its shown cost', async () => {
    const before = nano(await balanceHeader());
    await go('playground');
    await page.getByRole('tab', { name: 'Image' }).click();
    await page.getByLabel('Prompt').fill('a red circle on a blue background');
    await page.getByRole('button', { name: 'Generate' }).click();
    const image = page.getByTestId('generated-image');
    await image.waitFor();
    // Decoded by the browser: complete with a natural size (browser code as text: this file has no DOM types).
    await page.waitForFunction(
      `(() => { const img = document.querySelector('[data-testid="generated-image"]'); return !!img && img.complete && img.naturalWidth > 0; })()`,
    );
    expect(
      await page.evaluate(`(() => { const img = document.querySelector('[data-testid="generated-image"]'); return [img.naturalWidth, img.naturalHeight]; })()`),
    ).toEqual([256, 256]);
    const cost = nano((await page.getByTestId('call-cost').textContent())!.replace(' USD', ''));
    expect(cost).toBe(1_000_000n);
    await shot('playground-image');
    await balanceBecomes(before - cost);
  });

  it("renders the usage chart with the API's numbers", async () => {
    await go('credits');
    const analytics = (await (await api('/billing/usage-analytics?lookback=7d')).json()) as {
      byModelDaily: Array<Record<string, number | string>>;
      topModels: string[];
    };
    const today = analytics.byModelDaily.find((d) => Object.entries(d).some(([k, v]) => k !== 'date' && typeof v === 'number' && v > 0))!;
    expect(today).toBeDefined();
    const day = typeof today.date === 'number' ? new Date(today.date).toISOString().slice(0, 10) : today.date;
    const bars = page.locator(`svg g[data-date="${day}"] rect`);
    await bars.first().waitFor();
    const drawn = Object.fromEntries(
      await bars.evaluateAll((rects) => rects.map((r) => [r.getAttribute('data-series')!, Number(r.getAttribute('data-value'))])),
    );
    const expected = Object.fromEntries(Object.entries(today).filter(([k, v]) => k !== 'date' && typeof v === 'number' && v > 0));
    expect(drawn).toEqual(expected);
    // Today's bar stacks the chat and the image made above (series are the models' names).
    expect(Object.keys(drawn).sort()).toEqual(['SVC Tiny Random (test model)', 'SVC Zoo Image 32px (demo model)']);
    await shot('credits');
  });

  it('revokes the key after a confirmation, and the next call with it is refused with the API message', async () => {
    await go('keys');
    const item = page.getByRole('listitem', { name: 'Key console e2e key' });
    await item.getByRole('button', { name: 'Revoke' }).click();
    await item.getByRole('button', { name: 'Revoke key' }).click();
    await item.waitFor({ state: 'detached' });
    expect((await api('/api_keys')).status).toBe(200);

    await go('playground');
    await page.getByLabel('Call with another API key (optional)').fill(secret);
    await page.getByLabel('Model').selectOption('svc-tiny-random');
    await page.getByLabel('Max tokens (optional)').fill('4');
    // The gateway may serve a revoked key from its short key cache for a moment: retry briefly.
    const alert = page.getByRole('alert');
    for (let attempt = 0; attempt < 20; attempt++) {
      await page.getByLabel('Message', { exact: true }).fill('Are you still there?');
      await page.getByRole('button', { name: 'Send' }).click();
      await Promise.race([
        alert.waitFor({ timeout: 2_000 }).catch(() => undefined),
        page
          .getByTestId('call-cost')
          .waitFor({ timeout: 2_000 })
          .catch(() => undefined),
      ]);
      if (await alert.count()) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(await alert.textContent()).toMatch(/Invalid API key/);
  });

  it('shows the other pages (limits, models, characters, jobs), usable at phone width', async () => {
    await go('limits');
    await page
      .getByRole('cell', { name: 'svc-tiny-random' })
      .or(page.getByRole('rowheader', { name: 'svc-tiny-random' }))
      .first()
      .waitFor();
    await shot('limits');
    await go('models');
    await page.getByRole('listitem', { name: 'Model svc-zoo-image', exact: true }).waitFor();
    await shot('models');
    await go('characters');
    await page.getByRole('button', { name: 'Create character' }).waitFor();
    await shot('characters');
    await go('jobs');
    await page.getByLabel('Text to read').waitFor();
    await shot('jobs');
    await page.setViewportSize({ width: 390, height: 844 });
    await go('keys');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('keys-phone');
  });
});
