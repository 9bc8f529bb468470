import { accessSync, constants, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { MoonPaths } from '../archive/paths.js';
import { MoonError, describeError, errnoOf } from '../errors.js';
import { tryAcquireLock } from '../lock/pid-lock.js';
import type { DistillationRecord } from '../model.js';
import { formatResidentialDay } from '../time/residential.js';
import { appendAudit, auditLogPath } from './audit.js';
import { dailyFilePath, removeDailyBlock, upsertDailyBlock } from './daily-file.js';
import { renderL1Block } from './l1-block.js';
import { type L1StateFile, l1StatePath, readL1State, writeL1State } from './l1-state.js';
import { readDistillInput } from './read-projection.js';
import { sha256 } from '../text/hash.js';

/**
 * L1 normalisation (seed 001 Distill Trigger contract): pending projections in archives/mlib/*.md become blocks
 * in the daily memory file of their last activity's residential day. No LLM. The lock is non-blocking and
 * single-run: the watcher skips its cycle when it is held (rule 3); a manual run fails (rule 5).
 */
export interface NormSettings {
  paths: MoonPaths;
  zone: string;
  /** distill.chunk_bytes resolved to bytes. */
  chunkBytes: number;
  maxChunks: number;
  nowMs: () => number;
}

export interface PendingProjection {
  path: string;
  file: string;
  sessionId: string;
  hash: string;
  /** Last activity (session end), null when the session has no times: such sessions sort first. */
  endMs: number | null;
  mtimeMs: number;
}

export interface NormResult {
  record: DistillationRecord;
  day: string;
  /** The day file the block left, when the session's last activity moved to another day. */
  movedFrom: string | null;
  omittedTurns: number;
}

export interface QueueResult {
  /** `skipped`: another L1 run holds the lock (its pid in `owner`). */
  state: 'ran' | 'skipped';
  owner?: number;
  written: NormResult[];
  failed: { path: string; reason: string }[];
  /** Pending projections left for a later cycle (over max_per_cycle). */
  remaining: number;
}

const DEFAULT_CONTEXT_TOKENS = 32_000;
const DEFAULT_MAX_CHUNKS = 4;

/** distill.chunk_bytes "auto": half the model's context, at about four bytes a token. */
export function resolveChunking(distill: { chunk_bytes: 'auto' | number; max_chunks?: number | undefined; model_context_tokens?: number | undefined }): {
  chunkBytes: number;
  maxChunks: number;
} {
  const chunkBytes = distill.chunk_bytes === 'auto' ? (distill.model_context_tokens ?? DEFAULT_CONTEXT_TOKENS) * 2 : distill.chunk_bytes;
  return { chunkBytes, maxChunks: distill.max_chunks ?? DEFAULT_MAX_CHUNKS };
}

export function l1LockPath(paths: MoonPaths): string {
  return join(paths.logs, 'moon-l1.lock');
}

/**
 * Pending projections, oldest last activity first, then by file name: the same files give the same order
 * (rule 2). Unchanged files (same mtime as when written or failed) are not opened.
 */
export function listPendingProjections(paths: MoonPaths, state: L1StateFile): PendingProjection[] {
  let files: string[];
  try {
    files = readdirSync(paths.mlib).filter((file) => file.endsWith('.md'));
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return [];
    throw error;
  }
  const pending: PendingProjection[] = [];
  for (const file of files) {
    const path = join(paths.mlib, file);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      continue;
    }
    const done = state.projections[file];
    if (done && done.mtime_ms === mtimeMs) continue;
    if (state.failed[file]?.mtime_ms === mtimeMs) continue;
    const head = readHead(path);
    if (head === null) continue;
    if (done && done.hash === head.hash) {
      done.mtime_ms = mtimeMs;
      continue;
    }
    pending.push({ path, file, sessionId: head.sessionId, hash: head.hash, endMs: head.endMs, mtimeMs });
  }
  return pending.sort((a, b) => (a.endMs ?? -Infinity) - (b.endMs ?? -Infinity) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** session_id, content_hash and the end of time_range_utc from the frontmatter, without parsing the body. */
function readHead(path: string): { sessionId: string; hash: string; endMs: number | null } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const close = text.indexOf('\n---', 4);
  const header = close < 0 ? text.slice(0, 4096) : text.slice(0, close);
  const field = (name: string): string | null => {
    const match = new RegExp(`^${name}: "((?:[^"\\\\]|\\\\.)*)"`, 'm').exec(header);
    return match ? (JSON.parse(`"${match[1]}"`) as string) : null;
  };
  const range = field('time_range_utc');
  const end = range ? Date.parse(range.split(' — ')[1] ?? '') : NaN;
  return { sessionId: field('session_id') ?? basename(path, '.md'), hash: field('content_hash') ?? '', endMs: Number.isFinite(end) ? end : null };
}

/** Write one projection's block (the lock is the caller's). Throws MoonError naming the file when it cannot be read. */
export function normalizeProjection(settings: NormSettings, state: L1StateFile, path: string): NormResult {
  let markdown: string;
  try {
    markdown = readFileSync(path, 'utf8');
  } catch (error) {
    throw new MoonError('unreadable', `cannot read projection ${path}: ${describeError(error)}`, { cause: error });
  }
  const mtimeMs = statSync(path).mtimeMs;
  const input = readDistillInput(markdown, path);
  const nowMs = settings.nowMs();
  const day = formatResidentialDay(input.endMs ?? input.startMs ?? mtimeMs, settings.zone);
  const block = renderL1Block(input, path, { zone: settings.zone, chunkBytes: settings.chunkBytes, maxChunks: settings.maxChunks });
  const file = basename(path);
  const previous = state.projections[file];
  const summaryPath = dailyFilePath(settings.paths.memory, day);
  let movedFrom: string | null = null;
  if (previous && previous.day !== day) {
    const oldPath = dailyFilePath(settings.paths.memory, previous.day);
    if (removeDailyBlock(oldPath, input.sessionId)) movedFrom = oldPath;
  }
  upsertDailyBlock(summaryPath, day, settings.zone, input.sessionId, block.text);
  state.projections[file] = {
    session_id: input.sessionId,
    hash: input.contentHash,
    day,
    mtime_ms: mtimeMs,
    written_at_epoch_secs: Math.floor(nowMs / 1000),
  };
  delete state.failed[file];
  const audit = auditLogPath(settings.paths.logs);
  const record: DistillationRecord = {
    session_id: input.sessionId,
    archive_path: input.archivePath ?? path,
    provider: 'l1-normaliser',
    summary_path: summaryPath,
    audit_log_path: audit,
    created_at_epoch_secs: Math.floor(nowMs / 1000),
  };
  appendAudit(audit, {
    event: 'l1',
    outcome: 'written',
    at_epoch_secs: record.created_at_epoch_secs,
    provider: 'l1-normaliser',
    session_id: input.sessionId,
    inputs: [{ path, sha256: sha256(markdown) }],
    output: { path: summaryPath, sha256: null },
  }, settings.paths.home);
  return { record, day, movedFrom, omittedTurns: block.omittedTurns };
}

function lockPayload(nowMs: number, command: string): { pid: number; started_at_epoch_secs: number; command: string } {
  return { pid: process.pid, started_at_epoch_secs: Math.floor(nowMs / 1000), command };
}

/**
 * The watcher's L1 step (rules 1–3): at most `maxPerCycle` pending projections, oldest first; the lock is tried
 * once, and a held lock skips the step. One unreadable projection is recorded and the queue goes on. `pause`
 * runs between files so a shared process (MCP, HTTP) is never blocked for long; `shouldStop` ends the queue
 * after the current file.
 */
export async function runNormQueue(
  settings: NormSettings,
  options: { maxPerCycle: number; pause?: () => Promise<void>; shouldStop?: () => boolean; onFile?: (result: NormResult) => void },
): Promise<QueueResult> {
  const taken = tryAcquireLock(l1LockPath(settings.paths), lockPayload(settings.nowMs(), 'watch'));
  if (!taken.acquired) {
    return { state: 'skipped', owner: 'payload' in taken.owner ? taken.owner.payload.pid : undefined, written: [], failed: [], remaining: 0 };
  }
  const statePath = l1StatePath(settings.paths.home);
  try {
    const state = readL1State(statePath);
    const pending = listPendingProjections(settings.paths, state);
    const batch = pending.slice(0, options.maxPerCycle);
    const result: QueueResult = { state: 'ran', written: [], failed: [], remaining: pending.length - batch.length };
    for (const item of batch) {
      if (options.shouldStop?.()) {
        result.remaining += batch.length - result.written.length - result.failed.length;
        break;
      }
      try {
        const written = normalizeProjection(settings, state, item.path);
        result.written.push(written);
        options.onFile?.(written);
      } catch (error) {
        const reason = describeError(error);
        result.failed.push({ path: item.path, reason });
        state.failed[item.file] = { mtime_ms: item.mtimeMs, reason };
        appendAudit(auditLogPath(settings.paths.logs), {
          event: 'l1',
          outcome: 'failed',
          at_epoch_secs: Math.floor(settings.nowMs() / 1000),
          provider: 'l1-normaliser',
          session_id: item.sessionId,
          inputs: [{ path: item.path, sha256: null }],
          reason,
        }, settings.paths.home);
      }
      // Saved after every file: a stop or a crash mid-queue loses nothing already written.
      writeL1State(statePath, state);
      await options.pause?.();
    }
    state.last_run_epoch_secs = Math.floor(settings.nowMs() / 1000);
    writeL1State(statePath, state);
    return result;
  } finally {
    taken.lock.release();
  }
}

/**
 * `moon distill --mode norm --archive PATH` (rule 5): an explicit, readable, pending projection and a free lock,
 * else an error that says which.
 */
export function runManualNorm(settings: NormSettings, projectionPath: string): NormResult {
  const path = resolve(projectionPath);
  try {
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw new MoonError('unreadable', `--archive ${projectionPath}: cannot read it (${describeError(error)})`, {
      hint: `give the path of a projection under ${settings.paths.mlib}`,
    });
  }
  if (!path.endsWith('.md') || resolve(dirname(path)) !== resolve(settings.paths.mlib)) {
    throw new MoonError('bad_usage', `--archive ${projectionPath}: not a projection of this home (expected ${join(settings.paths.mlib, '<session>.md')})`);
  }
  const taken = tryAcquireLock(l1LockPath(settings.paths), lockPayload(settings.nowMs(), 'distill --mode norm'));
  if (!taken.acquired) {
    const pid = 'payload' in taken.owner ? ` (pid ${taken.owner.payload.pid})` : '';
    throw new MoonError('busy', `L1 normalisation is already running in another process${pid}`, {
      hint: `it holds ${l1LockPath(settings.paths)}; run again when it is done`,
    });
  }
  const statePath = l1StatePath(settings.paths.home);
  try {
    const state = readL1State(statePath);
    const pending = listPendingProjections(settings.paths, state).find((item) => item.path === path);
    if (!pending) {
      throw new MoonError('not_found', `--archive ${projectionPath}: no pending projection — its L1 block is already written for its current content`, {
        hint: 'a projection becomes pending again when its session grows',
      });
    }
    const result = normalizeProjection(settings, state, path);
    state.last_run_epoch_secs = Math.floor(settings.nowMs() / 1000);
    writeL1State(statePath, state);
    return result;
  } finally {
    taken.lock.release();
  }
}
