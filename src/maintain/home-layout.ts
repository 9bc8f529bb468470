import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { relocateHomePath } from '../archive/home-path.js';
import { Ledger } from '../archive/ledger.js';
import type { MoonPaths } from '../archive/paths.js';
import { ensurePrivateDir, writeFileAtomic } from '../archive/write.js';
import { acquireLockWaiting } from '../lock/wait-lock.js';
import type { StoreEngine } from '../store/ports.js';

/**
 * Paths under a home are stored home-relative (archive/home-path.ts). A home an older moon wrote holds absolute
 * ones: the first open by this code converts it once — the ledger rewritten atomically, the index's session
 * rows in one transaction — and leaves `archives/layout.json` so it does not run again. Two processes opening
 * at once take turns on a lock; the second finds the marker and does nothing.
 */
export const HOME_LAYOUT_VERSION = 1;
const LOCK_TIMEOUT_MS = 60_000;

export interface LayoutConversion {
  converted: boolean;
  ledgerLines: number;
  sessionRows: number;
}

export function layoutMarkerPath(paths: MoonPaths): string {
  return join(paths.archives, 'layout.json');
}

/** Whether the home's stored paths are already home-relative (the marker names this version or later). */
export function isHomeLayoutCurrent(paths: MoonPaths): boolean {
  try {
    const value = JSON.parse(readFileSync(layoutMarkerPath(paths), 'utf8')) as { paths_version?: unknown };
    return typeof value.paths_version === 'number' && value.paths_version >= HOME_LAYOUT_VERSION;
  } catch {
    return false;
  }
}

/**
 * Convert the home's stored paths to home-relative ones, once. `engine` is the home's index when it has one
 * (null: only the ledger is converted, and the marker is not written, so the index is converted when it opens).
 */
export async function ensureHomeLayout(paths: MoonPaths, engine: StoreEngine | null, lockTimeoutMs = LOCK_TIMEOUT_MS): Promise<LayoutConversion> {
  const none = { converted: false, ledgerLines: 0, sessionRows: 0 };
  if (isHomeLayoutCurrent(paths)) return none;
  // A home with nothing written yet holds no paths: mark it only once it has an archive folder.
  if (!existsSync(paths.archives) && engine === null) return none;
  ensurePrivateDir(paths.archives);
  const lock = await acquireLockWaiting(join(paths.archives, 'layout.lock'), { pid: process.pid }, {
    timeoutMs: lockTimeoutMs,
    subject: `the conversion of ${paths.home} to home-relative paths`,
  });
  try {
    if (isHomeLayoutCurrent(paths)) return none;
    const rewrite = (stored: string): string => relocateHomePath(paths.home, stored);
    const ledgerLines = new Ledger(paths.ledger, paths.home).rewriteArchivePaths(rewrite);
    const sessionRows = engine ? await engine.ingest.rewriteSessionPaths(rewrite) : 0;
    if (engine) writeFileAtomic(layoutMarkerPath(paths), `${JSON.stringify({ paths_version: HOME_LAYOUT_VERSION, paths: 'home-relative' })}\n`);
    return { converted: true, ledgerLines, sessionRows };
  } finally {
    lock.release();
  }
}
