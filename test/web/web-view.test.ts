import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, serveHome } from '../../scripts/lib/web-run.mjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';

/**
 * The web view end to end (issue 35): `moon serve` on the examples' home, Debian's chromium driven by
 * playwright-core (never `playwright install`). Where no chromium is installed the browser cases are skipped and
 * say why — unless MOON_TEST_BROWSER=required (CI, which installs it), where they fail instead.
 */
const CHROMIUM = process.env.MOON_TEST_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const required = process.env.MOON_TEST_BROWSER === 'required';
const TOKEN = 'web-view-token-0123456789abcdef0123456789';
const DEPLOY_SESSION = '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d';
/**
 * The README's recall examples (README.md, "Try it on the bundled examples") and the session each promises — as
 * test/cli/readme-examples.test.ts has them for the CLI. The ledger session is forgotten last, by its own case.
 */
const README_EXAMPLES: Record<string, string> = {
  '"what happened at 05:39 AEDT"': '5f3c2a1e',
  '"why did the build fail"': '5f3c2a1e',
  '"stripe webhook 401 early in the session"': 'a7d41c09',
  '"postgres backup in January 2026"': '3e8f1a2b',
  'setSystemTime --tool apply_patch': '019c8b2e',
  '"deploy last Saturday morning"': '5f3c2a1e',
};
/** Forgotten by one case: no other case reads it. */
const LEDGER_SESSION = '019c8b2e-4a1f-7d3c-b5e6-2f8a9c0d1e3b';

let cleanup: () => void;
let home: string;
const servers: ChildProcess[] = [];
let browser: Browser | null = null;

/** `moon serve --port 0` on the home; resolves to its base URL. */
async function serve(env: Record<string, string> = {}): Promise<string> {
  const { url, child } = await serveHome(home, env);
  servers.push(child);
  return url;
}

