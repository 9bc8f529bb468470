import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { findCommits, findPullRequests } from '../../src/digest/evidence.js';
import type { DigestLine, RunDigest } from '../../src/records/digests.js';
import { type Moon, createMoon } from '../../src/moon.js';
import { makeTempDir } from '../helpers/cli.js';
import { makeIndexedHome, type TestHome } from '../helpers/home.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';
import { type TestPostgres, startTestPostgres } from '../helpers/postgres.js';
import { claudeSession } from '../helpers/transcripts.js';

const SESSION = 'cart-fix-0001';
const NOW = Date.parse('2026-03-02T09:00:00Z');

/** A planted error → fix → success run: npm test fails, src/cart.ts is edited, npm test passes, the fix is committed. */
function plantedSession(sessionId = SESSION, cwd = '/home/dev/shop'): string {
  const jsonl = claudeSession({
    sessionId,
    cwd,
    turns: [
      { role: 'user', at: '2026-03-01T10:00:00Z', text: 'The cart totals test is failing on main. Please fix it and commit.' },
      {
        role: 'assistant',
        at: '2026-03-01T10:00:05Z',
        tool: {
          name: 'Bash',
          input: { command: 'npm test' },
          result: "Exit code 1\n FAIL test/cart.test.ts > totals\nTypeError: Cannot read properties of undefined (reading 'map')\n Tests 1 failed | 11 passed (12)",
        },
      },
      {
        role: 'assistant',
        at: '2026-03-01T10:01:00Z',
        text: 'The items array is undefined for an empty cart. I decided to default items to an empty array instead of guarding every caller.',
        tool: { name: 'Edit', input: { file_path: '/home/dev/shop/src/cart.ts', old_string: 'items', new_string: 'items = []' }, result: 'The file /home/dev/shop/src/cart.ts has been updated.' },
      },
      { role: 'assistant', at: '2026-03-01T10:02:00Z', tool: { name: 'Bash', input: { command: 'npm test' }, result: ' Tests 12 passed (12)' } },
      {
        role: 'assistant',
        at: '2026-03-01T10:02:30Z',
        tool: { name: 'Bash', input: { command: 'git commit -am "cart: default items to []"' }, result: '[main 3f9c2ab] cart: default items to []\n 1 file changed, 1 insertion(+)' },
      },
      { role: 'assistant', at: '2026-03-01T10:03:00Z', text: 'Fixed: the totals test passes and the change is in commit 3f9c2ab. Next step: open a PR for review.' },
    ],
  });
  // Claude Code marks the failing call's result as an error.
  return jsonl
    .split('\n')
    .map((line) => (line.includes('Exit code 1') ? line.replace('"type":"tool_result"', '"type":"tool_result","is_error":true') : line))
    .join('\n');
}

interface Fixture {
  moon: Moon;
  open(env?: Record<string, string>): Moon;
  cleanup(): Promise<void>;
}

const fixtures: Fixture[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.cleanup();
});

async function indexed(files: Record<string, string>, env: Record<string, string> = {}): Promise<Fixture> {
  const dir = makeTempDir('moon-digest-');
  const home = join(dir.path, 'home');
  const sources = join(dir.path, 'sources');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(sources, path, '..'), { recursive: true });
    writeFileSync(join(sources, path), text);
  }
  mkdirSync(home, { recursive: true });
  const opened: Moon[] = [];
  const open = (extra: Record<string, string> = {}): Moon => {
    const all = { MOON_RESIDENTIAL_TIMEZONE: 'UTC', MOON_SOURCES: sources, MOON_INDEX_WORKERS: '0', ...env, ...extra };
    const moon = createMoon(loadConfig({ home, env: all }), () => NOW, { env: all });
    opened.push(moon);
    return moon;
  };
  const moon = open();
  await moon.history.index({ roots: [sources] });
  const fixture = {
    moon,
    open,
    cleanup: async () => {
      for (const item of opened) await item.close();
      dir.cleanup();
    },
  };
  fixtures.push(fixture);
  return fixture;
}

const texts = (lines: DigestLine[]) => lines.map((line) => line.text);

