import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ContextPack } from '../../src/pack/types.js';
import { BIN, REPO, type CliRun, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { INJECTION_CORPUS, findUnsafe } from '../helpers/injection.js';
import { startMcp } from '../mcp/client.js';
import { writeShopRepo } from './repo.js';

/** The built CLI (`npm run build`), its MCP server and its HTTP API, on the bundled examples and a shop repository. */
let temp: { path: string; cleanup: () => void };
let repo: string;
let env: Record<string, string>;
const children: ChildProcess[] = [];

function moon(args: string[], cwd: string, extra: Record<string, string> = {}): Promise<CliRun> {
  return spawnMoon(args, { ...env, ...extra }, { cwd });
}

beforeAll(async () => {
  temp = makeTempDir('moon-pack-cli-');
  repo = join(temp.path, 'shop');
  mkdirSync(repo);
  writeShopRepo(repo, `\n## Quoted from a web page\n\n${INJECTION_CORPUS.join('\n\nstripe deploy ')}\n`);
  env = { MOON_HOME: join(temp.path, 'home'), MOON_INDEX_WORKERS: '0', MOON_RESIDENTIAL_TIMEZONE: 'UTC' };
  const indexed = await moon(['index', join(REPO, 'examples')], repo);
  expect(indexed.code, indexed.stderr).toBe(0);
  writeFileSync(join(env.MOON_HOME!, 'MEMORY.md'), '# Memory\n\n- shop: Stripe keys are wrangler secrets, never [vars].\n');
  for (const args of [['docs', 'index'], ['docs', 'index', repo, '--namespace', 'path:/home/dev/shop']]) {
    const run = await moon(args, repo);
    expect(run.code, run.stderr).toBe(0);
  }
}, 120_000);

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  temp.cleanup();
});

function expectSafePack(pack: ContextPack, budget: number): void {
  expect(pack.used_tokens).toBeLessThanOrEqual(budget);
  expect(pack.budget).toBe(budget);
  for (const item of pack.items) expect(findUnsafe(`${item.text}\n${item.source}\n${JSON.stringify(item.provenance)}`)).toEqual([]);
  for (const omission of pack.omitted) expect(typeof omission.subsystem).toBe('string');
}

describe('moon context, docs index, the context_pack tool and POST /v1/context', () => {
  test('moon docs index is incremental from the CLI too', async () => {
    const run = await moon(['docs', 'index', '--json'], repo);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ namespace_id: 'github.com/acme/shop', files: 2, indexed: [], unchanged: 2 });
  });

  test('moon context --json: {items, budget, used_tokens, omitted}, scoped to the namespace', async () => {
    const run = await moon(['context', 'deploy the shop with wrangler and stripe secrets', '--planning', 'shop-c3', '--namespace', 'path:/home/dev/shop', '--budget', '800', '--json'], repo);
    expect(run.code, run.stderr).toBe(0);
    const pack = JSON.parse(run.stdout) as ContextPack;
    expect(Object.keys(pack).sort()).toEqual(['budget', 'items', 'namespace_id', 'omitted', 'task', 'used_tokens']);
    expectSafePack(pack, 800);
    expect(new Set(pack.items.map((item) => item.section))).toEqual(new Set(['planning', 'history', 'long_term', 'documents']));
    const text = await moon(['context', 'deploy the shop', '--planning', 'shop-c3', '--budget', '300'], repo, { MEMORY_HISTORY: 'off' });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Context pack for github\.com\/acme\/shop: \d+\/300 tokens/);
    expect(text.stdout).toContain('- history: off');
    expect(findUnsafe(text.stdout)).toEqual([]);
    const strict = await moon(['context', 'deploy', '--budget', 'lots'], repo);
    expect(strict.code).toBe(2);
  });

  test('MCP context_pack: the pack for the client root, as text and structured content', async () => {
    const mcp = await startMcp({ home: env.MOON_HOME!, cwd: temp.path, roots: [`file://${repo}`] });
    try {
      const result = await mcp.call('context_pack', { task: 'deploy the shop with stripe secrets', planning: 'shop-c3', budget: 500 });
      expect(result.isError).toBeFalsy();
      const pack = result.structuredContent as unknown as ContextPack;
      expect(pack.namespace_id).toBe('github.com/acme/shop');
      expectSafePack(pack, 500);
      expect(pack.items.map((item) => item.source)).toContain('.beads/issues.jsonl#shop-c3');
      const text = (result.content as { type: string; text: string }[])[0]!.text;
      expect(text).toContain('## Planning');
      expect(findUnsafe(text)).toEqual([]);
      expect((await mcp.call('context_pack', { task: '' })).isError).toBe(true);
    } finally {
      await mcp.close();
    }
  }, 30_000);

  test('POST /v1/context over loopback', async () => {
    const url = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
        const match = /serving (http:\/\/\S+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    const response = await fetch(`${url}/v1/context`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: 'deploy the shop with stripe secrets', cwd: repo, planning: 'shop-c3', budget: 400 }) });
    expect(response.status).toBe(200);
    const pack = (await response.json()) as ContextPack;
    expect(pack.namespace_id).toBe('github.com/acme/shop');
    expectSafePack(pack, 400);
    expect(pack.items.length).toBeGreaterThan(0);
    const bad = await fetch(`${url}/v1/context`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: 'x', budget: -1 }) });
    expect(bad.status).toBe(400);
    const nowhere = (await (await fetch(`${url}/v1/context`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: 'deploy the shop' }) })).json()) as ContextPack;
    expect(nowhere.namespace_id).toBeNull();
    expect(nowhere.omitted).toContainEqual(expect.objectContaining({ subsystem: 'planning' }));
  }, 30_000);
});
