import { homedir } from 'node:os';
import { posix } from 'node:path';
import { chooseRoot } from './project-scope.js';
import { fileURLToPath } from 'node:url';
import { findWorktreeRepoPath } from '../sources/path-names.js';
import type { RecallOptions } from './options.js';

/**
 * Project scope (issue 23, part 2): what moon hands an agent — MCP results, hook context, HTTP with a `cwd` — is
 * the history of the caller's project unless it asks for every project. The caller's project is its roots (MCP
 * `roots/list`: file:// URIs) or, without roots, its working directory. A session is in scope when its cwd is a
 * root or inside one; a root inside a repository's worktree folder (`<repo>/.claude/worktrees/x`) stands for the
 * repository, so the other worktrees' and the main checkout's sessions count too; a session that recorded no cwd
 * counts when its project name is the root's. A working directory that matches no indexed session (an agent
 * started in $HOME's parent, a new project) scopes nothing: the caller gets everything. Roots the client stated
 * are kept even when they match nothing: that project has no history yet. An explicit session id is never
 * filtered out. Pure: the caller lists the sessions' places (BrowsePort.listSessionPlaces).
 */
export interface ScopeRequest {
  /** The caller's project folders: file:// URIs (MCP roots) or absolute paths. */
  roots?: readonly string[];
  /** The caller's working directory, used when there are no roots. */
  cwd?: string | null;
  /** Every project, whatever the roots. */
  allProjects?: boolean;
}

/** Where a session ran (BrowsePort.listSessionPlaces). */
export interface ScopePlace {
  id: string;
  cwd: string | null;
  project: string | null;
}

export type ProjectScope =
  | {
      kind: 'all';
      /** all_projects: asked for; no_project: no roots and no cwd; unmatched_cwd: the cwd matches no indexed session. */
      reason: 'all_projects' | 'no_project' | 'unmatched_cwd';
      /** The folders that were considered (the cwd for unmatched_cwd), as paths. */
      roots: string[];
    }
  | {
      kind: 'project';
      via: 'roots' | 'cwd';
      /** The caller's folders, as paths (worktrees not yet widened to their repository). */
      roots: string[];
      /** Sessions in scope, by id. */
      sessionIds: string[];
      /** Every indexed session is in scope (the caller's folder holds them all): nothing needs filtering. */
      everything: boolean;
    };

export function resolveProjectScope(request: ScopeRequest, places: readonly ScopePlace[], homeDir: string = homedir()): ProjectScope {
  const fromRoots = (request.roots ?? []).map(rootToPath).filter((path): path is string => path !== null);
  if (request.allProjects) return { kind: 'all', reason: 'all_projects', roots: fromRoots };
  const cwd = request.cwd?.trim() ? request.cwd.trim() : null;
  const via = fromRoots.length > 0 ? 'roots' : cwd !== null ? 'cwd' : null;
  if (via === null) return { kind: 'all', reason: 'no_project', roots: [] };
  // A working directory below a project's folder (`~/moon/src`) works in that project: its root is the deepest
  // folder an indexed session ran in at or above it (never the home folder or `/` for a folder below them).
  const roots = via === 'roots' ? fromRoots : [chooseRoot(places, normalizePath(findWorktreeRepoPath(cwd!) ?? cwd!), normalizePath(homeDir))];
  const matcher = scopeMatcher(roots);
  const sessionIds = places.filter(matcher).map((place) => place.id);
  if (via === 'cwd' && sessionIds.length === 0) return { kind: 'all', reason: 'unmatched_cwd', roots };
  return { kind: 'project', via, roots, sessionIds, everything: places.length > 0 && sessionIds.length === places.length };
}

/**
 * Recall options narrowed to the scope; null when nothing is in scope (a recall would find nothing). Options that
 * name sessions are the caller's own choice and are kept as they are.
 */
export function scopeRecallOptions(options: RecallOptions, scope: ProjectScope): RecallOptions | null {
  if (options.session && options.session.length > 0) return options;
  if (scope.kind === 'all' || scope.everything) return options;
  if (scope.sessionIds.length === 0) return null;
  return { ...options, session: scope.sessionIds };
}

/** Whether one session is in the scope of these folders (paths). */
export function scopeMatcher(roots: readonly string[]): (place: ScopePlace) => boolean {
  const folders: string[] = [];
  const names = new Set<string>();
  for (const root of roots) {
    const path = normalizePath(root);
    const repo = findWorktreeRepoPath(path);
    folders.push(path, ...(repo === null ? [] : [normalizePath(repo)]));
    // The project name moon gives a session working there (sources/path-names.ts: a worktree's is its repository's).
    const name = baseName(repo ?? path).toLowerCase();
    if (name !== '') names.add(name);
  }
  return (place) => {
    if (place.cwd !== null && place.cwd.trim() !== '') {
      const cwd = normalizePath(place.cwd);
      return folders.some((folder) => isInside(cwd, folder));
    }
    return place.project !== null && names.has(place.project.toLowerCase());
  };
}

/** A root as a path: a file:// URI decoded, an absolute path as it is; anything else (another scheme) is no folder. */
export function rootToPath(root: string): string | null {
  const value = root.trim();
  if (value === '') return null;
  if (/^file:/i.test(value)) {
    try {
      return fileURLToPath(value);
    } catch {
      // A file URI Node cannot map on this platform (another machine's drive letter): read its path part.
      try {
        return decodeURIComponent(new URL(value).pathname);
      } catch {
        return null;
      }
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return null;
  return value.startsWith('/') || value.startsWith('\\') || /^[a-z]:[\\/]/i.test(value) ? value : null;
}

/** `/`-separated, no `.` or `..` or doubled or trailing separators; a Windows path's drive letter in lower case. */
export function normalizePath(path: string): string {
  let out = path.trim().replace(/\\/g, '/');
  // `/C:/dev` (a file URI's path) is the drive path `C:/dev`.
  if (/^\/[a-z]:\//i.test(out)) out = out.slice(1);
  const drive = /^[a-z]:/i.test(out) ? out.slice(0, 2).toLowerCase() : '';
  const rest = drive ? out.slice(2) : out;
  let normal = posix.normalize(rest === '' ? '/' : rest);
  if (normal.length > 1 && normal.endsWith('/')) normal = normal.slice(0, -1);
  return `${drive}${normal}`;
}

/** Whether `path` is `folder` or inside it (both normalized). Windows paths compare without regard to case. */
export function isInside(path: string, folder: string): boolean {
  const windows = /^[a-z]:/.test(folder) || /^[a-z]:/.test(path);
  const a = windows ? path.toLowerCase() : path;
  const b = windows ? folder.toLowerCase() : folder;
  if (a === b) return true;
  return a.startsWith(b.endsWith('/') ? b : `${b}/`);
}

function baseName(path: string): string {
  return path.split('/').filter((part) => part !== '').pop() ?? '';
}
