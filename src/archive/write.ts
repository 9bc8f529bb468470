import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Archives hold verbatim transcripts, secrets included: owner-only folders and files. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

/** Write through a temporary file and rename, so a crash never leaves a half-written file in place. */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): void {
  ensurePrivateDir(dirname(path));
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, data, { mode });
  chmodSync(temporary, mode);
  renameSync(temporary, path);
}
