import { lstatSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { isInside, resolveRealPath } from '../archive/confine-path.js';
import { removeHomeFile } from '../archive/remove-in-home.js';
import { MoonError, errnoOf, toIoError } from '../errors.js';
import { modelDirOf, stagingDirOf, toModelName } from './model-name.js';

export interface RemoveModelReport {
  name: string;
  dir: string;
  /** Files deleted (the model's, and those an unfinished pull left). */
  files: number;
}

/**
 * `moon models remove NAME`: the model's folder and whatever an unfinished pull of it left, deleted file by file
 * through the home's one deletion rule (archive/remove-in-home.ts) and only inside $MOON_HOME/models. A folder
 * that is a symlink loses the link, never what it points at.
 */
export function removeModel(home: string, modelsDir: string, spec: string): RemoveModelReport {
  const name = toModelName(spec, 'model');
  const dir = modelDirOf(modelsDir, name);
  const staging = stagingDirOf(modelsDir, name);
  // The name holds no separator, so the folder is a child of models/; models/ itself must lead inside the home.
  if (!isInside(resolveRealPath(modelsDir), resolveRealPath(home))) {
    throw new MoonError('bad_input', `${modelsDir} leads outside the moon home ${home}: nothing removed`);
  }
  const found = [dir, staging].filter(exists);
  if (found.length === 0) throw new MoonError('not_found', `no model "${name}" in ${modelsDir}`, { hint: '`moon models list` shows the models there are' });
  let files = 0;
  for (const folder of found) files += removeFolderInHome(home, folder);
  return { name, dir, files };
}

/** Delete a folder under the home: each file through removeHomeFile, then the emptied folders, deepest first. */
export function removeFolderInHome(home: string, folder: string): number {
  if (lstatSync(folder).isSymbolicLink()) {
    refuseOutside(removeHomeFile(home, folder), folder);
    return 1;
  }
  let files = 0;
  const folders = [folder];
  for (let index = 0; index < folders.length; index++) {
    let entries;
    try {
      entries = readdirSync(folders[index]!, { withFileTypes: true });
    } catch (error) {
      throw toIoError(folders[index]!, error, 'read');
    }
    for (const entry of entries) {
      const path = join(folders[index]!, entry.name);
      if (entry.isDirectory()) folders.push(path);
      else {
        refuseOutside(removeHomeFile(home, path), path);
        files += 1;
      }
    }
  }
  for (const path of folders.reverse()) {
    try {
      rmdirSync(path);
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw toIoError(path, error, 'remove');
    }
  }
  return files;
}

function refuseOutside(outcome: ReturnType<typeof removeHomeFile>, path: string): void {
  if (outcome === 'outside-home') throw new MoonError('bad_input', `${path} lies outside the moon home: not removed`);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
