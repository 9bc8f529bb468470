import { frameHistory, makeSafeText } from '../inject/safe-text.js';
import type { Redactor } from '../normalize/redact.js';
import { shortenSessionId } from '../browse/resolve-session-id.js';
import { describeSessionTitle } from '../browse/session-title.js';
import type { BrowsePort } from '../store/ports.js';
import type { SessionSummary, StoredSession } from '../store/types.js';
import { abbreviateZone, formatLocalIso } from '../time/format.js';
import { type Piece, fitToBudget } from './budget.js';
import { type SessionDigest, readSessionDigest } from './digest.js';
import { readMemoryLines } from '../memory/memory-lines.js';
import { type BeadsIssue, isReady, readBeads } from '../pack/beads.js';
import type { ContextPack, PackItem } from '../pack/types.js';
import { type ProjectScope, findProjectScope, normalizePath } from '../search/project-scope.js';
import type { TokenCounter } from '../text/tokens.js';

/**
 * The context session-start hands the agent: the recent work of the project the session starts in — the last
 * sessions' titles, times, outcomes and decisions, and MEMORY.md's lines about the project — within the token
 * budget, every piece made safe and the whole framed as quoted history.
 *
 * The `source` changes one thing: after `compact`, the session's own last outcome and decisions come first
 * (compaction has just replaced its history with a summary, and these are what a summary tends to lose); on
 * `startup`, `resume` and `clear` the session itself is left out (new, already in the agent's context, or
 * cleared on purpose).
 */
export interface SessionStartInput {
  cwd: string;
  sessionId: string | null;
  source: string | null;
  budget: number;
}

export interface SessionStartDeps {
  browse: BrowsePort;
  memoryFile: string;
  zone: string;
  redact: Redactor;
  counter: TokenCounter;
  homeDir: string;
  /** The projection of a session the index has no path for. */
  projectionPathFor: (sessionId: string) => string;
  /** Add the project's Beads work in progress and ready items (the planning plane of the context pack). */
  planning?: boolean;
  /**
   * The context pack for the project (seed 003 §4; `Moon.contextPack` without recall). Its task is the work item
   * in progress, else the latest session's title, else the project's name; its memory-plane items — approved
   * long-term memories, decisions and fix patterns with their evidence state, run digests, documents, the item in
   * progress in full — join the budget after the recent sessions. A failing pack adds nothing (fail-open).
   */
  pack?: (request: { task: string; cwd: string; planning: string | null; budget: number }) => Promise<ContextPack>;
}

export interface SessionStartContext {
  text: string;
  tokens: number;
  sessions: number;
}

/** Earlier sessions described (newest first); the budget usually ends the list sooner. */
export const MAX_SESSIONS = 8;
/** Decisions per earlier session (its last ones), and after compaction for the session itself. */
const DECISIONS_PER_SESSION = 5;
const OWN_DECISIONS = 8;
const CHANGED_FILES_SHOWN = 8;

const TITLE_CHARS = 160;
const OUTCOME_CHARS = 400;
const DECISION_CHARS = 240;
const MEMORY_CHARS = 300;
const PATH_CHARS = 120;
const PACK_ITEM_CHARS = 300;

