import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type CliRun, makeTempDir, spawnMoon } from '../helpers/cli.js';

/** The built CLI (npm run build) run in `cwd`: the namespace comes from the working directory. */
function moonIn(cwd: string, home: string, args: string[]): Promise<CliRun> {
  return spawnMoon(['--home', home, ...args], { HOME: home }, { cwd });
}

function repo(root: string, remote: string | null): string {
  mkdirSync(join(root, '.git'), { recursive: true });
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, '.git', 'config'), remote ? `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n` : '[core]\n\tbare = false\n');
  return root;
}

describe('moon memory in a project directory (built CLI)', () => {
  let dir: { path: string; cleanup: () => void };
  beforeEach(() => {
    dir = makeTempDir('moon-ltm-cwd-');
  });
  afterEach(() => dir.cleanup());

  test("the working directory's namespace by default; a look-alike project next door sees nothing of it", async () => {
    const home = join(dir.path, 'home');
    const shop = repo(join(dir.path, 'shop'), 'git@github.com:acme/shop.git');
    const fork = repo(join(dir.path, 'shop-fork'), 'https://github.com/acme/shop-fork');
    const added = await moonIn(join(shop, 'src'), home, ['memory', 'add', 'Orders are archived after 90 days by the nightly job', '--json']);
    expect(added.stderr).toBe('');
    expect(JSON.parse(added.stdout)).toMatchObject({ namespace_id: 'github.com/acme/shop', repo: 'github.com/acme/shop', review_state: 'draft' });
    await moonIn(fork, home, ['memory', 'add', 'Orders are archived after 90 days by the nightly job', '--json']);

    const inShop = JSON.parse((await moonIn(shop, home, ['memory', 'search', 'orders archived', '--json'])).stdout) as { memories: { namespace_id: string }[] };
    expect(inShop.memories.map((item) => item.namespace_id)).toEqual(['github.com/acme/shop']);
    const inFork = await moonIn(join(fork, 'src'), home, ['memory', 'list', '--json']);
    expect((JSON.parse(inFork.stdout) as { memories: { namespace_id: string }[] }).memories.map((item) => item.namespace_id)).toEqual(['github.com/acme/shop-fork']);
    expect(inFork.stdout).not.toContain('"github.com/acme/shop"');
    const everywhere = JSON.parse((await moonIn(fork, home, ['memory', 'list', '--all-namespaces', '--json'])).stdout) as { memories: unknown[] };
    expect(everywhere.memories).toHaveLength(2);
  });

  test('moon memory import with no PATH finds the repository root CLAUDE.md from a subfolder', async () => {
    const home = join(dir.path, 'home');
    const shop = repo(join(dir.path, 'shop'), null);
    writeFileSync(join(shop, 'CLAUDE.md'), '# Shop\n\n- Migrations are written by hand, never generated\n- Seed data lives in db/seeds only\n');
    const report = await moonIn(join(shop, 'src'), home, ['memory', 'import', '--agent', 'claude-code', '--json']);
    expect(report.stderr).toBe('');
    expect(JSON.parse(report.stdout)).toMatchObject({ namespace_id: `path:${shop}`, files: [{ path: join(shop, 'CLAUDE.md'), agent: 'claude-code', entries: 2, created: 2 }] });
    const human = await moonIn(shop, home, ['memory', 'list']);
    expect(human.stdout).toContain('agent already loads it');
  });
});
