import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { errnoOf } from '../errors.js';
import type { RunRef } from '../records/envelope.js';
import { type PackCandidate, type PackRequest, type PackSubsystem, SubsystemUnavailable } from './types.js';

/**
 * Plane A, planning, read from Beads: the repository's `.beads/` folder holds its issues as JSON Lines
 * (`issues.jsonl`; older repositories `beads.jsonl`), one issue per line, the later line of an id winning. Moon
 * reads the file directly (no `bd` needed to read) and writes back only through the `bd` CLI, best-effort.
 */
export interface BeadsDependency {
  issue_id?: string;
  depends_on_id: string;
  /** `blocks`, `parent-child`, `related`, `discovered-from`, … */
  type?: string;
}

export interface BeadsIssue {
  id: string;
  title: string;
  description?: string;
  design?: string;
  acceptance_criteria?: string;
  notes?: string;
  status?: string;
  priority?: number;
  issue_type?: string;
  assignee?: string;
  created_at?: string;
  updated_at?: string;
  closed_at?: string;
  dependencies?: BeadsDependency[];
}

/** The issues of `<root>/.beads/*.jsonl`, by id; null when the folder has no `.beads/`. Bad lines are skipped. */
export function readBeads(root: string): Map<string, BeadsIssue> | null {
  const dir = join(root, '.beads');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return null;
    throw error;
  }
  const files = ['issues.jsonl', 'beads.jsonl'].filter((name) => names.includes(name));
  const issues = new Map<string, BeadsIssue>();
  for (const name of files) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isIssue(value)) continue;
      issues.set(value.id, value);
    }
  }
  return issues;
}

function isIssue(value: unknown): value is BeadsIssue {
  const record = value as Partial<BeadsIssue> | null;
  return typeof record === 'object' && record !== null && typeof record.id === 'string' && typeof record.title === 'string';
}

const OPEN = new Set(['open', 'in_progress', 'blocked', 'hooked', 'pinned']);

function dependsOn(issue: BeadsIssue, type?: string): string[] {
  return (issue.dependencies ?? []).filter((dep) => (type ? (dep.type ?? 'blocks') === type : true)).map((dep) => dep.depends_on_id);
}

/** Open, and nothing it is blocked by is still open. */
export function isReady(issue: BeadsIssue, issues: Map<string, BeadsIssue>): boolean {
  if ((issue.status ?? 'open') !== 'open') return false;
  return dependsOn(issue, 'blocks').every((id) => {
    const blocker = issues.get(id);
    return !blocker || !OPEN.has(blocker.status ?? 'open');
  });
}

/**
 * What planning contributes for a work item: the item (with its acceptance criteria and notes), what it depends
 * on, and its ready siblings (children of the same parent, else ready issues that share one of its blockers).
 */
export function planningCandidates(issues: Map<string, BeadsIssue>, ref: string, file: string): PackCandidate[] {
  const issue = issues.get(ref);
  if (!issue) throw new SubsystemUnavailable('missing', `no Beads issue ${ref} in ${file}`);
  const out: PackCandidate[] = [describe(issue, 'work item', file)];
  for (const id of dependsOn(issue)) {
    const dep = issues.get(id);
    if (dep) out.push(describe(dep, `dependency (${(issue.dependencies ?? []).find((d) => d.depends_on_id === id)?.type ?? 'blocks'})`, file));
  }
  const parents = new Set(dependsOn(issue, 'parent-child'));
  const blockers = new Set(dependsOn(issue, 'blocks'));
  for (const other of issues.values()) {
    if (other.id === issue.id || !isReady(other, issues)) continue;
    const deps = dependsOn(other);
    const sibling = parents.size > 0 ? dependsOn(other, 'parent-child').some((id) => parents.has(id)) : deps.some((id) => blockers.has(id));
    if (sibling && !dependsOn(issue).includes(other.id)) out.push(describe(other, 'ready sibling', file));
  }
  return out;
}

