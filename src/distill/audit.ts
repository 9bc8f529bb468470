import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { toHomeRelative } from '../archive/home-path.js';
import { toIoError } from '../errors.js';

/**
 * `$MOON_LOGS_DIR/audit.jsonl`: one JSON line per distillation run, failed ones included (seed 001:
 * "failure path must emit an audit record"). Appended with one write, so lines from two processes never mix.
 * Input and output paths inside the home are written home-relative (`memory/2026-03-01.md`, `MEMORY.md`), so a
 * moved or copied home's audit still names its own files; paths outside it stay absolute.
 */
export interface AuditEvent {
  event: 'l1' | 'syns';
  outcome: 'written' | 'rejected' | 'failed' | 'skipped';
  at_epoch_secs: number;
  provider: string;
  model?: string;
  session_id?: string;
  inputs: { path: string; sha256: string | null }[];
  output?: { path: string; sha256: string | null };
  reason?: string;
}

export function auditLogPath(logsDir: string): string {
  return join(logsDir, 'audit.jsonl');
}

export function appendAudit(path: string, event: AuditEvent, home: string): void {
  const stored: AuditEvent = {
    ...event,
    inputs: event.inputs.map((input) => ({ ...input, path: toHomeRelative(home, input.path) })),
    ...(event.output ? { output: { ...event.output, path: toHomeRelative(home, event.output.path) } } : {}),
  };
  try {
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, `${JSON.stringify(stored)}\n`, 'utf8');
  } catch (error) {
    throw toIoError(path, error, 'append to the audit log');
  }
}
