import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Projects a user keeps out of memory: `sources.exclude` globs (matched against the transcript's path and the
 * session's cwd) and a `.moonignore` file in the project — the session's cwd or any folder above it, so a
 * session started in a subfolder of an opted-out repository stays out too.
 */
export const IGNORE_FILE = '.moonignore';
/** Folders walked up from a cwd looking for the ignore file: deeper than any real project layout. */
const MAX_DEPTH = 32;

export interface OptOut {
  /** Why a transcript path alone is excluded (checked before the file is read), or null. */
  checkPath(path: string): string | null;
  /** Why a session working in `cwd` is excluded, or null. */
  checkCwd(cwd: string | null): string | null;
}

export function createOptOut(globs: readonly string[]): OptOut {
  const patterns = globs.map((glob) => ({ glob, regex: compileGlob(glob) }));
  const seen = new Map<string, boolean>();
  const hasIgnoreFile = (dir: string): boolean => {
    let found = seen.get(dir);
    if (found === undefined) {
      found = existsSync(join(dir, IGNORE_FILE));
      seen.set(dir, found);
    }
    return found;
  };
  const matchGlob = (value: string): string | null => patterns.find((pattern) => pattern.regex.test(value))?.glob ?? null;
  return {
    checkPath(path) {
      const glob = matchGlob(resolve(path));
      return glob ? `excluded by sources.exclude "${glob}"` : null;
    },
    checkCwd(cwd) {
      if (!cwd) return null;
      const glob = matchGlob(cwd);
      if (glob) return `excluded by sources.exclude "${glob}"`;
      // Only an absolute cwd names a folder on this machine; a project name alone cannot hold an ignore file.
      if (!cwd.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(cwd)) return null;
      let dir = cwd;
      for (let depth = 0; depth < MAX_DEPTH; depth += 1) {
        if (hasIgnoreFile(dir)) return `opted out by ${join(dir, IGNORE_FILE)}`;
        const parent = dirname(dir);
        if (parent === dir) break;
        dir = parent;
      }
      return null;
    },
  };
}

/**
 * A glob as an anchored regex: `**` any run of folders, `*` any characters but `/`, `?` one of them; everything
 * else literal. A glob without a `/` matches a name anywhere (`secret-client` excludes any path holding that
 * folder). Linear: the pieces are literals and `[^/]*` / `.*` runs.
 */
export function compileGlob(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index]!;
    if (char === '*' && glob[index + 1] === '*') {
      source += '.*';
      index += 1;
      if (glob[index + 1] === '/') index += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return glob.includes('/') ? new RegExp(`^${source}$`) : new RegExp(`(?:^|/)${source}(?:/|$)`);
}
