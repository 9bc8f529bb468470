import { findWorktreeRepoPath, nameProject } from '../sources/path-names.js';
import type { BrowsePort } from '../store/ports.js';
import type { StoredSession } from '../store/types.js';

/**
 * Which indexed sessions are "this project" for a hook whose payload names a working directory. A session
 * belongs when its cwd is the project's root or inside it. The root is the deepest cwd of an indexed session
 * that holds the payload's cwd (a cwd inside a project counts: `~/moon/src` belongs to the sessions of `~/moon`);
 * when no session ran at or above it, the payload's cwd itself is the root and sessions inside it count. A git
 * worktree of a repository (`<repo>/.claude/worktrees/<name>`) works in the repository's project. The home folder
 * and the file-system root are never a project root for a cwd below them: one session started in `~` must not
 * make every project's history "this project's".
 */
export interface ProjectScope {
  /** The project's root folder, `/`-separated. */
  root: string;
  /** The project's name, as moon names projects (the root's last folder). */
  name: string;
  /** Its sessions, most recent activity first: their own records (a caller reads counts for the few it shows). */
  sessions: StoredSession[];
}

/** Sessions read to find a project's: far more than a hook shows, so a busy project is not cut short. */
const CANDIDATE_LIMIT = 200;

export async function findProjectScope(browse: BrowsePort, cwd: string, homeDir: string): Promise<ProjectScope | null> {
  const start = normalizePath(cwd);
  if (start === '') return null;
  const effective = findWorktreeRepoPath(start) ?? start;
  const first = await browse.listSessionRecords({ projects: candidateFilters(effective), limit: CANDIDATE_LIMIT });
  const root = chooseRoot(first, effective, normalizePath(homeDir));
  // Sessions under an ancestor root but outside the cwd (a sibling folder) are not among the first candidates.
  const candidates = root === effective ? first : await browse.listSessionRecords({ projects: candidateFilters(root), limit: CANDIDATE_LIMIT });
  const sessions = candidates
    .filter((session) => session.cwd !== null && isWithin(normalizePath(session.cwd), root))
    .sort((a, b) => activityOf(b) - activityOf(a) || a.id.localeCompare(b.id));
  if (sessions.length === 0) return null;
  return { root, name: nameProject(root) ?? root, sessions };
}

/**
 * Filters for BrowsePort.listSessionRecords: the names of the folder and its ancestors (a project name matches
 * exactly), and the folder itself (with a `/`, a part of the cwd). A superset; `isWithin` decides.
 */
export function candidateFilters(folder: string): string[] {
  const filters = new Set<string>();
  if (folder.includes('/')) filters.add(folder);
  for (let path = folder; path !== ''; path = parentOf(path)) {
    const name = nameProject(path);
    if (name) filters.add(name);
  }
  return [...filters];
}

/** The deepest session cwd at or above `folder` that may be a project root, else `folder`. */
export function chooseRoot(candidates: readonly { cwd: string | null }[], folder: string, homeDir: string): string {
  let best: string | null = null;
  for (const session of candidates) {
    if (session.cwd === null) continue;
    const cwd = normalizePath(session.cwd);
    if (cwd === '' || !isWithin(folder, cwd)) continue;
    if (cwd !== folder && (cwd === homeDir || isFileSystemRoot(cwd))) continue;
    if (best === null || cwd.length > best.length) best = cwd;
  }
  return best ?? folder;
}

/** `/`-separated, without a trailing separator (the root `/` stays `/`). */
export function normalizePath(path: string): string {
  const slashed = path.trim().replace(/\\/g, '/');
  return slashed.length > 1 ? slashed.replace(/\/+$/, '') || '/' : slashed;
}

/** Whether `path` is `root` or inside it (both normalised). */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  return path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '' : path.slice(0, cut);
}

function isFileSystemRoot(path: string): boolean {
  return path === '/' || /^[A-Za-z]:\/?$/.test(path);
}

function activityOf(session: StoredSession): number {
  return session.endMs ?? session.startMs ?? 0;
}
