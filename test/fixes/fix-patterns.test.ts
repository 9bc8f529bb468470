import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestPostgres, startTestPostgres } from '../helpers/postgres.js';
import { loadConfig } from '../../src/config.js';
import type { FixPattern } from '../../src/records/fixes.js';
import { type Moon, createMoon } from '../../src/moon.js';
import { REPO, makeTempDir, spawnMoon } from '../helpers/cli.js';
import { type TurnSpec, claudeSession } from '../helpers/transcripts.js';

/**
 * Generated Claude Code sessions with planted sequences, through `moon index` and `moon fixes`:
 * a failing test → an edit → the same test passing (verified), a claim with no re-run (claimed), a cited file
 * changed on disk and a reverted commit (stale), the same error in a second namespace (never shown in the first).
 * The whole suite runs on SQLite and on PostgreSQL (the built CLI only on SQLite: the embedded PostgreSQL is not
 * reachable from a child process).
 */

const SHOP_1 = '0b6f4a52-1111-4c3e-9a40-000000000001';
const SHOP_2 = '0b6f4a52-1111-4c3e-9a40-000000000002';
const SHOP_3 = '0b6f4a52-1111-4c3e-9a40-000000000003';
const BLOG_1 = '0b6f4a52-2222-4c3e-9a40-000000000001';
const BLOG_2 = '0b6f4a52-2222-4c3e-9a40-000000000002';
const MAP_ERROR = "TypeError: Cannot read properties of undefined (reading 'map')";
const TS_ERROR = "error TS2304: Cannot find name 'fetchUser'.";

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(engine, () => {
    let root: string;
    let cleanup: () => void;
    let shop: string;
    let blog: string;
    let sources: string;
    let home: string;
    let moon: Moon;
    let postgres: TestPostgres | null = null;
    let databaseUrl: string | null = null;

    function project(name: string): string {
      const dir = join(root, 'work', name);
      mkdirSync(join(dir, '.git'), { recursive: true });
      mkdirSync(join(dir, 'src'), { recursive: true });
      writeFileSync(join(dir, '.git', 'config'), `[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/${name}.git\n`);
      return dir;
    }

    function writeSession(id: string, cwd: string, turns: TurnSpec[]): void {
      const folder = join(sources, 'claude-code', cwd.replace(/\//g, '-'));
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `${id}.jsonl`), claudeSession({ sessionId: id, cwd, turns }));
    }

    const failingTest = (cwd: string, at: string, id: string): TurnSpec => ({
      role: 'assistant',
      at,
      id,
      text: 'Running the cart tests.',
      tool: {
        name: 'Bash',
        input: { command: 'npx vitest run test/cart.test.ts' },
        isError: true,
        result: `Exit code 1\n FAIL  test/cart.test.ts > total > sums prices\n${MAP_ERROR}\n    at total (${cwd}/src/cart.ts:3:16)\n    at ${cwd}/test/cart.test.ts:5:12\n Tests  1 failed (1)`,
      },
    });

    async function fixes(args: string[] = [], cwd?: string): Promise<{ scope: { namespace: string | null; widened: boolean }; patterns: FixPattern[] }> {
      return moon.memory.fixes({ query: args.join(' ') || null, cwd: cwd ?? shop });
    }

    beforeAll(async () => {
      const temp = makeTempDir('moon-fixes-');
      root = temp.path;
      cleanup = temp.cleanup;
      shop = project('shop');
      blog = project('blog');
      sources = join(root, 'sources');
      home = join(root, 'home');
      writeFileSync(join(shop, 'src', 'cart.ts'), 'export const total = (items = []) => items.map((item) => item.price);\n');
      writeFileSync(join(shop, 'src', 'api.ts'), 'export async function fetchUser() {}\n');
      // shop, session 1: the cart test fails, src/cart.ts is edited, the same test passes, the fix is committed.
      writeSession(SHOP_1, shop, [
        { role: 'user', at: '2026-03-02T09:00:00Z', id: 's1-1', text: 'The cart test is failing, can you fix it?' },
        failingTest(shop, '2026-03-02T09:01:00Z', 's1-2'),
        {
          role: 'assistant',
          at: '2026-03-02T09:03:00Z',
          id: 's1-3',
          text: "total() gets no items. Let's default the items instead of guarding every caller.",
          tool: { name: 'Edit', input: { file_path: join(shop, 'src', 'cart.ts'), old_string: '(items)', new_string: '(items = [])' }, result: 'The file has been updated.' },
        },
        {
          role: 'assistant',
          at: '2026-03-02T09:04:00Z',
          id: 's1-4',
          tool: { name: 'Bash', input: { command: 'npx vitest run test/cart.test.ts 2>&1 | tail -5' }, result: ' ✓ test/cart.test.ts (1 test) 3ms\n Tests  1 passed (1)' },
        },
        {
          role: 'assistant',
          at: '2026-03-02T09:05:00Z',
          id: 's1-5',
          tool: { name: 'Bash', input: { command: 'git commit -am "cart: default the items"' }, result: '[main 1a2b3c4] cart: default the items\n 1 file changed, 1 insertion(+), 1 deletion(-)' },
        },
        { role: 'assistant', at: '2026-03-02T09:06:00Z', id: 's1-6', text: 'Fixed by defaulting items to [] in total(); the test passes.' },
      ]);
      // shop, session 2: tsc fails, src/api.ts is edited, tsc passes (its file is changed on disk later: stale).
      writeSession(SHOP_2, shop, [
        {
          role: 'assistant',
          at: '2026-03-03T10:00:00Z',
          id: 's2-1',
          tool: { name: 'Bash', input: { command: `cd ${shop} && npx tsc --noEmit` }, isError: true, result: `Exit code 2\nsrc/app.ts(14,7): ${TS_ERROR}` },
        },
        {
          role: 'assistant',
          at: '2026-03-03T10:02:00Z',
          id: 's2-2',
          tool: { name: 'Write', input: { file_path: join(shop, 'src', 'api.ts'), content: 'export async function fetchUser() {}\n' }, result: 'File created successfully' },
        },
        { role: 'assistant', at: '2026-03-03T10:03:00Z', id: 's2-3', tool: { name: 'Bash', input: { command: `cd ${shop} && npx tsc --noEmit` }, result: '' } },
      ]);
      // blog: the same TypeError, a fix only claimed (no re-run), naming a commit.
      writeSession(BLOG_1, blog, [
        {
          role: 'assistant',
          at: '2026-03-04T08:00:00Z',
          id: 'b1-1',
          tool: { name: 'Bash', input: { command: 'npm test' }, isError: true, result: `Exit code 1\n${MAP_ERROR}\n    at renderFeed (${blog}/src/feed.ts:9:20)` },
        },
        {
          role: 'assistant',
          at: '2026-03-04T08:05:00Z',
          id: 'b1-2',
          tool: { name: 'Edit', input: { file_path: join(blog, 'src', 'feed.ts'), old_string: 'a', new_string: 'b' }, result: 'The file has been updated.' },
        },
        { role: 'assistant', at: '2026-03-04T08:06:00Z', id: 'b1-3', text: 'Fixed by defaulting the feed items in 9f8e7d6.' },
      ]);
      if (engine === 'postgres') {
        postgres = await startTestPostgres();
        databaseUrl = await postgres.createDatabase(`moon_fixes_${process.pid}`);
      }
      moon = createMoon(
        loadConfig({ home, env: { MOON_SOURCES: sources, MOON_INDEX_WORKERS: '0', MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...(databaseUrl ? { MOON_DATABASE_URL: databaseUrl } : {}) } }),
        () => Date.parse('2026-03-10T00:00:00Z'),
      );
      const report = await moon.history.index({ roots: [sources], noEmbed: true });
      expect(report.fatal).toBeNull();
      expect(report.sessions).toHaveLength(3);
    }, 60_000);

    afterAll(async () => {
      await moon?.close();
      if (postgres && databaseUrl) await postgres.dropDatabase(databaseUrl);
      await postgres?.stop();
      cleanup?.();
    });

    describe(`${engine}: fix patterns from indexed sessions`, () => {
      test('failing test → edit → the same test passing: a verified pattern with its evidence', async () => {
        const result = await fixes();
        expect(result.scope).toMatchObject({ namespace: 'github.com/acme/shop', widened: false });
        const cart = result.patterns.find((pattern) => pattern.signature === MAP_ERROR);
        expect(cart).toMatchObject({ count: 1, worked: 1, state: 'verified', namespace_id: 'github.com/acme/shop', repo: 'github.com/acme/shop', record_kind: 'fix_pattern', trust_class: 'derived' });
        expect(cart!.targets).toEqual(['npx vitest run test/cart.test.ts']);
        expect(cart!.evidence[0]).toMatchObject({
          session_id: SHOP_1,
          message_ids: ['s1-2', 's1-3', 's1-4'],
          files: [join(shop, 'src', 'cart.ts')],
          commits: ['1a2b3c4'],
          state: 'verified',
          verified_by: { session_id: SHOP_1, message_id: 's1-4', how: 'passing_run' },
          target: 'npx vitest run test/cart.test.ts',
        });
        // Ranked by how often they worked: the verified pattern before the rest.
        expect(result.patterns[0]!.worked).toBeGreaterThanOrEqual(result.patterns.at(-1)!.worked);
      });

      test('a decision followed by its change, a passing test run and a commit: verified, with what landed it', async () => {
        const result = await moon.memory.decisions({ cwd: shop });
        expect(result.scope).toMatchObject({ namespace: 'github.com/acme/shop' });
        const decision = result.decisions.find((item) => item.text.startsWith("Let's default the items"));
        expect(decision).toMatchObject({
          record_kind: 'decision',
          state: 'verified',
          session_id: SHOP_1,
          message_id: 's1-3',
          files: [join(shop, 'src', 'cart.ts')],
          commits: ['1a2b3c4'],
          verified_by: { session_id: SHOP_1, message_id: 's1-4', how: 'passing_run' },
        });
        expect((await moon.memory.decisions({ cwd: blog })).decisions.some((item) => item.session_id === SHOP_1)).toBe(false);
      });

      test('the same error in a second namespace never shows in the first', async () => {
        const shopResult = await fixes();
        expect(JSON.stringify(shopResult)).not.toContain(BLOG_1);
        expect(JSON.stringify(shopResult)).not.toContain('acme/blog');
        const blogResult = await fixes([], blog);
        expect(blogResult.scope.namespace).toBe('github.com/acme/blog');
        const feed = blogResult.patterns.find((pattern) => pattern.signature === MAP_ERROR);
        expect(feed).toMatchObject({ state: 'claimed', worked: 0, count: 1 });
        expect(feed!.evidence[0]).toMatchObject({ session_id: BLOG_1, state: 'claimed', commits: ['9f8e7d6'], verified_by: null });
        expect(JSON.stringify(blogResult)).not.toContain(SHOP_1);
        // --all-namespaces: both, each from its own namespace's facts.
        const all = await moon.memory.fixes({ allNamespaces: true, query: MAP_ERROR });
        expect(all.patterns.map((pattern) => [pattern.namespace_id, pattern.state]).sort()).toEqual([
          ['github.com/acme/blog', 'claimed'],
          ['github.com/acme/shop', 'verified'],
        ]);
      });

      test('a query by error text finds the pattern; a directory with no indexed project widens to every namespace', async () => {
        const byText = await fixes([`${MAP_ERROR}\n    at total (/elsewhere/src/cart.ts:3:16)`]);
        expect(byText.patterns.map((pattern) => pattern.signature)).toEqual([MAP_ERROR]);
        const byWords = await fixes(['fetchUser']);
        expect(byWords.patterns.map((pattern) => pattern.signature)).toEqual([TS_ERROR]);
        const nowhere = await moon.memory.fixes({ cwd: root });
        expect(nowhere.scope).toMatchObject({ namespace: null, widened: true });
      });

      test('a cited file changed since: stale', async () => {
        expect((await fixes(['fetchUser'])).patterns[0]).toMatchObject({ state: 'verified', worked: 1 });
        writeFileSync(join(shop, 'src', 'api.ts'), 'export async function fetchUser(id: string) { return id; }\n');
        const stale = (await fixes(['fetchUser'])).patterns[0]!;
        expect(stale).toMatchObject({ state: 'stale', worked: 0 });
        expect(stale.evidence[0]!.stale_reason).toBe(`${join(shop, 'src', 'api.ts')} changed since`);
      });

      test('later sessions, indexed incrementally: a landed commit verifies a claim, a revert makes a fix stale', async () => {
        writeSession(BLOG_2, blog, [
          { role: 'assistant', at: '2026-03-05T08:00:00Z', id: 'b2-1', tool: { name: 'Bash', input: { command: 'git log --oneline -3' }, result: '9f8e7d6 feed: default the items\n0c1d2e3 feed: first version' } },
        ]);
        writeSession(SHOP_3, shop, [
          { role: 'assistant', at: '2026-03-06T08:00:00Z', id: 's3-1', tool: { name: 'Bash', input: { command: 'git revert --no-edit 1a2b3c4' }, result: '[main 5e6f7a8] Revert "cart: default the items"' } },
        ]);
        const report = await moon.history.index({ roots: [sources], noEmbed: true });
        expect(report.sessions.sort()).toEqual([BLOG_2, SHOP_3].sort());
        const feed = (await fixes([MAP_ERROR], blog)).patterns[0]!;
        expect(feed).toMatchObject({ state: 'verified', worked: 1 });
        expect(feed.evidence[0]!.verified_by).toEqual({ session_id: BLOG_2, message_id: 'b2-1', how: 'commit_landed' });
        const cart = (await fixes([MAP_ERROR])).patterns[0]!;
        expect(cart).toMatchObject({ state: 'stale', worked: 0 });
        expect(cart.evidence[0]!.stale_reason).toBe(`commit 1a2b3c4 reverted in session ${SHOP_3}`);
        // The decision that commit carried is stale too.
        const decision = (await moon.memory.decisions({ cwd: shop, query: 'default the items' })).decisions[0]!;
        expect(decision).toMatchObject({ state: 'stale', stale_reason: `commit 1a2b3c4 reverted in session ${SHOP_3}` });
      });

      (engine === 'sqlite' ? test : test.skip)('the built CLI: moon fixes --json', async () => {
        const run = await spawnMoon(['fixes', '--json', '--all-namespaces', 'reading', 'map'], { MOON_HOME: home, MOON_SOURCES: sources, MOON_RESIDENTIAL_TIMEZONE: 'UTC' });
        expect(run.code, run.stderr).toBe(0);
        const parsed = JSON.parse(run.stdout) as { scope: unknown; patterns: FixPattern[] };
        expect(parsed.patterns.map((pattern) => pattern.namespace_id).sort()).toEqual(['github.com/acme/blog', 'github.com/acme/shop']);
        for (const pattern of parsed.patterns) {
          expect(pattern).toMatchObject({ signature: MAP_ERROR, count: 1 });
          expect(['claimed', 'verified', 'stale']).toContain(pattern.state);
          expect(pattern.evidence[0]).toHaveProperty('session_id');
          expect(pattern.evidence[0]).toHaveProperty('message_ids');
          expect(pattern.evidence[0]).toHaveProperty('files');
        }
        const text = await spawnMoon(['fixes', '--namespace', 'github.com/acme/blog'], { MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' });
        expect(text.code, text.stderr).toBe(0);
        expect(text.stdout).toContain('VERIFIED');
        expect(text.stdout).not.toContain('acme/shop');
        const decisions = await spawnMoon(['decisions', '--json', '--namespace', 'github.com/acme/shop', '--state', 'stale'], { MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC' });
        expect(decisions.code, decisions.stderr).toBe(0);
        const parsedDecisions = JSON.parse(decisions.stdout) as { decisions: { text: string; state: string }[] };
        expect(parsedDecisions.decisions.map((item) => [item.state, item.text])).toEqual([['stale', "Let's default the items instead of guarding every caller."]]);
        const badState = await spawnMoon(['decisions', '--state', 'maybe'], { MOON_HOME: home });
        expect(badState.code).toBe(2);
        expect(badState.stderr).toContain('--state');
      }, 60_000);
    });
  });
}

describe('fix patterns from the shared example transcripts', () => {
  test('the shop session: tsc fails, env.d.ts is edited, npm run build passes — verified', async () => {
    const temp = makeTempDir('moon-fixes-examples-');
    const examples = createMoon(loadConfig({ home: join(temp.path, 'home'), env: { MOON_INDEX_WORKERS: '0', MOON_RESIDENTIAL_TIMEZONE: 'UTC' } }), () => Date.parse('2026-03-10T00:00:00Z'));
    try {
      await examples.history.index({ roots: [join(REPO, 'examples')], noEmbed: true });
      const result = await examples.memory.fixes({ allNamespaces: true, query: 'TS2339' });
      expect(result.patterns).toHaveLength(1);
      expect(result.patterns[0]).toMatchObject({
        signature: "error TS2339: Property 'STRIPE_SECRET_KEY' does not exist on type 'Env'.",
        state: 'verified',
        worked: 1,
        namespace_id: 'path:/home/dev/shop',
      });
      expect(result.patterns[0]!.evidence[0]).toMatchObject({ files: ['/home/dev/shop/src/env.d.ts'], target: 'npm run build', state: 'verified' });
    } finally {
      await examples.close();
      temp.cleanup();
    }
  }, 60_000);
});