/** A raw GET with the headers given (fetch will not send a foreign Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  const temp = makeTempDir('moon-web-');
  cleanup = temp.cleanup;
  home = join(temp.path, 'home');
  const indexed = await spawnMoon(['index', join(REPO, 'examples')], { MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' });
  expect(indexed.code, indexed.stderr).toBe(0);
  if (hasChromium) {
    browser = await launchChromium(CHROMIUM);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const child of servers) child.kill();
  cleanup();
});

describe('the web view behind the API\'s checks', () => {
  test('the page, its script and stylesheet are served from the build, with a policy that allows nothing else', async () => {
    const url = await serve();
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    expect(html).toContain('/app.js');
    expect(html).not.toMatch(/https?:\/\//);
    const script = await fetch(`${url}/app.js`);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(1000);
  });

  test('a refused Host or Origin gets no page', async () => {
    const url = await serve();
    const { port } = new URL(url);
    const rebound = await rawGet(`${url}/`, { host: `attacker.example:${port}` });
    expect(rebound.status).toBe(421);
    expect(rebound.type).toMatch(/json/);
    expect(rebound.body).not.toContain('<html');
    const crossSite = await rawGet(`${url}/`, { host: `127.0.0.1:${port}`, origin: 'https://attacker.example' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).not.toContain('<html');
    const script = await rawGet(`${url}/app.js`, { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' });
    expect(script.status).toBe(403);
  });

  test('with a token: no page without it; /?token= once keeps it in an HttpOnly cookie and leaves the address bar', async () => {
    const url = await serve({ MOON_HTTP_TOKEN: TOKEN });
    expect((await fetch(`${url}/`)).status).toBe(401);
    expect((await fetch(`${url}/?token=wrong-token`, { redirect: 'manual' })).status).toBe(401);
    const opened = await fetch(`${url}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/');
    const cookie = opened.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/moon_token=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const withCookie = await fetch(`${url}/v1/sessions`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(withCookie.status).toBe(200);
  });
});

describe.skipIf(!hasChromium && !required)(`in a browser (${hasChromium ? CHROMIUM : `skipped: no chromium at ${CHROMIUM}`})`, () => {
  test('the timeline lists the examples\' sessions by day, each linking to its session', async () => {
    const url = await serve();
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${url}/`);
    const card = page.locator(`article[data-session="${DEPLOY_SESSION}"]`);
    await card.waitFor();
    expect(await card.textContent()).toMatch(/Cloudflare Workers/);
    expect(await page.locator('main h2').count()).toBeGreaterThan(1);
    await card.locator('a').first().click();
    await page.locator('main h1').filter({ hasText: 'Cloudflare Workers' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  test('search finds the README\'s example as it is typed, marks the words, and opens the session at the message', async () => {
    const url = await serve();
    const page = await browser!.newPage();
    await page.goto(`${url}/#/search`);
    await page.locator('input[type="search"]').fill('why did the build fail');
    const hit = page.locator(`article[data-session="${DEPLOY_SESSION}"]`).first();
    await hit.waitFor();
    expect(await page.locator('article').first().getAttribute('data-session')).toBe(DEPLOY_SESSION);
    expect(await hit.textContent()).toContain('TS2339');
    expect(await hit.locator('mark').first().textContent()).toMatch(/build/i);
    await hit.locator('a', { hasText: 'open at this message' }).first().click();
    const target = page.locator('.entry.target');
    await target.waitFor();
    expect(await target.getAttribute('data-id')).toBeTruthy();
    await page.close();
  });

  test.each(Object.entries(README_EXAMPLES))('the README\'s example %s, typed into the search page, finds its session', async (example, prefix) => {
    const url = await serve();
    const page = await browser!.newPage();
    await page.goto(`${url}/#/search`);
    const tool = /--tool (\S+)/.exec(example)?.[1];
    if (tool) await page.locator('label', { hasText: 'Tool' }).locator('input').fill(tool);
    await page.locator('input[type="search"]').fill(example.replace(/--tool \S+/, '').replace(/"/g, '').trim());
    await page.locator('article').first().waitFor();
    expect(await page.locator('article').first().getAttribute('data-session')).toMatch(new RegExp(`^${prefix}`));
    await page.close();
  });

  test('facets narrow the search: priority high keeps the calls that changed things', async () => {
    const url = await serve();
    const page = await browser!.newPage();
    await page.goto(`${url}/#/search`);
    await page.locator('label', { hasText: 'Priority' }).locator('select').selectOption('high');
    await page.locator('input[type="search"]').fill('deploy');
    await page.locator('article').first().waitFor();
    const lines = await page.locator('article .entry .text').allTextContents();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^\[tool:/);
    await page.close();
  });

  test('the explain view says which signal put a match there', async () => {
    const url = await serve();
    const page = await browser!.newPage();
    await page.goto(`${url}/#/search?q=${encodeURIComponent('stripe webhook 401')}&explain=1`);
    const line = page.locator('.explain').first();
    await line.waitFor();
    expect(await line.textContent()).toMatch(/lexical #\d+/);
    await page.close();
  });

  test('every page loads on the examples\' home without an error in the page', async () => {
    const url = await serve();
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    for (const [hash, heading] of [
      ['#/timeline', 'Timeline'],
      ['#/search', 'Search'],
      [`#/session/${DEPLOY_SESSION}`, 'Cloudflare Workers'],
      ['#/memory', 'Memory'],
      ['#/fixes', 'Fixes'],
      ['#/usage', 'Usage'],
    ] as const) {
      await page.goto(`${url}/${hash}`);
      await page.locator('main h1').filter({ hasText: heading }).waitFor();
    }
    // The session page shows the projection's decisions beside the messages.
    await page.goto(`${url}/#/session/${DEPLOY_SESSION}`);
    const decisions = page.locator('details', { hasText: 'Decisions & Outcomes' });
    await decisions.waitFor();
    expect(await decisions.textContent()).toMatch(/wrangler secret put/);
    // The examples' build error and the edit that fixed it, with its evidence.
    await page.goto(`${url}/#/fixes`);
    const fix = page.locator('article[data-signature*="TS2339"]');
    await fix.waitFor();
    expect(await fix.textContent()).toMatch(/verified/);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('a draft memory is approved from the page, and `moon memory list` shows it approved', async () => {
    const env = { MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' };
    const added = await spawnMoon(['memory', 'add', 'Stripe keys are wrangler secrets, never [vars] in wrangler.toml', '--namespace', 'path:/home/dev/shop', '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const id = (JSON.parse(added.stdout) as { id: string }).id;
    const url = await serve();
    const page = await browser!.newPage();
    await page.goto(`${url}/#/memory`);
    const card = page.locator(`article[data-memory="${id}"]`);
    await card.waitFor();
    expect(await card.getAttribute('data-state')).toBe('draft');
    await card.locator('button', { hasText: 'Approve' }).click();
    await card.waitFor({ state: 'detached' });
    const listed = await spawnMoon(['memory', 'list', '--all-projects', '--state', 'approved', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    const approved = (JSON.parse(listed.stdout) as { memories: { id: string; review_state: string }[] }).memories.find((memory) => memory.id === id);
    expect(approved?.review_state).toBe('approved');
    await page.close();
  });

  test('forget from the session page asks first: dismissed, nothing changes; confirmed, the session is gone', async () => {
    const env = { MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' };
    const url = await serve();
    const page = await browser!.newPage();
    await page.goto(`${url}/#/session/${LEDGER_SESSION}`);
    const forget = page.locator('button', { hasText: 'Forget' });
    await forget.waitFor();
    page.once('dialog', (dialog) => void dialog.dismiss());
    await forget.click();
    const kept = await spawnMoon(['sessions', '--json'], env);
    expect(kept.stdout).toContain(LEDGER_SESSION);
    page.once('dialog', (dialog) => void dialog.accept());
    await forget.click();
    await page.locator('main h1').filter({ hasText: 'Timeline' }).waitFor();
    const after = await spawnMoon(['sessions', '--json'], env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).not.toContain(LEDGER_SESSION);
    await page.close();
  });

  test('keyboard: "/" goes to the search box from any page', async () => {
    const url = await serve();
    const page = await browser!.newPage();
    await page.goto(`${url}/`);
    await page.locator('article').first().waitFor();
    await page.keyboard.press('/');
    await page.waitForFunction('document.activeElement?.getAttribute("type") === "search"');
    expect(page.url()).toContain('#/search');
    await page.close();
  });
});