export async function buildSessionStartContext(deps: SessionStartDeps, input: SessionStartInput): Promise<SessionStartContext | null> {
  if (input.budget <= 0) return null;
  const scope = await findProjectScope(deps.browse, input.cwd, deps.homeDir);
  if (!scope) return null;
  const compact = input.source === 'compact' && input.sessionId !== null;
  const own = compact ? await deps.browse.getSession(input.sessionId!) : null;
  const shown = scope.sessions.filter((session) => session.id !== input.sessionId).slice(0, MAX_SESSIONS);
  if (shown.length === 0 && own === null) return null;
  // First prompts stand in for a missing title (describeSessionTitle): read for the untitled sessions shown only.
  const untitled = shown.filter((session) => session.title === null || session.title.trim() === '').map((session) => session.id);
  const summaries = new Map((untitled.length > 0 ? await deps.browse.listSessionSummaries({ ids: untitled }) : []).map((summary) => [summary.id, summary]));
  const earlier: (StoredSession & Partial<SessionSummary>)[] = shown.map((session) => summaries.get(session.id) ?? session);
  const safe = (text: string, maxChars: number): string => makeSafeText(text, { oneLine: true, maxChars, redact: deps.redact });
  const digestOf = (session: StoredSession): SessionDigest => readSessionDigest(session.projectionPath ?? deps.projectionPathFor(session.id));

  const pieces: Piece[] = [];
  const layout = { own: false, earlier: false, memory: false };
  pieces.push({ rank: 0, order: 0, text: `Recent work in project "${safe(scope.name, 80)}" (${safe(scope.root, 200)}):` });

  if (own) {
    const digest = digestOf(own);
    const decisions = digest.decisions.slice(-OWN_DECISIONS);
    if (digest.outcome !== null || decisions.length > 0 || digest.changedFiles.length > 0) {
      layout.own = true;
      const head = 100;
      pieces.push({ rank: 0, order: head, text: `This session (${shortenSessionId(own.id)}) before compaction — its latest outcome and decisions:` });
      if (digest.outcome !== null) pieces.push({ rank: 1, order: head + 1, parent: head, text: `  Outcome: ${safe(digest.outcome, OUTCOME_CHARS)}` });
      decisions.forEach((decision, index) =>
        pieces.push({ rank: 2 + index / 100, order: head + 10 + index, parent: head, text: `  Decision: ${safe(decision, DECISION_CHARS)}` }),
      );
      const changed = describeChanged(digest.changedFiles, scope, safe);
      if (changed) pieces.push({ rank: 2.5, order: head + 90, parent: head, text: changed });
    }
  }

  earlier.forEach((session, index) => {
    const head = 1000 + index * 100;
    const digest = digestOf(session);
    // The first session's heading is what makes the output worth printing: required.
    pieces.push({ rank: index === 0 && !layout.own ? 0 : 3 + index / 100, order: head, text: describeSession(session, deps.zone, safe) });
    if (digest.outcome !== null) pieces.push({ rank: 4 + index / 100, order: head + 1, parent: head, text: `  Outcome: ${safe(digest.outcome, OUTCOME_CHARS)}` });
    digest.decisions.slice(-DECISIONS_PER_SESSION).forEach((decision, k) =>
      pieces.push({ rank: 6 + k / 10 + index / 1000, order: head + 10 + k, parent: head, text: `  Decision: ${safe(decision, DECISION_CHARS)}` }),
    );
    const changed = describeChanged(digest.changedFiles, scope, safe);
    if (changed) pieces.push({ rank: 7 + index / 100, order: head + 90, parent: head, text: changed });
  });
  layout.earlier = earlier.length > 0;

  readMemoryLines(deps.memoryFile, scope).forEach((line, index) => {
    layout.memory = true;
    pieces.push({ rank: 5 + index / 100, order: 100_000 + index, text: `- ${safe(line, MEMORY_CHARS)}` });
  });

  // Planning is best-effort: a missing or unreadable .beads/ adds nothing.
  const items = deps.planning ? workItems(scope.root) : [];
  items.forEach((issue, index) => pieces.push({ rank: 5.5 + index / 100, order: 200_000 + index, text: `- ${safe(describeWorkItem(issue), TITLE_CHARS + 40)}` }));

  let packTask: string | null = null;
  if (deps.pack) {
    const doing = items.find((issue) => issue.status === 'in_progress') ?? null;
    const latest = earlier[0];
    packTask = doing?.title ?? latest?.title ?? latest?.firstPrompt ?? scope.name;
    try {
      const pack = await deps.pack({ task: packTask, cwd: input.cwd, planning: doing?.id ?? null, budget: input.budget });
      pieces.push(...packPieces(pack, { memoryListed: layout.memory, safe }));
    } catch {
      // Fail-open: the recent sessions are worth handing over without the pack.
      packTask = null;
    }
  }

  const render = (chosen: Piece[]): string => {
    const lines: string[] = [];
    let section: 'own' | 'earlier' | 'memory' | 'planning' | 'pack' | null = null;
    for (const piece of chosen) {
      const at = piece.order < 100 ? null : piece.order < 1000 ? 'own' : piece.order < 100_000 ? 'earlier' : piece.order < 200_000 ? 'memory' : piece.order < 300_000 ? 'planning' : 'pack';
      if (at !== section && at !== null) {
        lines.push('');
        if (at === 'earlier') lines.push(layout.own ? 'Earlier sessions in this project, newest first:' : 'Sessions, newest first:');
        if (at === 'memory') lines.push(`From MEMORY.md, lines about ${safe(scope.name, 80)}:`);
        if (at === 'planning') lines.push('Work items (Beads), in progress then ready by priority — `moon context TASK --planning ID` for one in full:');
        if (at === 'pack') lines.push(`From moon's memory for "${safe(packTask ?? scope.name, TITLE_CHARS)}" — decisions and fixes with their evidence state, approved memories, digests, docs:`);
        section = at;
      }
      lines.push(piece.text);
    }
    return frameHistory(lines.join('\n'));
  };
  const fitted = await fitToBudget(pieces, render, input.budget, deps.counter);
  if (!fitted) return null;
  const sessions = fitted.pieces.filter((piece) => piece.order >= 1000 && piece.order < 100_000 && piece.order % 100 === 0).length;
  return { text: fitted.text, tokens: fitted.tokens, sessions };
}