function describe(issue: BeadsIssue, role: string, file: string): PackCandidate {
  const lines = [`${role} ${issue.id} [${issue.status ?? 'open'}${issue.priority !== undefined ? `, P${issue.priority}` : ''}]: ${issue.title}`];
  if (role === 'work item') {
    if (issue.description) lines.push(`Description: ${issue.description}`);
    if (issue.acceptance_criteria) lines.push(`Acceptance criteria: ${issue.acceptance_criteria}`);
    if (issue.design) lines.push(`Design: ${issue.design}`);
    if (issue.notes) lines.push(`Notes: ${issue.notes}`);
  }
  return {
    text: lines.join('\n'),
    source: `${file}#${issue.id}`,
    record_kind: 'work_item',
    trust_class: 'raw',
    provenance: { beads_id: issue.id, file, role, status: issue.status ?? 'open' },
    recency: issue.updated_at ?? issue.created_at ?? null,
  };
}

/** The planning subsystem: reads `<root>/.beads/` at each gather (the file is small; it changes under git). */
export function beadsSubsystem(deadlineMs = 200): PackSubsystem {
  return {
    name: 'planning',
    deadlineMs,
    async gather(request: PackRequest) {
      if (!request.planning) throw new SubsystemUnavailable('off', 'no planning reference was given (--planning REF)');
      if (!request.root) throw new SubsystemUnavailable('missing', 'the namespace has no folder to read .beads/ from');
      const issues = readBeads(request.root);
      if (!issues) throw new SubsystemUnavailable('missing', `no .beads/ in ${request.root}`);
      return planningCandidates(issues, request.planning, '.beads/issues.jsonl');
    },
  };
}

/** Runs `bd` with arguments in a folder: resolves with its exit code and output, never rejects. */
export type BdRunner = (args: readonly string[], cwd: string) => Promise<{ code: number; stdout: string; stderr: string }>;

export const runBd: BdRunner = (args, cwd) =>
  new Promise((resolve) => {
    execFile('bd', [...args], { cwd, timeout: 10_000, env: { ...process.env, BEADS_NO_DAEMON: '1' } }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 127) : 0;
      resolve({ code, stdout: String(stdout), stderr: error && !stderr ? error.message : String(stderr) });
    });
  });

export interface WritebackResult {
  ok: boolean;
  /** What was run, and what went wrong when it did. */
  detail: string;
}

/**
 * Planning writeback (seed 003 §5.1, §5.4) through the `bd` CLI: claim a work item for a run, close it, file a
 * follow-up discovered on the way. Best-effort: a missing `bd` or a failing command is logged and reported,
 * never raised.
 */
export interface BeadsWriteback {
  claim(id: string, run: RunRef): Promise<WritebackResult>;
  close(id: string, reason: string): Promise<WritebackResult>;
  createFollowUp(from: string, title: string, description?: string): Promise<WritebackResult>;
}

export function beadsWriteback(root: string, options: { runner?: BdRunner; log?: (message: string) => void } = {}): BeadsWriteback {
  const runner = options.runner ?? runBd;
  const log = options.log ?? (() => undefined);
  const attempt = async (args: string[]): Promise<WritebackResult> => {
    try {
      const result = await runner(args, root);
      const detail = `bd ${args.join(' ')}${result.code === 0 ? '' : ` → exit ${result.code}: ${result.stderr.trim().slice(0, 300)}`}`;
      if (result.code !== 0) log(`beads writeback failed: ${detail}`);
      return { ok: result.code === 0, detail };
    } catch (error) {
      const detail = `bd ${args.join(' ')} → ${(error as Error).message}`;
      log(`beads writeback failed: ${detail}`);
      return { ok: false, detail };
    }
  };
  return {
    claim: (id: string, run: RunRef) => attempt(['update', id, '--status', 'in_progress', '--notes', `claimed by moon run ${formatRun(run)}`]),
    close: (id: string, reason: string) => attempt(['close', id, '--reason', reason]),
    createFollowUp: (from: string, title: string, description = '') =>
      attempt(['create', title, ...(description ? ['--description', description] : []), '--deps', `discovered-from:${from}`]),
  };
}

function formatRun(run: RunRef): string {
  return [`session ${run.session_id}`, ...(run.commits.length > 0 ? [`commits ${run.commits.join(',')}`] : [])].join(', ');
}
