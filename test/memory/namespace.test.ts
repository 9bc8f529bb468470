import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { normalizeRemote, resolveNamespace } from '../../src/records/envelope.js';
import { makeTempDir } from '../helpers/cli.js';

const dirs: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of dirs.splice(0)) cleanup();
});

describe('namespaces', () => {
  test.each([
    ['git@github.com:acme/shop.git', 'github.com/acme/shop'],
    ['https://user@GitHub.com/acme/shop.git/', 'github.com/acme/shop'],
    ['ssh://git@gitlab.example.com/team/api', 'gitlab.example.com/team/api'],
  ])('%s → %s', (remote, expected) => {
    expect(normalizeRemote(remote)).toBe(expected);
  });

  test('a repository with an origin is named by its remote, from any folder inside it or a worktree of it', () => {
    const dir = makeTempDir('moon-ns-');
    dirs.push(dir.cleanup);
    const repo = join(dir.path, 'shop');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    writeFileSync(join(repo, '.git', 'config'), '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/shop.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n');
    expect(resolveNamespace(join(repo, 'src', 'deep'))).toEqual({ namespace_id: 'github.com/acme/shop', repo: 'github.com/acme/shop', root: repo });
    expect(resolveNamespace(join(repo, '.claude', 'worktrees', 'agent-1', 'src')).namespace_id).toBe('github.com/acme/shop');
    // No remote: the repository root; no repository: the folder; no cwd: the project name.
    const local = join(dir.path, 'local');
    mkdirSync(join(local, '.git'), { recursive: true });
    mkdirSync(join(local, 'lib'));
    expect(resolveNamespace(join(local, 'lib'), null, () => null)).toEqual({ namespace_id: `path:${local}`, repo: null, root: local });
    expect(resolveNamespace(null, 'shop').namespace_id).toBe('project:shop');
  });
});
