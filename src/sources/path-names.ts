/** Names taken from transcript paths, for sessions whose records do not state them. */

/** The file's name without its folder and `.jsonl`: most formats name the file after the session. */
export function takeFileStem(path: string): string {
  return (path.split(/[\\/]/).pop() ?? path).replace(/\.jsonl$/i, '');
}

/** The working directory's last folder names the project (`/home/me/moon/` → `moon`). */
export function nameProject(cwd: string | null): string | null {
  if (!cwd) return null;
  return cwd.split(/[\\/]/).filter((part) => part !== '').pop() ?? null;
}
