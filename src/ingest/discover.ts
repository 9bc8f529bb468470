import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface Discovery {
  files: string[];
  warnings: string[];
}

/**
 * Every `*.jsonl` under the given roots (a root may also be a file), sorted, de-duplicated. `skip` holds
 * folders never to enter — moon's own home, whose raw archives are copies of what we index.
 */
export function discoverFiles(roots: readonly string[], skip: readonly string[] = []): Discovery {
  const files = new Set<string>();
  const warnings: string[] = [];
  const skipped = skip.map((path) => resolve(path));
  const walk = (dir: string): void => {
    if (skipped.includes(dir)) return;
    let names: import('node:fs').Dirent[];
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      warnings.push(`${dir}: cannot read folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      return;
    }
    for (const dirent of names) {
      const path = join(dir, dirent.name);
      if (dirent.isDirectory()) walk(path);
      else if ((dirent.isFile() || dirent.isSymbolicLink()) && dirent.name.endsWith('.jsonl')) files.add(path);
    }
  };
  for (const root of roots) {
    const path = resolve(root);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      warnings.push(`${path}: no such file or folder`);
      continue;
    }
    if (isDirectory) walk(path);
    else files.add(path);
  }
  return { files: [...files].sort(), warnings };
}
