import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Ledger } from '../../src/archive/ledger.js';
import type { ArchiveRecord } from '../../src/model.js';
import { makeTempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  const temp = makeTempDir('moon-ledger-');
  dir = temp.path;
  cleanup = temp.cleanup;
});
afterEach(() => cleanup());

const record = (sessionId: string, hash: string): ArchiveRecord => ({
  session_id: sessionId,
  archive_path: `/raw/${sessionId}.jsonl`,
  content_hash: hash,
  created_at_epoch_secs: 1,
  indexed_collection: 'moon',
  projection_filtered_noise_count: null,
});

describe('Ledger', () => {
  test('one line per distinct (session, hash), also when another writer appended since this one read the file', () => {
    const path = join(dir, 'archives', 'ledger.jsonl');
    const first = new Ledger(path);
    const second = new Ledger(path);
    expect(first.has('s', 'h1')).toBe(false);
    expect(second.has('s', 'h1')).toBe(false);
    expect(first.append(record('s', 'h1'))).toBe(true);
    // `second` read the file before that line was written; it must notice it, not add a twin.
    expect(second.append(record('s', 'h1'))).toBe(false);
    expect(second.append(record('s', 'h2'))).toBe(true);
    expect(first.has('s', 'h2')).toBe(true);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as ArchiveRecord).content_hash)).toEqual(['h1', 'h2']);
  });
});
