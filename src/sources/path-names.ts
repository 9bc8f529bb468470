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
  const repo = findWorktreeRepo(parts);
  return (repo >= 0 ? parts[repo] : undefined) ?? parts.pop() ?? null;
}

/**
 * The repository a path inside one of its worktrees belongs to (`/r/.claude/worktrees/agent-1/src` → `/r`), with
 * the path's own separators; null when the path is in no worktree folder.
 */
export function findWorktreeRepoPath(path: string): string | null {
  const parts = path.split(/[\\/]/);
  const repo = findWorktreeRepo(parts);
  if (repo < 0 || parts[repo] === '') return null;
  const separator = path.includes('/') ? '/' : '\\';
  return parts.slice(0, repo + 1).join(separator);
}

/** Index of the repository folder above the innermost worktree folder in `parts` (a worktree name after it), or -1. */
function findWorktreeRepo(parts: readonly string[]): number {
  for (let index = parts.length - 2; index >= 1; index -= 1) {
    const folder = parts[index];
    const match = WORKTREE_FOLDERS.find(([parent, name]) => name === folder && (parent === null || parent === parts[index - 1]));
    if (!match) continue;
    const repoIndex = match[0] === null ? index - 1 : index - 2;
    if (repoIndex >= 0) return repoIndex;
  }
  return -1;
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