/** `- 2026-03-01 10:00–11:20 AEDT · Fix the deploy · claude-code, 42 messages, session 1a2b3c4d` */
function describeSession(session: StoredSession & { firstPrompt?: string | null }, zone: string, safe: (text: string, max: number) => string): string {
  const title = safe(describeSessionTitle(session.title, session.firstPrompt ?? null, TITLE_CHARS), TITLE_CHARS + 2);
  const count = session.entryCount;
  return `- ${describeWhen(session.startMs, session.endMs, zone)} · ${title} · ${session.source}, ${count} message${count === 1 ? '' : 's'}, session ${shortenSessionId(session.id)}`;
}

/** `Changed: src/a.ts, docs/b.md (+3 more)`, paths inside the project shown from its root. */
function describeChanged(files: readonly string[], scope: ProjectScope, safe: (text: string, max: number) => string): string | null {
  if (files.length === 0) return null;
  const root = `${scope.root.replace(/\/$/, '')}/`;
  const shown = files.slice(0, CHANGED_FILES_SHOWN).map((file) => {
    const path = normalizePath(file);
    return safe(path.startsWith(root) ? path.slice(root.length) : path, PATH_CHARS);
  });
  const more = files.length - shown.length;
  return `  Changed: ${shown.join(', ')}${more > 0 ? ` (+${more} more)` : ''}`;
}

/** `2026-03-01 10:00–11:20 AEDT`; the end's date is repeated when it is another day. */
export function describeWhen(startMs: number | null, endMs: number | null, zone: string): string {
  if (startMs === null && endMs === null) return '(time unknown)';
  const at = (ms: number): { date: string; time: string; abbr: string } => {
    const iso = formatLocalIso(ms, zone);
    return { date: iso.slice(0, 10), time: iso.slice(11, 16), abbr: abbreviateZone(ms, zone) };
  };
  const start = at((startMs ?? endMs)!);
  if (startMs === null || endMs === null || endMs === startMs) return `${start.date} ${start.time} ${start.abbr}`;
  const end = at(endMs);
  if (start.date === end.date && start.abbr === end.abbr) return `${start.date} ${start.time}–${end.time} ${end.abbr}`;
  return `${start.date} ${start.time} ${start.abbr} – ${end.date} ${end.time} ${end.abbr}`;
}

/** In-progress Beads issues, then ready ones by priority: at most six. */
function workItems(root: string): BeadsIssue[] {
  let issues;
  try {
    issues = readBeads(root);
  } catch {
    return [];
  }
  if (!issues) return [];
  const all = [...issues.values()];
  const byPriority = (a: BeadsIssue, b: BeadsIssue): number => (a.priority ?? 2) - (b.priority ?? 2) || a.id.localeCompare(b.id);
  const doing = all.filter((issue) => issue.status === 'in_progress').sort(byPriority).slice(0, 3);
  const ready = all.filter((issue) => isReady(issue, issues)).sort(byPriority).slice(0, 6 - doing.length);
  return [...doing, ...ready];
}

/** `ID [status, P1]: title` */
function describeWorkItem(issue: BeadsIssue): string {
  return `${issue.id} [${issue.status ?? 'open'}${issue.priority !== undefined ? `, P${issue.priority}` : ''}]: ${issue.title}`;
}

/**
 * The pack's items worth adding at session start: not recalled messages (the recent sessions stand for them),
 * not MEMORY.md lines when they are listed already, work items only for the item in progress.
 */
function packPieces(pack: ContextPack, options: { memoryListed: boolean; safe: (text: string, max: number) => string }): Piece[] {
  const kept = pack.items.filter(
    (item) => item.record_kind !== 'session' && !(options.memoryListed && item.source.startsWith('MEMORY.md')) && !(item.record_kind === 'work_item' && item.provenance.role === 'ready sibling'),
  );
  return kept.map((item, index) => ({ rank: 4.5 + index / 100, order: 300_000 + index, text: `- ${labelOf(item)}${options.safe(item.text, PACK_ITEM_CHARS)} (${options.safe(item.source, PATH_CHARS)})` }));
}

/** `[approved memory] `, `[digest] ` — the kind of the item. */
function labelOf(item: PackItem): string {
  // Decisions and fix patterns say their evidence state in their text, work items their role.
  if (item.record_kind === 'decision' || item.record_kind === 'fix_pattern' || item.record_kind === 'work_item') return '';
  const kind = { long_term: 'memory', run_digest: 'digest', doc: 'doc', session: 'session' }[item.record_kind];
  return `[${item.trust_class === 'approved' ? 'approved ' : ''}${kind}] `;
}
