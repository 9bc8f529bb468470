import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import { MoonError } from '../../src/errors.js';
import { runWriteTransaction } from '../../src/store/sqlite/write-lock.js';
import { makeTempDir } from '../helpers/cli.js';

const temp = makeTempDir('moon-write-lock-');
afterAll(() => temp.cleanup());

function openPair(name: string): { holder: Database.Database; writer: Database.Database; path: string } {
  const path = join(temp.path, name);
  const holder = new Database(path);
  holder.pragma('journal_mode = WAL');
  holder.exec('CREATE TABLE t (v INTEGER)');
  const writer = new Database(path);
  writer.pragma('busy_timeout = 50');
  return { holder, writer, path };
}

const timed = (work: () => unknown): { ms: number; error: unknown } => {
  const started = Date.now();
  try {
    work();
    return { ms: Date.now() - started, error: null };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
};

test('a shared wait bounds the waits of every write together: once spent, a write fails at once, naming the database', () => {
  const { holder, writer, path } = openPair('deadline.db');
  holder.exec('BEGIN IMMEDIATE');
  const options = { path, timeoutMs: 800, shared: { waitedMs: 0 } };
  const write = () => runWriteTransaction(writer, () => writer.exec('INSERT INTO t VALUES (1)'), options);
  const first = timed(write);
  expect(first.error).toBeInstanceOf(MoonError);
  expect((first.error as MoonError).message).toContain(`database ${path} is locked`);
  expect(first.ms).toBeGreaterThanOrEqual(700);
  // The wait spent: one attempt (the connection's 50 ms busy wait), not another 800 ms.
  const second = timed(write);
  expect(second.error).toBeInstanceOf(MoonError);
  expect(second.ms).toBeLessThan(500);
  // Without a shared wait each write waits its own timeout.
  const own = timed(() => runWriteTransaction(writer, () => writer.exec('INSERT INTO t VALUES (1)'), { path, timeoutMs: 800 }));
  expect(own.error).toBeInstanceOf(MoonError);
  expect(own.ms).toBeGreaterThanOrEqual(700);
  holder.exec('ROLLBACK');
  // The lock free, a write goes through: only waiting is bounded, never work.
  expect(options.shared.waitedMs).toBeGreaterThanOrEqual(800);
  expect(timed(write).error).toBeNull();
  expect(holder.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
  holder.close();
  writer.close();
});
