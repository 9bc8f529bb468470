import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../archive/write.js';
import type { ContinuityMap } from '../model.js';
import { serializeContinuityMap } from './map.js';

/**
 * Write the map to `<dir>/continuity-<generated_at_epoch_secs>.json` through a temporary file and a rename, and
 * return its path. The same map again rewrites the same file; a different map generated in the same second gets
 * `continuity-<epoch>-2.json` (then `-3`, …) rather than replacing it.
 */
export function writeContinuityMap(dir: string, map: ContinuityMap): string {
  const text = serializeContinuityMap(map);
  for (let copy = 1; ; copy += 1) {
    const path = join(dir, `continuity-${map.generated_at_epoch_secs}${copy === 1 ? '' : `-${copy}`}.json`);
    if (existsSync(path) && readFileSync(path, 'utf8') !== text) continue;
    writeFileAtomic(path, text);
    return path;
  }
}
