import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, makeTempDir, runMoon, spawnMoon } from '../helpers/cli.js';

let dir: ReturnType<typeof makeTempDir>;
let home: string;
const moon = (...args: string[]) => runMoon(args, { MOON_HOME: home, MOON_INDEX_WORKERS: '0' });
const SESSION = '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d';

beforeAll(async () => {
  dir = makeTempDir('moon-digest-cli-');
  home = join(dir.path, 'home');
  const sources = join(dir.path, 'sources');
  mkdirSync(home, { recursive: true });
  cpSync(join(REPO, 'examples'), sources, { recursive: true });
  const indexed = await moon('index', sources);
  expect(indexed.code).toBe(0);
});

afterAll(() => dir.cleanup());

describe('moon digest', () => {
  test('needs a session or --all; an unknown session is not found', async () => {
    expect((await moon('digest')).code).not.toBe(0);
    const missing = await moon('digest', 'no-such-session');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no session no-such-session/);
  });

  test('one session by prefix, as text and as JSON', async () => {
    const text = await moon('digest', SESSION.slice(0, 8));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^${SESSION} — `));
    expect(text.stdout).toMatch(/outcome \((succeeded|failed|unknown)\)/);
    expect(text.stdout).toMatch(/: (inserted|unchanged), by heuristic/);
    const json = await moon('digest', SESSION, '--json');
    const report = JSON.parse(json.stdout) as { digests: { session_id: string; result: string; digest: { record_kind: string; run_ref: { session_id: string } } }[] };
    expect(report.digests[0]).toMatchObject({ session_id: SESSION, result: 'unchanged', digest: { record_kind: 'run_digest', run_ref: { session_id: SESSION } } });
  });

  test('--all digests every session lacking a current one, then nothing', async () => {
    const first = JSON.parse((await moon('digest', '--all', '--json')).stdout) as { digests: { result: string }[] };
    expect(first.digests.length).toBeGreaterThanOrEqual(3);
    expect(first.digests.every((row) => row.result === 'inserted')).toBe(true);
    const second = await moon('digest', '--all');
    expect(second.stdout).toMatch(/0 digests written/);
  });

  test('--search with --namespace, --all-namespaces, and the scope it used', async () => {
    await moon('digest', '--all');
    const all = JSON.parse((await moon('digest', '--search', 'checkout test', '--all-namespaces', '--json')).stdout) as {
      scope: { namespace: string | null; reason: string };
      hits: { digest: { namespace_id: string; session_id: string } }[];
    };
    expect(all.scope).toEqual({ namespace: null, reason: 'all' });
    expect(all.hits.length).toBeGreaterThan(0);
    const ns = all.hits[0]!.digest.namespace_id;
    const scoped = JSON.parse((await moon('digest', '--search', 'checkout test', '--namespace', ns, '--json')).stdout) as typeof all;
    expect(scoped.scope).toEqual({ namespace: ns, reason: 'named' });
    expect(scoped.hits.every((hit) => hit.digest.namespace_id === ns)).toBe(true);
    const none = JSON.parse((await moon('digest', '--search', 'checkout test', '--namespace', 'path:/nowhere', '--json')).stdout) as typeof all;
    expect(none.hits).toEqual([]);
    const text = await moon('digest', '--search', 'checkout', '--all-namespaces');
    expect(text.stdout).toMatch(/in every namespace/);
    expect((await moon('digest', '--search', 'x', '--namespace', 'a', '--all-namespaces')).code).not.toBe(0);
  });
});

describe('moon digest --list', () => {
  test('newest first, scoped, as text and JSON', async () => {
    await moon('digest', '--all');
    const listed = JSON.parse((await moon('digest', '--list', '--all-namespaces', '--json')).stdout) as { digests: { created_at_ms: number }[] };
    expect(listed.digests.length).toBeGreaterThanOrEqual(4);
    const times = listed.digests.map((digest) => digest.created_at_ms);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const one = JSON.parse((await moon('digest', '--list', '--all-namespaces', '--limit', '1', '--json')).stdout) as { digests: unknown[] };
    expect(one.digests).toHaveLength(1);
    const text = await moon('digest', '--list', '--namespace', 'path:/home/dev/shop');
    expect(text.stdout).toMatch(/2 digests in path:\/home\/dev\/shop/);
    expect((await moon('digest', '--list', '--limit', '0')).code).not.toBe(0);
  });
});

describe('the built CLI (npm run build)', () => {
  test('moon digest SESSION --json and --search in a child process', async () => {
    const env = { MOON_HOME: home, MOON_INDEX_WORKERS: '0' };
    const one = await spawnMoon(['digest', SESSION, '--json'], env);
    expect(one.code).toBe(0);
    expect((JSON.parse(one.stdout) as { digests: { session_id: string }[] }).digests[0]!.session_id).toBe(SESSION);
    const found = await spawnMoon(['digest', '--search', 'wrangler deploy', '--all-namespaces', '--json'], env);
    expect(found.code).toBe(0);
    const hits = (JSON.parse(found.stdout) as { hits: { digest: { session_id: string } }[] }).hits;
    expect(hits.map((hit) => hit.digest.session_id)).toContain(SESSION);
  });
});
