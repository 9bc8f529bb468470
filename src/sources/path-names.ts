/** Names taken from transcript paths, for sessions whose records do not state them. */

/** The file's name without its folder and `.jsonl`: most formats name the file after the session. */
export function takeFileStem(path: string): string {
  return (path.split(/[\\/]/).pop() ?? path).replace(/\.jsonl$/i, '');
}

/**
 * Folders that hold a repository's git worktrees, as `[parent, folder]` (parent null: any). A session working in
 * `<repo>/.claude/worktrees/agent-a52886dc` belongs to `<repo>`: its worktree name is a throwaway, and naming the
 * project after it would hide the session from `--project <repo>`.
 */
const WORKTREE_FOLDERS: readonly (readonly [string | null, string])[] = [
  ['.claude', 'worktrees'],
  ['.git', 'worktrees'],
  [null, '.worktrees'],
  [null, '.trees'],
];

/** The working directory's last folder names the project (`/home/me/moon/` → `moon`), or the repo of a worktree. */
export function nameProject(cwd: string | null): string | null {
  if (!cwd) return null;
  const parts = cwd.split(/[\\/]/).filter((part) => part !== '');
  return findWorktreeRepo(parts) ?? parts.pop() ?? null;
}

/** The repository folder above the innermost worktree folder in `parts`, when a worktree name follows it. */
function findWorktreeRepo(parts: readonly string[]): string | null {
  const index = findWorktreeRepoIndex(parts);
  return index === null ? null : (parts[index] ?? null);
}

function findWorktreeRepoIndex(parts: readonly string[]): number | null {
  for (let index = parts.length - 2; index >= 1; index -= 1) {
    const folder = parts[index];
    const match = WORKTREE_FOLDERS.find(([parent, name]) => name === folder && (parent === null || parent === parts[index - 1]));
    if (!match) continue;
    const repoIndex = match[0] === null ? index - 1 : index - 2;
    if (repoIndex >= 0) return repoIndex;
  }
  return null;
}

/**
 * The repository a working directory inside one of its git worktrees belongs to (`/r/moon/.claude/worktrees/a1/src`
 * → `/r/moon`), with `/` separators; null when the cwd is not inside a worktree folder.
 */
export function worktreeRepoPath(cwd: string): string | null {
  const parts = cwd.replace(/\\/g, '/').split('/');
  const named = parts.filter((part) => part !== '');
  const index = findWorktreeRepoIndex(named);
  if (index === null) return null;
  // Back to a path: the first index+1 non-empty parts, with the leading `/` (or drive) kept.
  let seen = -1;
  const cut = parts.findIndex((part) => part !== '' && (seen += 1) === index);
  return parts.slice(0, cut + 1).join('/');
}

/**
 * Claude Code keeps transcripts in `~/.claude/projects/<folder>/`, the folder named after the working directory
 * with every character but letters and digits turned into `-`. A subagent that worked elsewhere (its own worktree)
 * is still filed under its parent's folder: the prefix of its cwd that encodes to that folder is the project.
 */
export function nameProjectByFolder(folder: string, cwd: string | null): string | null {
  if (!cwd) return null;
  // The encoding keeps lengths, so the one prefix that can encode to the folder is the folder's length long:
  // one pass over the cwd, whatever its length or number of parts.
  const prefix = cwd.slice(0, folder.length);
  if (prefix.length !== folder.length || encodeClaudeFolder(prefix) !== folder) return null;
  const next = cwd[folder.length];
  if (next !== undefined && next !== '/' && next !== '\\') return null;
  const name = prefix.split(/[\\/]/).pop() ?? '';
  return name === '' ? null : name;
}

function encodeClaudeFolder(path: string): string {
  return path.replace(/[^A-Za-z0-9]/g, '-');
}
