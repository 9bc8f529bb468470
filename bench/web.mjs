#!/usr/bin/env node
// The web view at size (issue 35): `moon serve` on an indexed home, Debian's chromium through playwright-core.
// - first page: navigation to the first session card on the timeline, and to the session page's first message,
//   over several cold page loads;
// - search as you type: the POST /v1/recall the page sends (debounced, one per pause), p50 / p95 over the queries
//   of bench/queries.mjs, asked the way the page asks (group session, explain off);
// - a long session: the largest session of the home opened, time to its first messages.
//
//   node bin/moon.js index bench/corpora/100k --home /tmp/h100k
//   node bench/web.mjs /tmp/h100k [--chromium /usr/bin/chromium]
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, serveHome } from '../scripts/lib/web-run.mjs';
import { QUERIES } from './queries.mjs';

const home = process.argv[2];
if (!home) {
  console.error('usage: node bench/web.mjs HOME [--chromium PATH]');
  process.exit(2);
}
const at = process.argv.indexOf('--chromium');
const executablePath = at > 0 ? process.argv[at + 1] : '/usr/bin/chromium';
const bin = join(fileURLToPath(new URL('..', import.meta.url)), 'bin', 'moon.js');
const { url, child: server } = await serveHome(home);
const pct = (list, p) => [...list].sort((a, b) => a - b)[Math.floor(p * (list.length - 1))];
const browser = await launchChromium(executablePath);
try {
  const firstPage = [];
  for (let round = 0; round < 5; round++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const start = performance.now();
    await page.goto(`${url}/`);
    await page.locator('article').first().waitFor();
    firstPage.push(performance.now() - start);
    await context.close();
  }
  const sessions = await (await fetch(`${url}/v1/sessions?limit=200`)).json();
  const largest = [...sessions.sessions].sort((a, b) => b.message_count - a.message_count)[0];
  const longSession = [];
  for (let round = 0; round < 3; round++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const start = performance.now();
    await page.goto(`${url}/#/session/${encodeURIComponent(largest.session_id)}`);
    await page.locator('.entry').first().waitFor();
    longSession.push(performance.now() - start);
    await context.close();
  }
  const search = [];
  for (let round = 0; round < 3; round++) {
    for (const { query } of QUERIES) {
      const start = performance.now();
      const response = await fetch(`${url}/v1/recall`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, group: 'session', explain: false }) });
      await response.json();
      search.push(performance.now() - start);
    }
  }
  // A 5,000-message session, written here: the page renders 200 messages at a time, so the tab stays responsive.
  const long = await openLongSession(browser);
  console.log(`| measure | n | p50 (ms) | p95 (ms) |\n|---|---:|---:|---:|`);
  console.log(`| first page (timeline, to the first session card) | ${firstPage.length} | ${pct(firstPage, 0.5).toFixed(0)} | ${pct(firstPage, 0.95).toFixed(0)} |`);
  console.log(`| search request (POST /v1/recall) | ${search.length} | ${pct(search, 0.5).toFixed(1)} | ${pct(search, 0.95).toFixed(1)} |`);
  console.log(`| longest session (${largest.message_count} messages), to its first messages | ${longSession.length} | ${pct(longSession, 0.5).toFixed(0)} | ${pct(longSession, 0.95).toFixed(0)} |`);
  console.log(`| a 5,000-message session, to its first messages | ${long.open.length} | ${pct(long.open, 0.5).toFixed(0)} | ${pct(long.open, 0.95).toFixed(0)} |`);
  console.log(`\n5,000-message session: longest main-thread task while it opened ${long.longestTask.toFixed(0)} ms; messages rendered at first ${long.rendered}.`);
} finally {
  await browser.close();
  server.kill();
}

async function openLongSession(browser) {
  const { mkdtempSync, writeFileSync, rmSync, mkdirSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const root = mkdtempSync(join(tmpdir(), 'moon-web-long-'));
  mkdirSync(join(root, 'corpus'));
  const lines = [];
  let parent = null;
  for (let index = 0; index < 5000; index++) {
    const uuid = `long-${String(index).padStart(5, '0')}`;
    const user = index % 2 === 0;
    const at = new Date(Date.UTC(2026, 1, 1, 8) + index * 20_000).toISOString();
    const base = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/dev/long', sessionId: 'long-session', version: '2.1.0', gitBranch: 'main', timestamp: at, uuid };
    const text = `${user ? 'Please look at step' : 'Done with step'} ${index}: the importer batch ${index % 97} and its retry queue ${'detail '.repeat(index % 30)}`;
    lines.push(JSON.stringify(user ? { ...base, type: 'user', message: { role: 'user', content: text } } : { ...base, type: 'assistant', requestId: `r-${uuid}`, message: { id: `m-${uuid}`, type: 'message', role: 'assistant', model: 'x', content: [{ type: 'text', text }] } }));
    parent = uuid;
  }
  writeFileSync(join(root, 'corpus', 'long.jsonl'), `${lines.join('\n')}\n`);
  const longHome = join(root, 'home');
  const { spawnSync } = await import('node:child_process');
  const indexed = spawnSync(process.execPath, [bin, 'index', join(root, 'corpus'), '--home', longHome], { encoding: 'utf8' });
  if (indexed.status !== 0) throw new Error(indexed.stderr);
  const { url: longUrl, child: longServer } = await serveHome(longHome);
  const open = [];
  let longestTask = 0;
  let rendered = 0;
  try {
    for (let round = 0; round < 3; round++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.addInitScript(() => {
        window.__longest = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
        }).observe({ type: 'longtask', buffered: true });
      });
      const start = performance.now();
      await page.goto(`${longUrl}/#/session/long-session`);
      await page.locator('.entry').first().waitFor();
      open.push(performance.now() - start);
      await page.waitForTimeout(500);
      longestTask = Math.max(longestTask, await page.evaluate(() => window.__longest));
      rendered = await page.locator('.entry').count();
      await context.close();
    }
  } finally {
    longServer.kill();
    rmSync(root, { recursive: true, force: true });
  }
  return { open, longestTask, rendered };
}
