#!/usr/bin/env node
// The physical floor of indexing, for the ingest benchmark to stand beside: one Node process that reads every
// line of every transcript, JSON.parses it, pulls out the message texts (every string under `message` or
// `payload`) and inserts them into one better-sqlite3 FTS5 table, one transaction per file. No redaction, no
// projection, no session model — what any indexer of these files must at least do.
//
//   node bench/floor.mjs DIR [--db PATH]      prints JSON: { files, lines, bytes, texts, wallMs, cpuMs, mbPerS }
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

function listJsonl(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listJsonl(path));
    else if (entry.name.endsWith('.jsonl')) out.push(path);
  }
  return out.sort();
}

function collectStrings(value, out, depth = 0) {
  if (depth > 32) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out, depth + 1);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) collectStrings(item, out, depth + 1);
}

/** Index every transcript under `dir` the least an indexer can; returns the measurement. */
export function measureFloor(dir, dbPath = join(tmpdir(), `moon-floor-${process.pid}.db`)) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const startedCpu = process.cpuUsage();
  const started = performance.now();
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE VIRTUAL TABLE texts USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2')`);
  const insert = db.prepare('INSERT INTO texts (text) VALUES (?)');
  let lines = 0;
  let bytes = 0;
  let texts = 0;
  const files = listJsonl(dir);
  for (const file of files) {
    const buffer = readFileSync(file);
    bytes += buffer.length;
    const rows = [];
    for (const line of buffer.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines += 1;
      let record;
      try {
        record = JSON.parse(line);
      } catch {
        continue;
      }
      const strings = [];
      collectStrings(record?.message ?? record?.payload, strings);
      if (strings.length > 0) rows.push(strings.join('\n'));
    }
    db.transaction(() => {
      for (const text of rows) insert.run(text);
    })();
    texts += rows.length;
  }
  db.close();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(startedCpu);
  const size = ['', '-wal'].reduce((sum, suffix) => {
    try {
      return sum + statSync(dbPath + suffix).size;
    } catch {
      return sum;
    }
  }, 0);
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  return { files: files.length, lines, bytes, texts, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, mbPerS: bytes / 1e6 / (wallMs / 1000), dbBytes: size };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node bench/floor.mjs DIR [--db PATH]');
    process.exit(2);
  }
  const at = process.argv.indexOf('--db');
  console.log(JSON.stringify(measureFloor(dir, at > 0 ? process.argv[at + 1] : undefined)));
}
