import { lstatSync, readlinkSync } from 'node:fs';
import { isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { MoonError } from '../errors.js';

/**
 * The one rule for a path an agent names (an MCP tool argument, an HTTP parameter): it is read only when, with
 * every symlink on the way followed, it lies inside one of the allowed roots (the caller's project, the moon
 * home). A refusal names the argument and nothing about the file: the same message whether or not it exists,
 * and no part of its content.
 */

/** Characters a path argument may hold at most (PATH_MAX on Linux). */
export const MAX_PATH_CHARS = 4096;
/** Bytes one name in a path may hold at most (NAME_MAX). */
export const MAX_NAME_BYTES = 255;
/** Symlinks followed while resolving one path before it counts as a loop. */
const MAX_LINK_HOPS = 40;

/** Percent-encoded `/`, `\`, `.` and NUL: a path is a path here, never a URL to decode, so these are refused. */
const ENCODED_TRAVERSAL = /%(?:2f|5c|2e|00)/i;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A path argument's text checked before it touches the disk: a non-empty string, not too long, without NUL or
 * other control characters or percent-encoded separators and dots. Returns it unchanged.
 */
export function checkPathText(value: unknown, argument: string): string {
  if (typeof value !== 'string' || value === '') throw new MoonError('bad_input', `${argument}: must be a non-empty path`, { field: argument });
  if (value.length > MAX_PATH_CHARS) throw new MoonError('bad_input', `${argument}: a path is at most ${MAX_PATH_CHARS} characters, got ${value.length}`, { field: argument });
  if (CONTROL.test(value)) throw new MoonError('bad_input', `${argument}: a path may not hold NUL or other control characters`, { field: argument });
  if (ENCODED_TRAVERSAL.test(value)) {
    throw new MoonError('bad_input', `${argument}: a path may not hold percent-encoded separators or dots (%2F, %5C, %2E, %00); give it decoded`, { field: argument });
  }
  if (value.split(/[\\/]/).some((name) => Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES)) {
    throw new MoonError('bad_input', `${argument}: a name in a path is at most ${MAX_NAME_BYTES} bytes`, { field: argument });
  }
  return value;
}

/**
 * An absolute folder an interface takes as the caller's project (HTTP `cwd`): checked like any path argument
 * and normalized; it is the caller's own claim, so it is not confined (it is what confines).
 */
export function checkProjectFolder(value: unknown, argument: string): string {
  const text = checkPathText(value, argument);
  if (!isAbsolute(text)) throw new MoonError('bad_input', `${argument}: must be an absolute path`, { field: argument });
  return resolve(text);
}

/**
 * Where a path really leads: every symlink along it followed (dangling ones too, through their target), and the
 * part that does not exist kept as named. Never reads a file's content.
 */
export function resolveRealPath(path: string): string {
  const absolute = resolve(path);
  let current = parse(absolute).root;
  const rest = absolute.slice(current.length).split(sep).filter((name) => name !== '');
  let hops = 0;
  while (rest.length > 0) {
    const name = rest.shift()!;
    if (name === '.') continue;
    if (name === '..') {
      current = resolve(current, '..');
      continue;
    }
    const next = join(current, name);
    let link: string | null = null;
    try {
      link = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : null;
    } catch {
      // Missing (or not a folder, or not ours to look at): nothing below it can lead anywhere else.
      return join(next, ...rest);
    }
    if (link === null) {
      current = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_LINK_HOPS) return join(next, ...rest);
    const target = resolve(current, link);
    current = parse(target).root;
    rest.unshift(...target.slice(current.length).split(sep).filter((part) => part !== ''));
  }
  return current;
}

/** Whether `path` is `root` or lies below it (both already resolved). */
export function isInside(path: string, root: string): boolean {
  const between = relative(root, path);
  return between === '' || (!isAbsolute(between) && between !== '..' && !between.startsWith(`..${sep}`));
}

export interface ConfineRequest {
  /** The argument's name, for the messages (`index`). */
  argument: string;
  /** Folders a path may lead into: the caller's project root(s) and the moon home. */
  roots: readonly string[];
  /** What a relative path is relative to (the caller's project). */
  base: string;
}

/**
 * The real path of an agent-given path, or a MoonError('bad_input') naming the argument when it leads outside
 * every root. The refusal depends on where the path leads, never on whether its file exists.
 */
export function confinePath(value: unknown, request: ConfineRequest): string {
  const text = checkPathText(value, request.argument);
  const real = resolveRealPath(isAbsolute(text) ? text : resolve(request.base, text));
  const roots = request.roots.map(resolveRealPath);
  if (roots.some((root) => isInside(real, root))) return real;
  throw new MoonError('bad_input', `${request.argument}: refused — a path must lead inside the caller's project or the moon home`, {
    field: request.argument,
    hint: `name a file under ${request.roots.join(' or ')}`,
  });
}