describe('heuristic digest of a planted error → fix → success run', () => {
  test('names the failing command, the change, the passing re-run and the commit, each with message ids', async () => {
    const { moon } = await indexed({ [`claude/-home-dev-shop/${SESSION}.jsonl`]: plantedSession() });
    const report = await moon.memory.digestSession({ sessionId: SESSION });
    expect(report.digests).toHaveLength(1);
    const row = report.digests[0]!;
    expect(row.result).toBe('inserted');
    expect(row.produced_by).toBe('heuristic');
    expect(row.fallback).toBeNull();
    const digest = row.digest;
    expect(digest.record_kind).toBe('run_digest');
    expect(digest.trust_class).toBe('derived');
    expect(digest.namespace_id).toBe('path:/home/dev/shop');
    expect(digest.body.intent?.text).toMatch(/cart totals test is failing/);
    expect(digest.body.intent?.message_ids).toEqual([`${SESSION}-u1`]);

    const commands = digest.body.changes.filter((change) => change.kind === 'command');
    expect(commands.map((change) => [change.target, change.status])).toEqual([
      ['npm test', 'failed'],
      ['npm test', 'ok'],
      ['git commit -am "cart: default items to []"', 'ok'],
    ]);
    expect(commands[0]!.text).toMatch(/TypeError: Cannot read properties of undefined \(reading 'map'\)/);
    expect(commands[0]!.message_ids).toEqual([`${SESSION}-u2`]);
    expect(commands[1]!.message_ids).toEqual([`${SESSION}-u4`]);
    expect(commands[2]!.commits).toEqual(['3f9c2ab']);
    const files = digest.body.changes.filter((change) => change.kind === 'file');
    expect(files.map((change) => change.target)).toEqual(['/home/dev/shop/src/cart.ts']);
    expect(files[0]!.message_ids).toEqual([`${SESSION}-u3`]);

    expect(digest.body.gotchas).toHaveLength(1);
    const gotcha = digest.body.gotchas[0]!;
    expect(gotcha.text).toMatch(/`npm test` failed: TypeError: Cannot read properties of undefined \(reading 'map'\); fixed by editing \/home\/dev\/shop\/src\/cart\.ts; the re-run passed/);
    expect(gotcha.message_ids).toEqual([`${SESSION}-u2`, `${SESSION}-u3`, `${SESSION}-u4`]);

    expect(texts(digest.body.decisions)).toEqual(['I decided to default items to an empty array instead of guarding every caller.']);
    expect(digest.body.decisions[0]!.message_ids).toEqual([`${SESSION}-u3`]);
    expect(texts(digest.body.next_steps)).toEqual(['Next step: open a PR for review.']);
    expect(digest.body.outcome.status).toBe('succeeded');
    expect(digest.body.outcome.text).toMatch(/^Fixed: the totals test passes/);
    expect(digest.body.outcome.commits).toEqual(['3f9c2ab']);

    expect(digest.run_ref?.session_id).toBe(SESSION);
    expect(digest.run_ref?.archive_path).toMatch(new RegExp(`${SESSION}`));
    expect(digest.run_ref?.commits).toEqual(['3f9c2ab']);
    expect(digest.run_ref?.message_ids).toEqual(expect.arrayContaining([`${SESSION}-u1`, `${SESSION}-u2`, `${SESSION}-u3`, `${SESSION}-u4`, `${SESSION}-u6`]));
  });

  test('idempotent: the same content digests to unchanged; --all skips sessions with a current digest', async () => {
    const { moon } = await indexed({ [`claude/-home-dev-shop/${SESSION}.jsonl`]: plantedSession() });
    expect((await moon.memory.digestSession({ sessionId: SESSION })).digests[0]!.result).toBe('inserted');
    const again = await moon.memory.digestSession({ sessionId: SESSION });
    expect(again.digests[0]!.result).toBe('unchanged');
    expect((await moon.memory.digestSession({ all: true })).digests).toEqual([]);
    expect((await moon.memory.digestSession({ all: true, force: true })).digests.map((row) => row.result)).toEqual(['inserted']);
  });

  test('recallable as its own kind: searchDigests finds it by the error words, scoped to its namespace', async () => {
    const { moon } = await indexed({ [`claude/-home-dev-shop/${SESSION}.jsonl`]: plantedSession() });
    await moon.memory.digestSession({ all: true });
    const found = await moon.memory.searchDigests({ query: 'TypeError map cart', namespace: 'path:/home/dev/shop' });
    expect(found.scope).toEqual({ namespace: 'path:/home/dev/shop', reason: 'named' });
    expect(found.hits.map((hit) => hit.digest.session_id)).toEqual([SESSION]);
    expect((await moon.memory.searchDigests({ query: 'TypeError', namespace: 'path:/elsewhere' })).hits).toEqual([]);
    // A directory of no digested project leaves everything in reach, and says so.
    const wide = await moon.memory.searchDigests({ query: 'TypeError', cwd: '/nowhere/at/all' });
    expect(wide.scope.reason).toBe('cwd-unknown');
    expect(wide.hits).toHaveLength(1);
    const listed = await moon.memory.listDigests({ allNamespaces: true });
    expect(listed.digests.map((digest) => digest.session_id)).toEqual([SESSION]);
  });
});

