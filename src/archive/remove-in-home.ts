import { lstatSync, realpathSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { errnoOf, toIoError } from '../errors.js';
import { isInside } from './confine-path.js';
import { resolveHomePath } from './home-path.js';

/** What became of one file moon was asked to delete under a home. */
export type RemovalOutcome = 'removed' | 'absent' | 'outside-home' | 'not-a-file';

/**
 * The one way moon deletes a file under a home (forget, tombstones from another machine, a dropped
 * projection). `path` is a stored path (home-relative, or absolute): whatever a ledger or an index says, the file
 * is deleted only when its real location — the realpath of its folder, then its name — lies inside the real home.
 * A path outside (another home, a user's file, a `..` or symlinked folder leading out) is left alone and reported
 * as `outside-home`; a folder is never removed. A symlink as the last part is removed itself, not what it names.
 */
export function removeHomeFile(home: string, path: string): RemovalOutcome {
  const target = resolve(resolveHomePath(home, path));
  let realHome: string;
  let realFolder: string;
  try {
    realHome = realpathSync(home);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return 'absent';
    throw toIoError(home, error, 'resolve the home');
  }
  // Checked on the lexical path too: a `..` that resolves back inside a symlinked folder is still refused.
  if (!isBelow(resolve(home), target) && !isBelow(realHome, target)) return 'outside-home';
  try {
    realFolder = realpathSync(dirname(target));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return 'absent';
    throw toIoError(dirname(target), error, 'resolve the folder of');
  }
  const real = join(realFolder, basename(target));
  if (!isBelow(realHome, real)) return 'outside-home';
  try {
    if (lstatSync(real).isDirectory()) return 'not-a-file';
    unlinkSync(real);
    return 'removed';
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return 'absent';
    throw toIoError(real, error, 'remove');
  }
}

/** Whether `path` lies below `folder` (not the folder itself). */
function isBelow(folder: string, path: string): boolean {
  return path !== folder && isInside(path, folder);
}
