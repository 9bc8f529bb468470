import { describe, expect, test } from 'vitest';
import { findWorktreeRepoPath, nameProject } from '../../src/sources/path-names.js';
import {
  type ScopePlace,
  isInside,
  normalizePath,
  resolveProjectScope,
  rootToPath,
  scopeMatcher,
  scopeRecallOptions,
} from '../../src/search/scope.js';

const PLACES: ScopePlace[] = [
  { id: 'shop-1', cwd: '/home/dev/shop', project: 'shop' },
  { id: 'shop-2', cwd: '/home/dev/shop/packages/web', project: 'web' },
  { id: 'shop-wt', cwd: '/home/dev/shop/.claude/worktrees/agent-7', project: 'shop' },
  { id: 'shop2', cwd: '/home/dev/shop2', project: 'shop2' },
  { id: 'api', cwd: '/home/dev/api', project: 'api' },
  { id: 'no-cwd', cwd: null, project: 'shop' },
  { id: 'nothing', cwd: null, project: null },
];

const ids = (roots: string[]) => PLACES.filter(scopeMatcher(roots)).map((place) => place.id);

describe('project scope', () => {
  test('a session whose cwd is the root or inside it counts; a sibling with a longer name does not', () => {
    expect(ids(['/home/dev/shop'])).toEqual(['shop-1', 'shop-2', 'shop-wt', 'no-cwd']);
    expect(ids(['/home/dev/shop/'])).toEqual(['shop-1', 'shop-2', 'shop-wt', 'no-cwd']);
    expect(ids(['/home/dev/shop/packages/web'])).toEqual(['shop-2']);
    expect(ids(['/home/dev/api'])).toEqual(['api']);
    expect(ids(['/home/dev/shop2'])).toEqual(['shop2']);
    expect(ids(['/home/dev'])).toEqual(['shop-1', 'shop-2', 'shop-wt', 'shop2', 'api']);
    expect(ids(['/home/dev/api', '/home/dev/shop2'])).toEqual(['shop2', 'api']);
    expect(ids(['/elsewhere'])).toEqual([]);
  });

  test('a root in a worktree stands for its repository: the main checkout and the other worktrees count', () => {
    expect(ids(['/home/dev/shop/.claude/worktrees/agent-9'])).toEqual(['shop-1', 'shop-2', 'shop-wt', 'no-cwd']);
    expect(findWorktreeRepoPath('/home/dev/shop/.claude/worktrees/agent-9/src')).toBe('/home/dev/shop');
    expect(findWorktreeRepoPath('/home/dev/shop/.worktrees/x')).toBe('/home/dev/shop');
    expect(findWorktreeRepoPath('C:\\dev\\shop\\.trees\\x')).toBe('C:\\dev\\shop');
    expect(findWorktreeRepoPath('/home/dev/shop')).toBeNull();
    expect(findWorktreeRepoPath('/.worktrees/x')).toBeNull();
    // nameProject is unchanged by the refactor it shares
    expect(nameProject('/home/dev/shop/.claude/worktrees/agent-9')).toBe('shop');
    expect(nameProject('/home/dev/shop')).toBe('shop');
  });

  test('roots are file URIs or absolute paths; other schemes are no folder', () => {
    expect(rootToPath('file:///home/dev/shop')).toBe('/home/dev/shop');
    expect(rootToPath('file:///home/dev/my%20shop')).toBe('/home/dev/my shop');
    expect(rootToPath('/home/dev/shop')).toBe('/home/dev/shop');
    expect(rootToPath('C:\\dev\\shop')).toBe('C:\\dev\\shop');
    expect(rootToPath('https://example.com/x')).toBeNull();
    expect(rootToPath('relative/path')).toBeNull();
    expect(rootToPath('  ')).toBeNull();
  });

  test('paths compare normalized; Windows paths without regard to case', () => {
    expect(normalizePath('/home//dev/./shop/../shop/')).toBe('/home/dev/shop');
    expect(normalizePath('C:\\Dev\\Shop\\')).toBe('c:/Dev/Shop');
    expect(normalizePath('/C:/Dev/Shop')).toBe('c:/Dev/Shop');
    expect(isInside(normalizePath('C:\\dev\\shop\\src'), normalizePath('c:/DEV/shop'))).toBe(true);
    expect(isInside('/home/dev/Shop', '/home/dev/shop')).toBe(false);
    expect(isInside('/anything', '/')).toBe(true);
  });

  test('roots scope even when they match nothing; a cwd that matches nothing scopes nothing', () => {
    expect(resolveProjectScope({ roots: ['file:///home/dev/api'] }, PLACES)).toEqual({
      kind: 'project',
      via: 'roots',
      roots: ['/home/dev/api'],
      sessionIds: ['api'],
      everything: false,
    });
    expect(resolveProjectScope({ roots: ['file:///home/dev/new-thing'], cwd: '/home/dev/api' }, PLACES)).toMatchObject({ kind: 'project', via: 'roots', sessionIds: [] });
    // a cwd below a project's folder works in that project (its root: the deepest session folder above it)
    expect(resolveProjectScope({ roots: [], cwd: '/home/dev/api/src' }, PLACES)).toMatchObject({ kind: 'project', via: 'cwd', roots: ['/home/dev/api'], sessionIds: ['api'] });
    // …but a session started in the home folder does not make every folder below it one project
    expect(resolveProjectScope({ cwd: '/home/me/code/x' }, [...PLACES, { id: 'home', cwd: '/home/me', project: 'me' }], '/home/me')).toMatchObject({ kind: 'all', reason: 'unmatched_cwd' });
    expect(resolveProjectScope({ cwd: '/home/dev/api' }, PLACES)).toMatchObject({ kind: 'project', via: 'cwd', sessionIds: ['api'] });
    expect(resolveProjectScope({ cwd: '/tmp/somewhere' }, PLACES)).toEqual({ kind: 'all', reason: 'unmatched_cwd', roots: ['/tmp/somewhere'] });
    expect(resolveProjectScope({}, PLACES)).toEqual({ kind: 'all', reason: 'no_project', roots: [] });
    // roots that are no folder count as no roots
    expect(resolveProjectScope({ roots: ['https://x.test/'], cwd: '/home/dev/api' }, PLACES)).toMatchObject({ via: 'cwd', sessionIds: ['api'] });
    expect(resolveProjectScope({ roots: ['file:///home/dev/api'], allProjects: true }, PLACES)).toEqual({ kind: 'all', reason: 'all_projects', roots: ['/home/dev/api'] });
  });

  test('a folder holding every session scopes nothing out', () => {
    const all = PLACES.filter((place) => place.cwd !== null);
    expect(resolveProjectScope({ cwd: '/' }, all)).toMatchObject({ kind: 'project', everything: true });
    expect(resolveProjectScope({ cwd: '/' }, [])).toEqual({ kind: 'all', reason: 'unmatched_cwd', roots: ['/'] });
  });

  test('recall options: narrowed to the scope, kept when they name sessions, null when nothing is in scope', () => {
    const scoped = resolveProjectScope({ cwd: '/home/dev/api' }, PLACES);
    expect(scopeRecallOptions({ query: 'x' }, scoped)).toEqual({ query: 'x', session: ['api'] });
    expect(scopeRecallOptions({ query: 'x', session: ['shop-1'] }, scoped)).toEqual({ query: 'x', session: ['shop-1'] });
    expect(scopeRecallOptions({ query: 'x' }, resolveProjectScope({ roots: ['/nowhere'] }, PLACES))).toBeNull();
    expect(scopeRecallOptions({ query: 'x' }, resolveProjectScope({ allProjects: true }, PLACES))).toEqual({ query: 'x' });
    expect(scopeRecallOptions({ query: 'x', session: [] }, resolveProjectScope({ roots: ['/nowhere'] }, PLACES))).toBeNull();
  });
});
