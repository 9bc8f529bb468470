import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isInside } from './confine-path.js';

/**
 * Paths moon keeps inside a home are stored relative to it (forward slashes, no `..`) and resolved against the
 * home in use when read, so a home can be moved or copied. Paths outside the home (an agent's own transcript)
 * are the user's files and stay absolute.
 */

/** The top-level names moon writes under a home: where a path's home-internal tail may begin. */
const HOME_ROOTS = new Set(['archives', 'continuity', 'memory', 'logs', 'MEMORY.md']);

/** Whether `stored` is a home-relative path moon could have written: relative, no `..`, no empty part. */
export function isHomeRelative(stored: string): boolean {
  if (stored === '' || isAbsolute(stored) || /^[A-Za-z]:/.test(stored)) return false;
  return stored.split(/[\\/]/).every((part) => part !== '' && part !== '.' && part !== '..');
}

/** `path` relative to `home` when it lies inside it (forward slashes); any other path unchanged. */
export function toHomeRelative(home: string, path: string): string {
  if (!isAbsolute(path)) return isHomeRelative(path) ? path.split(/[\\/]/).join('/') : path;
  const [root, target] = [resolve(home), resolve(path)];
  if (target === root || !isInside(target, root)) return path;
  return relative(root, target).split(sep).join('/');
}

/** The same, keeping null as null. */
export function toHomeRelativeOrNull(home: string, path: string | null): string | null {
  return path === null ? null : toHomeRelative(home, path);
}

/** Where a stored path points under the home in use: a home-relative path joined to it; an absolute one as it is. */
export function resolveHomePath(home: string, stored: string): string {
  if (isAbsolute(stored)) return stored;
  return join(home, ...stored.split(/[\\/]/));
}

export function resolveHomePathOrNull(home: string, stored: string | null): string | null {
  return stored === null ? null : resolveHomePath(home, stored);
}

/**
 * A path written by an older moon, made home-relative: an absolute path inside `home` becomes relative; an
 * absolute path into another (earlier) home location whose tail is a home path (`…/archives/raw/codex/x.jsonl`)
 * becomes that tail when the file exists under `home` (what a moved home holds); anything else is unchanged.
 */
export function relocateHomePath(home: string, stored: string, exists: (path: string) => boolean = existsSync): string {
  const relativeForm = toHomeRelative(home, stored);
  if (relativeForm !== stored || !isAbsolute(stored)) return relativeForm;
  const parts = stored.split(/[\\/]/).filter((part) => part !== '');
  for (let start = 0; start < parts.length; start++) {
    if (!HOME_ROOTS.has(parts[start] ?? '')) continue;
    const tail = parts.slice(start);
    if (!tail.every((part) => part !== '.' && part !== '..')) continue;
    if (exists(join(home, ...tail))) return tail.join('/');
  }
  return stored;
}