let postgres: Promise<TestPostgres> | null = null;
let databases = 0;
afterAll(async () => {
  const started = postgres;
  postgres = null;
  await (await started?.catch(() => null))?.stop();
});

/** Environment choosing the engine: the embedded SQLite file, or a fresh PostgreSQL database. */
async function engineEnv(engine: 'sqlite' | 'postgres'): Promise<Record<string, string>> {
  if (engine === 'sqlite') return {};
  postgres ??= startTestPostgres();
  databases += 1;
  return { MOON_DATABASE_URL: await (await postgres).createDatabase(`moon_digest_${process.pid}_${databases}`) };
}

describe.each(['sqlite', 'postgres'] as const)('%s: namespace isolation', (engine) => {
  test('two projects with look-alike runs: nothing of A in any digest output for B', async () => {
    const { moon } = await indexed(
      {
        'claude/-home-dev-shop/shop-a.jsonl': plantedSession('shop-a', '/home/dev/shop'),
        'claude/-home-dev-shop2/shop-b.jsonl': plantedSession('shop-b', '/home/dev/shop2'),
      },
      await engineEnv(engine),
    );
    await moon.memory.digestSession({ all: true });
    for (const query of ['npm test', 'TypeError map', 'cart', 'commit 3f9c2ab', 'decided empty array']) {
      const inB = await moon.memory.searchDigests({ query, namespace: 'path:/home/dev/shop2' });
      expect(inB.hits.map((hit) => hit.digest.session_id)).toEqual(['shop-b']);
      expect(JSON.stringify(inB)).not.toMatch(/shop-a|"path:\/home\/dev\/shop"/);
    }
    const listed = await moon.memory.listDigests({ namespace: 'path:/home/dev/shop' });
    expect(listed.digests.map((digest: RunDigest) => digest.session_id)).toEqual(['shop-a']);
  });
});

