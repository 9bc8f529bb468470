import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';
import { startLoopbackServer } from '../helpers/loopback-server.js';

/** L2 synthesis through a real openai-compatible server on loopback: what the model answers decides what is written. */
let current: TestHome | null = null;
afterEach(async () => {
  await current?.cleanup();
  current = null;
});

const VALID = ['# MEMORY', '', '## Lessons Learned', '- Type Worker bindings before deploying (2026-02-21, session 5f3c2a1e)', '', '## User Preferences', '- Secrets go in wrangler secrets, never in wrangler.toml (2026-02-21, session 5f3c2a1e)', '', '## Durable Decisions & Context', '- shop deploys to Cloudflare Workers (2026-02-21, session 5f3c2a1e)', ''].join('\n');
const OLD = '# MEMORY\n\n## Lessons Learned\n- old lesson\n\n## User Preferences\n- old preference\n\n## Durable Decisions & Context\n- old decision\n';

function answer(res: ServerResponse, content: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }] }));
}

async function homeWithModel(content: string): Promise<{ home: TestHome; daily: string; requests: () => number; server: string }> {
  const server = await startLoopbackServer((_request, _n, res) => answer(res, content));
  const home = await makeIndexedHome({
    toml: `[distill]\nprovider = "openai-compatible"\nbase_url = "${server.baseUrl}/v1"\nmodel = "test-model"\n`,
  });
  current = home;
  const watcher = await home.moon.upkeep.watcher();
  watcher.distillNorm(join(home.home, 'archives', 'mlib', '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d.md'));
  writeFileSync(join(home.home, 'MEMORY.md'), OLD);
  return { home, daily: join(home.home, 'memory', '2026-02-21.md'), requests: () => server.requests.length, server: server.baseUrl };
}

function readAudit(home: string): Record<string, any>[] {
  return readFileSync(join(home, 'logs', 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

describe('L2 synthesis (moon distill --mode syns)', () => {
  test('a valid answer replaces MEMORY.md, and the run is audited with input and output hashes', async () => {
    const { home, daily } = await homeWithModel(`\`\`\`markdown\n${VALID}\n\`\`\``);
    const result = await (await home.moon.upkeep.watcher()).distillSyns([daily]);
    expect(result.outcome).toBe('written');
    expect(result.record).toMatchObject({ session_id: 'daily:2026-02-21', provider: 'openai-compatible', summary_path: join(home.home, 'MEMORY.md') });
    expect(readFileSync(join(home.home, 'MEMORY.md'), 'utf8')).toBe(`${VALID.trim()}\n`);
    const event = readAudit(home.home).at(-1)!;
    expect(event).toMatchObject({ event: 'syns', outcome: 'written', provider: 'openai-compatible', model: 'test-model' });
    expect(event.inputs).toHaveLength(2);
    expect(event.inputs[1].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(event.output.sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 30_000);

  test.each([
    ['sections missing', '# MEMORY\n\n## Lessons Learned\n- a\n\n## Durable Decisions & Context\n- b\n', /sections are "Lessons Learned", "Durable Decisions & Context"/],
    ['a fourth section', `${VALID}\n## Random Thoughts\n- c\n`, /expected exactly/],
    ['over 240 lines', `${VALID}\n${Array.from({ length: 240 }, (_, i) => `- item ${i}`).join('\n')}`, /lines \(at most 240\)/],
    ['JSON instead of markdown', '{"lessons": []}', /JSON, not markdown/],
    ['prose before the sections', `Sure! Here is the file:\n${VALID}`, /text before its first section/],
  ])('an answer with %s is rejected and the old MEMORY.md kept', async (_name, content, reason) => {
    const { home, daily } = await homeWithModel(content);
    const result = await (await home.moon.upkeep.watcher()).distillSyns([daily]);
    expect(result.outcome).toBe('rejected');
    expect(result.reason).toMatch(reason);
    expect(readFileSync(join(home.home, 'MEMORY.md'), 'utf8')).toBe(OLD);
    expect(readAudit(home.home).at(-1)).toMatchObject({ event: 'syns', outcome: 'rejected' });
  }, 30_000);

  test('a provider that fails (HTTP 400) is audited as failed and MEMORY.md kept', async () => {
    const server = await startLoopbackServer((_request, _n, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"model not loaded"}}');
    });
    current = await makeIndexedHome({ toml: `[distill]\nprovider = "openai-compatible"\nbase_url = "${server.baseUrl}"\nmodel = "m"\n` });
    const watcher = await current.moon.upkeep.watcher();
    watcher.distillNorm(join(current.home, 'archives', 'mlib', '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d.md'));
    const result = await watcher.distillSyns([join(current.home, 'memory', '2026-02-21.md')]);
    expect(result.outcome).toBe('failed');
    expect(result.reason).toMatch(/400/);
    expect(existsSync(join(current.home, 'MEMORY.md'))).toBe(false);
    expect(readAudit(current.home).at(-1)).toMatchObject({ event: 'syns', outcome: 'failed' });
  }, 30_000);

  test('when the audit line cannot be written the rewrite is rolled back', async () => {
    const { home, daily } = await homeWithModel(VALID);
    const audit = join(home.home, 'logs', 'audit.jsonl');
    // The audit log becomes a folder: appending to it fails after MEMORY.md was replaced.
    rmSync(audit);
    mkdirSync(audit);
    await expect((await home.moon.upkeep.watcher()).distillSyns([daily])).rejects.toThrow(/MEMORY\.md was rolled back: the audit log could not be written/);
    expect(readFileSync(join(home.home, 'MEMORY.md'), 'utf8')).toBe(OLD);
  }, 30_000);

  test('a second synthesis while one holds the lock fails at once; by hand the default input is today\'s daily file', async () => {
    const { home } = await homeWithModel(VALID);
    const watcher = await home.moon.upkeep.watcher();
    // The home's clock reads 2026-03-01 12:00 in Sydney: there is no daily file for that day.
    await expect(watcher.distillSyns([])).rejects.toThrow(/memory\/2026-03-01\.md does not exist/);
    writeFileSync(join(home.home, 'logs', 'moon-syns.lock'), JSON.stringify({ pid: process.ppid, started_at_epoch_secs: 1 }));
    await expect(watcher.distillSyns([join(home.home, 'memory', '2026-02-21.md')])).rejects.toThrow(/already running in another process/);
    expect(readFileSync(join(home.home, 'MEMORY.md'), 'utf8')).toBe(OLD);
  }, 30_000);
});
