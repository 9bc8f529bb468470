import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { makeTempDir, runMoon } from '../helpers/cli.js';

const NS = 'github.com/acme/shop';
const OTHER = 'github.com/acme/shop-fork';

describe('moon memory (CLI round trip)', () => {
  let home: { path: string; cleanup: () => void };
  beforeEach(() => {
    home = makeTempDir('moon-ltm-cli-');
  });
  afterEach(() => home.cleanup());
  const moon = (args: string[], env: Record<string, string> = {}) =>
    runMoon(['--home', home.path, ...args], { HOME: home.path, MOON_FAKE_NOW: '2026-03-01T09:00:00Z', ...env });
  const json = async (args: string[], env: Record<string, string> = {}) => {
    const run = await moon([...args, '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout) as Record<string, any>;
  };

  test('add → approve → edit (version kept) → deprecate (searchable, flagged)', async () => {
    const added = await json(['memory', 'add', 'Run the e2e suite with `npm run e2e -- --headed` before a release', '--namespace', NS, '--session', '5e551011-0000-4000-8000-000000000001,5e551011-0000-4000-8000-000000000002', '--message', 'u-9']);
    expect(added).toMatchObject({ review_state: 'draft', scope: 'project', namespace_id: NS, outcome: 'created', record_kind: 'long_term' });
    expect(added.provenance).toEqual([{ source: 'manual', session_ids: ['5e551011-0000-4000-8000-000000000001', '5e551011-0000-4000-8000-000000000002'], message_ids: ['u-9'] }]);
    const id = added.id as string;
    expect(id).toMatch(/^mem_/);

    const dashed = await moon(['memory', 'add', '--namespace', NS, '--json', '--', '- run the e2e suite with npm run e2e -- --headed before a release.']);
    const again = JSON.parse(dashed.stdout) as Record<string, unknown>;
    expect(again).toMatchObject({ id, outcome: 'unchanged', duplicate: 'exact' });

    expect(await json(['memory', 'approve', id, '--namespace', NS])).toMatchObject({ id, review_state: 'approved' });
    const edited = await json(['memory', 'edit', id, 'Run the e2e suite with `npm run e2e` before every release', '--namespace', NS]);
    expect(edited).toMatchObject({ version: 2, review_state: 'approved', text: 'Run the e2e suite with `npm run e2e` before every release' });
    const shown = await json(['memory', 'show', id, '--namespace', NS]);
    expect(shown.versions).toEqual([expect.objectContaining({ version: 1, text: 'Run the e2e suite with `npm run e2e -- --headed` before a release' })]);

    expect(await json(['memory', 'deprecate', id, '--namespace', NS])).toMatchObject({ review_state: 'deprecated' });
    const found = await json(['memory', 'search', 'e2e release', '--namespace', NS]);
    expect(found.memories.map((item: { id: string }) => item.id)).toEqual([id]);
    const human = await moon(['memory', 'search', 'e2e', '--namespace', NS]);
    expect(human.stdout).toContain('[deprecated]');
    expect(human.stdout).toContain('deprecated: never injected');
    const approvedOnly = await json(['memory', 'list', '--state', 'approved', '--namespace', NS]);
    expect(approvedOnly.memories).toEqual([]);
  });

  test('namespaces: look-alike content in another namespace never shows; --all-namespaces shows both', async () => {
    const a = await json(['memory', 'add', 'The payments sandbox key lives in 1Password vault Shop', '--namespace', NS]);
    const b = await json(['memory', 'add', 'The payments sandbox key lives in 1Password vault Shop', '--namespace', OTHER]);
    expect(b.id).not.toBe(a.id);
    for (const args of [['memory', 'list'], ['memory', 'search', 'payments sandbox']]) {
      const run = await moon([...args, '--namespace', OTHER, '--json']);
      expect(run.stdout).not.toContain(a.id);
      expect(run.stdout).not.toContain(`"${NS}"`);
    }
    const notHere = await moon(['memory', 'show', a.id, '--namespace', OTHER]);
    expect(notHere.code).toBe(2);
    expect(notHere.stderr).toContain('no long-term memory');
    expect((await moon(['memory', 'approve', a.id, '--namespace', OTHER])).code).toBe(2);
    const all = await json(['memory', 'list', '--all-namespaces']);
    expect(all.memories.map((item: { id: string }) => item.id).sort()).toEqual([a.id, b.id].sort());
    expect((await moon(['memory', 'add', 'x y z', '--all-namespaces'])).code).toBe(2);
  });

  test('expiry: an expired memory is never returned, and moon gc removes it', async () => {
    const temp = await json(['memory', 'add', 'CI is pinned to node 20.11 until the runner image is fixed', '--expires', '2026-03-05', '--namespace', NS]);
    await json(['memory', 'add', 'CI runs on node 20', '--namespace', NS]);
    expect((await json(['memory', 'list', '--namespace', NS])).memories.length).toBe(2);
    const later = { MOON_FAKE_NOW: '2026-03-06T00:00:00Z' };
    const afterExpiry = await json(['memory', 'list', '--namespace', NS], later);
    expect(afterExpiry.memories.map((item: { text: string }) => item.text)).toEqual(['CI runs on node 20']);
    expect((await moon(['memory', 'show', temp.id, '--namespace', NS], later)).code).toBe(2);
    expect(await json(['gc'], { MOON_FAKE_NOW: '2026-03-04T00:00:00Z' })).toEqual({ steps: [{ name: 'long_term', purged: 0 }, { name: 'run_digest', purged: 0 }], purged: 0 });
    expect(await json(['gc'], later)).toEqual({ steps: [{ name: 'long_term', purged: 1 }, { name: 'run_digest', purged: 0 }], purged: 1 });
    expect((await json(['memory', 'list', '--all-namespaces'], { MOON_FAKE_NOW: '2026-03-01T00:00:00Z' })).memories.length).toBe(1);
    expect((await moon(['memory', 'add', 'x y z', '--expires', 'soon', '--namespace', NS])).code).toBe(2);
  });

  test('moon rebuild keeps long-term memories (they are in no archive)', async () => {
    const kept = await json(['memory', 'add', 'Staging deploys need the VPN up first', '--namespace', NS]);
    await json(['memory', 'edit', kept.id, 'Staging deploys need the office VPN up first', '--namespace', NS]);
    mkdirSync(join(home.path, 'archives', 'raw'), { recursive: true });
    const rebuilt = await moon(['rebuild']);
    expect(rebuilt.code).toBe(0);
    const shown = await json(['memory', 'show', kept.id, '--namespace', NS]);
    expect(shown.memory).toMatchObject({ text: 'Staging deploys need the office VPN up first', version: 2 });
    expect(shown.versions).toHaveLength(1);
  });

  test("writing memory commands and gc refuse another home's watcher sharing the logs dir; reads do not", async () => {
    const logs = join(home.path, 'logs');
    mkdirSync(logs, { recursive: true });
    writeFileSync(join(logs, 'moon-watch.daemon.lock'), JSON.stringify({ pid: process.pid, started_at_epoch_secs: 1, build_uuid: 'x', moon_home: '/other/home' }));
    for (const args of [['memory', 'add', 'some text to keep', '--namespace', NS], ['memory', 'import', home.path, '--namespace', NS], ['gc']]) {
      const refused = await moon(args);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(/works on \/other\/home/);
    }
    expect((await moon(['memory', 'list', '--namespace', NS])).code).toBe(0);
    expect((await moon(['--allow-out-of-bounds', 'memory', 'add', 'some text to keep', '--namespace', NS])).code).toBe(0);
  });

  test('bad usage: unknown scope or state', async () => {
    expect((await moon(['memory', 'add', 'some text here', '--scope', 'galaxy', '--namespace', NS])).code).toBe(2);
    expect((await moon(['memory', 'list', '--state', 'pending', '--namespace', NS])).code).toBe(2);
    expect((await moon(['memory', 'list', '--limit', 'lots', '--namespace', NS])).code).toBe(2);
    expect((await moon(['memory', 'search', 'x', '--limit', '0', '--namespace', NS])).code).toBe(2);
  });

  test('import by PATH: a file, then a folder; provenance and content hash; a second import adds nothing', async () => {
    const repo = join(home.path, 'shop');
    mkdirSync(join(repo, 'notes'), { recursive: true });
    writeFileSync(join(repo, 'CLAUDE.md'), CLAUDE_MD);
    writeFileSync(join(repo, 'notes', 'a.md'), '- Keep PRs under 400 lines of diff\n- Build with `npm run build`, the output goes to dist/\n');
    const first = await json(['memory', 'import', join(repo, 'CLAUDE.md'), '--agent', 'claude-code', '--namespace', NS]);
    expect(first.files).toEqual([expect.objectContaining({ path: join(repo, 'CLAUDE.md'), agent: 'claude-code', entries: 3, created: 3 })]);
    const listed = (await json(['memory', 'list', '--namespace', NS])).memories as { text: string; agent_loaded: boolean; review_state: string; provenance: { source: string; content_hash: string }[] }[];
    expect(listed.map((item) => item.text).sort()).toEqual([
      'Build with `npm run build`; the output goes to dist/',
      'Run one test file with `npx vitest run path/to/file`',
      'The checkout service talks to Stripe through src/pay/client.ts only. Never call the Stripe SDK anywhere else.',
    ]);
    expect(listed.every((item) => item.agent_loaded && item.review_state === 'draft')).toBe(true);
    expect(listed[0]!.provenance).toEqual([{ source: `import:${join(repo, 'CLAUDE.md')}`, session_ids: [], message_ids: [], content_hash: first.files[0].content_hash }]);
    const again = await json(['memory', 'import', join(repo, 'CLAUDE.md'), '--namespace', NS]);
    expect(again.files).toEqual([expect.objectContaining({ entries: 3, created: 0, merged: 0, unchanged: 3 })]);
    // a folder: each markdown file; the build line is a near duplicate of CLAUDE.md's, merged with both provenances
    const folder = await json(['memory', 'import', join(repo, 'notes'), '--namespace', NS]);
    expect(folder.files).toEqual([expect.objectContaining({ entries: 2, created: 1, merged: 1 })]);
    const build = (await json(['memory', 'search', 'npm run build', '--namespace', NS])).memories as { provenance: { source: string }[] }[];
    expect(build).toHaveLength(1);
    expect(build[0]!.provenance.map((item) => item.source)).toEqual([`import:${join(repo, 'CLAUDE.md')}`, `import:${join(repo, 'notes', 'a.md')}`]);
  });
});

export const CLAUDE_MD = [
  '# Shop',
  '',
  '## Commands',
  '- Build with `npm run build`; the output goes to dist/',
  '- Run one test file with `npx vitest run path/to/file`',
  '',
  '```sh',
  'npm run build',
  '```',
  '',
  'The checkout service talks to Stripe through src/pay/client.ts only.',
  'Never call the Stripe SDK anywhere else.',
  '',
].join('\n');