describe('the bundled examples', () => {
  let home: TestHome | null = null;
  afterEach(async () => {
    await home?.cleanup();
    home = null;
  });

  test('every example session gets a digest with evidence, and the shop sessions share a namespace', async () => {
    home = await makeIndexedHome();
    const report = await home.moon.memory.digestSession({ all: true });
    expect(report.failed).toEqual([]);
    expect(report.digests.length).toBeGreaterThanOrEqual(4);
    const sessions = await home.moon.history.sessions({});
    for (const row of report.digests) {
      const { digest } = row;
      expect(digest.produced_by).toBe('heuristic');
      expect(digest.body.intent?.message_ids.length ?? 1).toBeGreaterThan(0);
      for (const line of [digest.body.outcome, ...digest.body.changes, ...digest.body.gotchas, ...digest.body.decisions, ...digest.body.next_steps]) {
        expect(line.message_ids.length).toBeGreaterThan(0);
      }
      expect(digest.run_ref?.archive_path).toBeTruthy();
    }
    expect(sessions).toBeTruthy();
    const shop = report.digests.filter((row) => row.digest.namespace_id === 'path:/home/dev/shop');
    expect(shop.length).toBeGreaterThanOrEqual(2);
    // The homelab run: the backup script failed, was edited, and passed inside a longer command.
    const homelab = report.digests.find((row) => row.digest.namespace_id === 'path:/home/dev/homelab')!.digest;
    expect(homelab.body.gotchas.map((line) => line.text)).toEqual([expect.stringMatching(/failed: pg_dumpall: error: .*; fixed by editing \/home\/dev\/homelab\/scripts\/backup-db\.sh; the re-run passed$/)]);
    expect(homelab.body.gotchas[0]!.message_ids).toEqual(['e0000008', 'e000000a', 'e000000c']);
    // The deploy run: the TypeScript error fixed by an edit, and the refused secret command left open.
    const deploy = report.digests.find((row) => row.session_id === '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d')!.digest;
    expect(deploy.body.gotchas[0]!.text).toMatch(/error TS2339: Property 'STRIPE_SECRET_KEY' does not exist on type 'Env'\.; fixed by editing \/home\/dev\/shop\/src\/env\.d\.ts; the re-run passed/);
    expect(deploy.body.decisions[0]!.text).toMatch(/^Decision: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set with `wrangler secret put`/);
    // Deterministic: a second home digests the same examples to the same bodies.
    const again = await makeIndexedHome();
    try {
      const second = await again.moon.memory.digestSession({ all: true });
      const bodies = (rows: typeof report.digests) => Object.fromEntries(rows.map((row) => [row.session_id, row.digest.body]));
      expect(bodies(second.digests)).toEqual(bodies(report.digests));
    } finally {
      await again.cleanup();
    }
  });
});

describe('with an LLM provider (openai-compatible on a loopback server)', () => {
  const llmEnv = (baseUrl: string) => ({ MOON_DISTILL_PROVIDER: 'openai-compatible', MOON_DISTILL_MODEL: 'digest-model', MOON_DISTILL_BASE_URL: `${baseUrl}/v1`, MOON_DISTILL_MAX_TRIES: '1' });
  const answer = (content: string) => ({ choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

  test('valid JSON: the provider writes the digest, ids checked, commits read from the cited entries', async () => {
    const body = {
      title: 'Fix cart totals for empty carts',
      intent: { text: 'Fix the failing cart totals test', message_ids: [`${SESSION}-u1`] },
      outcome: { status: 'succeeded', text: 'Tests pass; committed', message_ids: [`${SESSION}-u4`, `${SESSION}-u5`] },
      changes: [{ kind: 'file', target: 'src/cart.ts', status: 'ok', text: 'default items to []', message_ids: [`${SESSION}-u3`] }],
      decisions: [{ text: 'Default items instead of guarding callers', message_ids: [`${SESSION}-u3`] }],
      gotchas: [{ text: "TypeError reading 'map' on an empty cart", message_ids: [`${SESSION}-u2`] }],
      next_steps: [],
    };
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, answer(JSON.stringify(body))));
    const { moon } = await indexed({ [`claude/-home-dev-shop/${SESSION}.jsonl`]: plantedSession() }, llmEnv(server.baseUrl));
    const row = (await moon.memory.digestSession({ sessionId: SESSION })).digests[0]!;
    expect(row.produced_by).toBe('openai-compatible');
    expect(row.fallback).toBeNull();
    expect(row.digest.title).toBe('Fix cart totals for empty carts');
    expect(row.digest.body.outcome.commits).toEqual(['3f9c2ab']);
    expect(row.digest.body.gotchas[0]!.message_ids).toEqual([`${SESSION}-u2`]);
    const request = server.requests[0]!;
    expect(request.body?.['response_format']).toEqual({ type: 'json_object' });
    expect(JSON.stringify(request.body)).toContain(`[${SESSION}-u2] tool:Bash: npm test`);
  });

  test.each([
    ['not JSON', 'Sure! Here is the digest: intent was to fix the cart.', /not JSON/],
    ['the wrong shape', JSON.stringify({ title: 'x', intent: null }), /digest shape/],
    ['ids of no entry', JSON.stringify({ title: 't', intent: null, outcome: { status: 'failed', text: 'x', message_ids: ['made-up'] }, changes: [], decisions: [], gotchas: [], next_steps: [] }), /cites no entry/],
  ])('%s: falls back to the heuristic digest and says why', async (_name, content, reason) => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 200, answer(content)));
    const { moon } = await indexed({ [`claude/-home-dev-shop/${SESSION}.jsonl`]: plantedSession() }, llmEnv(server.baseUrl));
    const row = (await moon.memory.digestSession({ sessionId: SESSION })).digests[0]!;
    expect(row.produced_by).toBe('heuristic');
    expect(row.fallback).toMatch(reason);
    expect(row.digest.body.gotchas[0]!.text).toMatch(/`npm test` failed/);
  });

  test('a server error falls back too', async () => {
    const server = await startLoopbackServer((_request, _n, res) => sendJson(res, 500, { error: { message: 'down' } }));
    const { moon } = await indexed({ [`claude/-home-dev-shop/${SESSION}.jsonl`]: plantedSession() }, llmEnv(server.baseUrl));
    const row = (await moon.memory.digestSession({ sessionId: SESSION })).digests[0]!;
    expect(row.produced_by).toBe('heuristic');
    expect(row.fallback).toMatch(/^openai-compatible: /);
  });
});

