import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../archive/write.js';
import { MoonError, errnoOf, toIoError } from '../errors.js';
import type { Change } from './entries.js';
import type { AgentName, InstallScope } from './targets.js';

/**
 * What `moon install` did to each agent config file, at `$MOON_HOME/state/installs.json`, so `moon uninstall`
 * removes exactly that. Not a copy of the files: the text moon wrote is turned back into the text before the
 * install by a small patch (the characters between the first and the last one moon changed), applied only when
 * the file is still byte for byte what moon wrote; otherwise moon's entries are taken out by the same editors.
 */
export interface InstallRecord {
  agent: AgentName;
  scope: InstallScope;
  file: string;
  format: 'json' | 'json5' | 'toml';
  role: 'hooks' | 'mcp';
  installed_at: string;
  /** Whether the file existed before moon first wrote to it. */
  original_existed: boolean;
  /** sha256 of the bytes moon last wrote. */
  written_sha256: string;
  /** Turns the written text back into the base text: written[0, prefix) + middle + written[length - suffix, length). */
  restore: { prefix: number; suffix: number; middle: string };
  /** sha256 of the base text, checked after the patch. */
  base_sha256: string;
  /** Changes already in the base text (an earlier install into a file the user edited since): removed after the patch. */
  base_changes: Change[];
  /** Everything moon added to the file, for a file the user changed since. */
  changes: Change[];
  /** Folders moon created for the file, removed again when empty. */
  created_dirs: string[];
  /** Written by the agent's own CLI (`openclaw mcp set`) rather than by moon's editor. */
  via?: 'openclaw-cli';
}

interface LedgerFile {
  version: 1;
  installs: InstallRecord[];
}

export function ledgerPath(moonHome: string): string {
  return join(moonHome, 'state', 'installs.json');
}

export function readLedger(path: string): InstallRecord[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [];
    throw toIoError(path, error, 'read');
  }
  try {
    const value = JSON.parse(text) as Partial<LedgerFile>;
    if (value.version !== 1 || !Array.isArray(value.installs)) throw new Error('unknown layout');
    return value.installs;
  } catch (error) {
    throw new MoonError('bad_input', `${path}: cannot read what moon installed (${(error as Error).message})`, {
      hint: 'remove moon’s entries from the agent config files by hand, then delete this file',
    });
  }
}

export function writeLedger(path: string, records: readonly InstallRecord[]): void {
  writeFileAtomic(path, `${JSON.stringify({ version: 1, installs: [...records] } satisfies LedgerFile, null, 1)}\n`);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The patch that turns `written` back into `base`. */
export function makeRestore(written: string, base: string): InstallRecord['restore'] {
  let prefix = 0;
  const limit = Math.min(written.length, base.length);
  while (prefix < limit && written[prefix] === base[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < limit - prefix && written[written.length - 1 - suffix] === base[base.length - 1 - suffix]) suffix += 1;
  return { prefix, suffix, middle: base.slice(prefix, base.length - suffix) };
}

/** `written` turned back into the base text; null when the result is not the recorded one. */
export function applyRestore(written: string, record: Pick<InstallRecord, 'restore' | 'base_sha256'>): string | null {
  const { prefix, suffix, middle } = record.restore;
  if (prefix + suffix > written.length) return null;
  const base = written.slice(0, prefix) + middle + written.slice(written.length - suffix);
  return sha256(base) === record.base_sha256 ? base : null;
}
