import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MoonError, describeError } from '../errors.js';

/**
 * Which machine a MOON_HOME is, for a database several machines share: file states, failures and ledger lines
 * are kept per machine. A random id written once to `$MOON_HOME/machine-id` (a copied home is the same machine:
 * its archive and ledger came along).
 */
export function readMachineId(home: string): string {
  const path = join(home, 'machine-id');
  try {
    const id = readFileSync(path, 'utf8').trim();
    if (id !== '') return id;
  } catch {
    // not yet written
  }
  const id = randomUUID();
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(path, `${id}\n`, { flag: 'wx', mode: 0o600 });
    return id;
  } catch (error) {
    // Another process wrote it first: use theirs.
    if ((error as { code?: string }).code === 'EEXIST') return readFileSync(path, 'utf8').trim();
    throw new MoonError('io', `cannot write ${path}: ${describeError(error)}`, { cause: error });
  }
}
