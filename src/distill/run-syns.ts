import { join, resolve } from 'node:path';
import type { MoonPaths } from '../archive/paths.js';
import { removeHomeFile } from '../archive/remove-in-home.js';
import { writeFileAtomic } from '../archive/write.js';
import { MoonError, describeError } from '../errors.js';
import { sha256 } from '../text/hash.js';
import type { Provider } from '../llm/provider.js';
import { tryAcquireLock } from '../lock/pid-lock.js';
import type { DistillationRecord } from '../model.js';
import { appendAudit, auditLogPath } from './audit.js';
import { readTextIfExists } from './daily-file.js';
import { MEMORY_MAX_LINES, MEMORY_SECTIONS, checkMemoryText } from './memory-file.js';
import { type DailySource, synthesizeLocally } from './synthesize-local.js';

/**
 * L2 synthesis (seed 001 rules 6–8): daily memory files plus the current MEMORY.md become a new MEMORY.md of
 * exactly three sections. The answer is checked before anything is written; the rewrite is atomic, under a
 * lock, and audited — every run, failed and rejected ones too. If the audit line cannot be written, the
 * rewrite is undone: a MEMORY.md whose change is not in the audit log would be a change nobody can trace.
 */
export interface SynsSettings {
  paths: MoonPaths;
  provider: Provider;
  nowMs: () => number;
  /** Prompt budget for a generative provider (distill.model_context_tokens); the day is shortened to fit. */
  contextTokens: number;
}

export type SynsOutcome = 'written' | 'rejected' | 'failed';

export interface SynsResult {
  outcome: SynsOutcome;
  record: DistillationRecord;
  /** Why the answer was rejected or the run failed. */
  reason?: string;
  inputs: string[];
}

export function synsLockPath(paths: MoonPaths): string {
  return join(paths.logs, 'moon-syns.lock');
}


export async function runSyns(settings: SynsSettings, dailyFiles: readonly string[]): Promise<SynsResult> {
  const { paths } = settings;
  if (dailyFiles.length === 0) throw new MoonError('bad_usage', 'L2 synthesis needs at least one daily memory file');
  const days: DailySource[] = dailyFiles.map((file) => {
    const path = resolve(file);
    const text = readTextIfExists(path);
    if (text === null) throw new MoonError('not_found', `daily memory file ${path} does not exist`, { hint: 'L1 writes it: run `moon watch --once` or `moon distill --mode norm --archive PATH`' });
    return { path, text };
  });
  const taken = tryAcquireLock(synsLockPath(paths), { pid: process.pid, started_at_epoch_secs: Math.floor(settings.nowMs() / 1000), command: 'distill --mode syns' });
  if (!taken.acquired) {
    const pid = 'payload' in taken.owner ? ` (pid ${taken.owner.payload.pid})` : '';
    throw new MoonError('busy', `L2 synthesis is already running in another process${pid}`, { hint: `it holds ${synsLockPath(paths)}` });
  }
  try {
    return await synthesizeUnderLock(settings, days);
  } finally {
    taken.lock.release();
  }
}

async function synthesizeUnderLock(settings: SynsSettings, days: readonly DailySource[]): Promise<SynsResult> {
  const { paths, provider } = settings;
  const audit = auditLogPath(paths.logs);
  const old = readTextIfExists(paths.memoryFile);
  const nowSecs = Math.floor(settings.nowMs() / 1000);
  const first = days[0]!;
  const record: DistillationRecord = {
    session_id: `daily:${/(\d{4}-\d{2}-\d{2})\.md$/.exec(first.path)?.[1] ?? first.path}`,
    archive_path: first.path,
    provider: provider.name,
    summary_path: paths.memoryFile,
    audit_log_path: audit,
    created_at_epoch_secs: nowSecs,
  };
  const inputs = [...days.map((day) => ({ path: day.path, sha256: sha256(day.text) })), { path: paths.memoryFile, sha256: old === null ? null : sha256(old) }];
  const base = { event: 'syns' as const, at_epoch_secs: nowSecs, provider: provider.name, model: provider.model, inputs };
  const current = old === null ? null : checkMemoryText(old);
  let answer: string;
  try {
    answer = provider.generative
      ? await provider.complete(buildPrompt(days, old, settings.contextTokens), { maxTokens: 4_000, system: SYSTEM })
      : synthesizeLocally(days, current?.ok ? current.sections : null);
  } catch (error) {
    const reason = describeError(error);
    appendAudit(audit, { ...base, outcome: 'failed', reason }, paths.home);
    return { outcome: 'failed', record, reason, inputs: days.map((day) => day.path) };
  }
  const checked = checkMemoryText(answer);
  if (!checked.ok) {
    appendAudit(audit, { ...base, outcome: 'rejected', reason: checked.reason, output: { path: paths.memoryFile, sha256: sha256(answer) } }, paths.home);
    return { outcome: 'rejected', record, reason: checked.reason, inputs: days.map((day) => day.path) };
  }
  writeFileAtomic(paths.memoryFile, checked.text);
  try {
    appendAudit(audit, { ...base, outcome: 'written', output: { path: paths.memoryFile, sha256: sha256(checked.text) } }, paths.home);
  } catch (error) {
    if (old === null) removeHomeFile(paths.home, paths.memoryFile);
    else writeFileAtomic(paths.memoryFile, old);
    throw new MoonError('io', `MEMORY.md was rolled back: the audit log could not be written (${describeError(error)})`, { cause: error });
  }
  return { outcome: 'written', record, inputs: days.map((day) => day.path) };
}

const SYSTEM = 'You maintain MEMORY.md, the durable memory of a software developer\'s work with AI coding agents. You answer with the new MEMORY.md and nothing else.';

/** The day without its conversations when the whole would not fit the model's context (about four bytes a token). */
function fitDays(days: readonly DailySource[], budgetBytes: number): string {
  const whole = days.map((day) => `### ${day.path}\n${day.text}`).join('\n\n');
  if (Buffer.byteLength(whole) <= budgetBytes) return whole;
  const summaries = days.map((day) => `### ${day.path}\n${day.text.replace(/### Conversation\n[\s\S]*?(?=<!-- MOON_SESSION_END)/g, '')}`).join('\n\n');
  return Buffer.byteLength(summaries) <= budgetBytes ? summaries : summaries.slice(0, budgetBytes);
}

export function buildPrompt(days: readonly DailySource[], current: string | null, contextTokens: number): string {
  const budgetBytes = Math.max(4_000, Math.floor(contextTokens * 4 * 0.6));
  return [
    'Rewrite MEMORY.md from its current text and the day memory below.',
    `Answer with markdown only: a "# MEMORY" title, then exactly these three sections in this order: ${MEMORY_SECTIONS.map((title) => `"## ${title}"`).join(', ')}.`,
    `Items are "- " bullets; at most ${MEMORY_MAX_LINES} lines in all. Keep what is still true, add what the day teaches, drop what the day shows is no longer true.`,
    'End each item with its provenance in parentheses: (YYYY-MM-DD, session <first 8 characters of the session id>).',
    'Lessons Learned: causes found, fixes that worked, pitfalls. User Preferences: how the user wants things done. Durable Decisions & Context: decisions and the state of each project.',
    '',
    'CURRENT MEMORY.md:',
    '<<<',
    current ?? '(none yet)',
    '>>>',
    '',
    'DAY MEMORY:',
    '<<<',
    fitDays(days, budgetBytes),
    '>>>',
  ].join('\n');
}
