#!/usr/bin/env node
// docs/web.md's screenshots, made again: the bundled examples indexed into a fresh home (a draft memory added so
// the review page has one), `moon serve` on it, each page of the web view opened in Debian's chromium through
// playwright-core and saved to docs/web/<page>.png at a laptop's size, plus the session page on a phone and the
// timeline in dark mode.
//
//   npm run build && node scripts/web-screenshots.mjs [--chromium /usr/bin/chromium]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, serveHome } from './lib/web-run.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const bin = join(repo, 'bin', 'moon.js');
const out = join(repo, 'docs', 'web');
const at = process.argv.indexOf('--chromium');
const executablePath = at > 0 ? process.argv[at + 1] : '/usr/bin/chromium';
const home = mkdtempSync(join(tmpdir(), 'moon-shots-'));
const env = { PATH: process.env.PATH, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' };
const moon = (...args) => {
  const run = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`moon ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
};
moon('index', join(repo, 'examples'));
moon('memory', 'add', 'Stripe keys are wrangler secrets, never [vars] in wrangler.toml', '--namespace', 'path:/home/dev/shop');

const { url, child: server } = await serveHome(home);
const browser = await launchChromium(executablePath);
mkdirSync(out, { recursive: true });
const SESSION = '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d';
const shots = [
  { name: 'timeline', hash: '#/timeline', heading: 'Timeline' },
  { name: 'search', hash: `#/search?q=${encodeURIComponent('why did the build fail')}&explain=1`, heading: 'Search', wait: 'article' },
  { name: 'session', hash: `#/session/${SESSION}?at=c1a00014-7e2b-4f1d-9a3c-5b6d7e8f9a0b`, heading: 'Cloudflare' },
  { name: 'memory', hash: '#/memory', heading: 'Memory', wait: 'article[data-memory]' },
  { name: 'fixes', hash: '#/fixes', heading: 'Fixes', wait: 'article' },
  { name: 'usage', hash: '#/usage', heading: 'Usage' },
  { name: 'session-phone', hash: `#/session/${SESSION}`, heading: 'Cloudflare', viewport: { width: 390, height: 844 } },
  { name: 'timeline-dark', hash: '#/timeline', heading: 'Timeline', dark: true },
];
try {
  for (const shot of shots) {
    const context = await browser.newContext({ viewport: shot.viewport ?? { width: 1280, height: 800 }, colorScheme: shot.dark ? 'dark' : 'light', timezoneId: 'UTC', locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${url}/${shot.hash}`);
    await page.locator('main h1').filter({ hasText: shot.heading }).waitFor();
    if (shot.wait) await page.locator(shot.wait).first().waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(out, `${shot.name}.png`) });
    console.log(`docs/web/${shot.name}.png`);
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
  rmSync(home, { recursive: true, force: true });
}