describe('evidence scanning', () => {
  test('commits after the word commit, git’s own commit line; PR URLs and #123 after PR/fixes/merged', () => {
    expect(findCommits('pushed commit 3f9c2ab1 to main; commit: deadbeefcafe')).toEqual(['3f9c2ab1', 'deadbeefcafe']);
    expect(findCommits('[main 3f9c2ab] msg\n[feature/x (root-commit) 0a1b2c3] first')).toEqual(['3f9c2ab', '0a1b2c3']);
    expect(findCommits('hash 3f9c2ab and a colour #deadbe, commit abc')).toEqual([]);
    expect(findPullRequests('opened https://github.com/acme/shop/pull/42 and PR #43; fixes #7; see #8')).toEqual([
      'https://github.com/acme/shop/pull/42',
      '#43',
      '#7',
    ]);
  });
});

describe('re-runs of a failing check', () => {
  test('the same command, or one sharing a step that is not setup', async () => {
    const { sameCheck } = await import('../../src/digest/heuristic.js');
    expect(sameCheck('npm test', 'npm test')).toBe(true);
    expect(sameCheck('chmod +x scripts/backup-db.sh && ./scripts/backup-db.sh && ls -lh /srv/backups/pg', './scripts/backup-db.sh && ls -lh /srv/backups/pg && rclone ls b2:x/')).toBe(true);
    expect(sameCheck('TZ=UTC npx vitest run test/a.test.ts', 'npx vitest run test/a.test.ts')).toBe(true);
    expect(sameCheck('cd app && npm test', 'cd app && npm run build')).toBe(false);
    expect(sameCheck('npm test', 'npm run build')).toBe(false);
    expect(sameCheck('ls /tmp | grep x', 'ls /tmp')).toBe(false);
  });
});

describe('a provider that cannot be created', () => {
  test('the heuristic digest, and the reason on the row', async () => {
    // anthropic without its key variable set: createProvider throws bad_config.
    const { moon } = await indexed(
      { [`claude/-home-dev-shop/${SESSION}.jsonl`]: plantedSession() },
      { MOON_DISTILL_PROVIDER: 'anthropic', MOON_DISTILL_MODEL: 'claude-test', MOON_DISTILL_API_KEY_ENV: 'MOON_TEST_NO_SUCH_KEY' },
    );
    const row = (await moon.memory.digestSession({ sessionId: SESSION })).digests[0]!;
    expect(row.produced_by).toBe('heuristic');
    expect(row.fallback).toMatch(/^the configured provider could not be created: .*MOON_TEST_NO_SUCH_KEY/);
  });
});
