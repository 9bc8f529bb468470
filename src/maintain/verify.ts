import { existsSync } from 'node:fs';
import { Ledger } from '../archive/ledger.js';
import type { MoonPaths } from '../archive/paths.js';
import { describeError, isMoonError } from '../errors.js';
import type { StoreEngine } from '../store/ports.js';

export interface VerifyProblem {
  /** The damaged or missing file. */
  path: string;
  problem: string;
  /** How to repair it. */
  repair: string;
}

export interface VerifyReport {
  ok: boolean;
  db: string;
  checked: { sessions: number; ledgerPairs: number; integrity: 'ok' | 'damaged' | 'unreadable' | 'missing' };
  problems: VerifyProblem[];
}

const REBUILD = 'run `moon rebuild` to rebuild the index from the raw archive';
const REINDEX = 're-index the original transcript (`moon index PATH --force`); the raw copy cannot be recovered from the index';

/**
 * Check that the index is sound and that the archive, the ledger and the index agree: SQLite's quick_check;
 * every ledger pair has its raw file and an indexed session; every indexed session's raw archive exists.
 * `openStore` may throw (a file that is not a database): that is a finding, not a crash.
 */
export async function verifyHome(
  paths: MoonPaths,
  openStore: () => Promise<StoreEngine>,
  index: { location: string; exists: boolean } = { location: paths.db, exists: existsSync(paths.db) },
): Promise<VerifyReport> {
  const problems: VerifyProblem[] = [];
  const report: VerifyReport = { ok: true, db: index.location, checked: { sessions: 0, ledgerPairs: 0, integrity: 'ok' }, problems };
  let store: StoreEngine | null = null;
  if (!index.exists) {
    report.checked.integrity = 'missing';
    problems.push({ path: index.location, problem: 'no index', repair: existsSync(paths.raw) ? REBUILD : 'run `moon index`' });
  } else {
    try {
      store = await openStore();
      const found = await store.stats.checkIntegrity();
      if (found.length > 0) {
        report.checked.integrity = 'damaged';
        problems.push({ path: index.location, problem: `damaged: ${found.join('; ')}`, repair: REBUILD });
      }
    } catch (error) {
      report.checked.integrity = 'unreadable';
      problems.push({ path: index.location, problem: `unreadable: ${isMoonError(error) ? error.message : describeError(error)}`, repair: REBUILD });
      store = null;
    }
  }
  const sessions = store && report.checked.integrity === 'ok' ? await readSessions(store, problems, index.location) : null;
  const pairs = new Ledger(paths.ledger).records();
  report.checked.ledgerPairs = pairs.length;
  // A forgotten session's earlier records stay in the ledger; its raw archive is gone on purpose.
  const forgotten = new Set(new Ledger(paths.ledger).tombstones().map((tombstone) => tombstone.session_id));
  const latest = new Map(pairs.filter((record) => !forgotten.has(record.session_id)).map((record) => [record.session_id, record]));
  for (const record of latest.values()) {
    if (!existsSync(record.archive_path)) {
      problems.push({ path: record.archive_path, problem: `raw archive of session ${record.session_id} is missing (named in the ledger)`, repair: REINDEX });
    } else if (sessions && !sessions.has(record.session_id)) {
      problems.push({ path: record.archive_path, problem: `session ${record.session_id} is in the ledger but not in the index`, repair: REBUILD });
    }
  }
  if (sessions) {
    report.checked.sessions = sessions.size;
    for (const [id, archivePath] of sessions) {
      if (archivePath && !existsSync(archivePath)) {
        problems.push({ path: archivePath, problem: `raw archive of indexed session ${id} is missing`, repair: REINDEX });
      }
    }
  }
  report.ok = problems.length === 0;
  return report;
}

async function readSessions(store: StoreEngine, problems: VerifyProblem[], db: string): Promise<Map<string, string | null> | null> {
  try {
    return new Map((await store.ingest.listSessions()).map((session) => [session.id, session.archivePath]));
  } catch (error) {
    problems.push({ path: db, problem: `cannot list sessions: ${describeError(error)}`, repair: REBUILD });
    return null;
  }
}
