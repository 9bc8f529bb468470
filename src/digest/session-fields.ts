import type { CompactionAnchor, Entry, Session } from '../model.js';
import { buildHeuristicDigest, isCommand } from './heuristic.js';
import { extractFixEvents } from '../fixes/extract.js';
import type { SessionField, SessionFieldDoc } from '../store/types.js';
import { toFieldDoc } from '../fields/field-doc.js';
import { expandIdentifiers } from '../text/identifiers.js';
import { sliceHead } from '../text/limits.js';

/**
 * The fields a session is summarised by — the words a person uses later for the session as a whole, which its
 * messages may hold only scattered ("the worktree experiment", "the slow dashboard query"). Made at index time
 * from what the session itself holds, with moon's own rules: no model, no network, no digest step. The same
 * session always gives the same fields.
 *
 * - title: the session's own title (Claude Code summary / custom title, Codex thread name, a Puffin story) and, for
 *   a subagent, the task it was given.
 * - summary: the harness's own summaries — what a compaction left behind (Claude Code's continuation summary, pi's
 *   compaction summary) and the recaps written while the user was away.
 * - digest: the heuristic run digest (digest/heuristic.ts): the goal, the files written and commands run, the
 *   decisions stated, the failures and what fixed them, the outcome.
 * - files: the files it read or changed, with their names split into words (`interactive-mode.ts` → interactive mode).
 * - errors: the errors it ran into, as printed.
 *
 * Bump FIELDS_VERSION (fields/field-doc.ts) when what a field holds changes: every session's fields are made again
 * by the next index run.
 */

/** Characters each field keeps at most (its head): bounded whatever the session's size. */
export const FIELD_CHARS: Readonly<Record<SessionField, number>> = { title: 600, summary: 12_000, digest: 8_000, files: 6_000, errors: 3_000 };

/** A compaction note shorter than this is a marker ("Conversation compacted (auto, 160000)"), not a summary. */
const SUMMARY_MIN_CHARS = 80;
const SUMMARY_EACH_CHARS = 4_000;
const MAX_FILES = 200;
const MAX_ERRORS = 40;

export interface FieldInput {
  session: Pick<Session, 'id' | 'title' | 'agentDescription' | 'cwd'>;
  /** The session's entries in session order. */
  entries: readonly Entry[];
  anchors: readonly CompactionAnchor[];
}

export function buildSessionFields(input: FieldInput): Record<SessionField, string> {
  const { session, entries, anchors } = input;
  return {
    title: sliceHead([session.title, session.agentDescription].filter(isText).join('\n'), FIELD_CHARS.title),
    summary: sliceHead(listSummaries(entries, anchors).join('\n\n'), FIELD_CHARS.summary),
    digest: sliceHead(describeDigest(input), FIELD_CHARS.digest),
    files: sliceHead(listFiles(entries, session.cwd).join('\n'), FIELD_CHARS.files),
    errors: sliceHead(listErrors(session.id, entries).join('\n'), FIELD_CHARS.errors),
  };
}

/** A session's fields, made and counted. */
export function buildFieldDoc(input: FieldInput): SessionFieldDoc {
  return toFieldDoc(input.session.id, buildSessionFields(input));
}

function listSummaries(entries: readonly Entry[], anchors: readonly CompactionAnchor[]): string[] {
  const notes = anchors.map((anchor) => anchor.note.trim()).filter((note) => note.length >= SUMMARY_MIN_CHARS);
  const recaps = entries.filter((entry) => entry.kind === 'recap').map((entry) => entry.text.trim());
  return [...notes, ...recaps].filter(isText).map((text) => sliceHead(text, SUMMARY_EACH_CHARS));
}

function describeDigest(input: FieldInput): string {
  const { body } = buildHeuristicDigest({ session: input.session, entries: input.entries });
  return [
    body.intent?.text,
    ...body.decisions.map((line) => line.text),
    ...body.gotchas.map((line) => line.text),
    ...body.changes.map((line) => line.text),
    ...body.next_steps.map((line) => line.text),
    body.outcome.text,
  ]
    .filter(isText)
    .join('\n');
}

/** Paths the session's tools acted on (not commands, not URLs), relative to its folder, each once, in order. */
function listFiles(entries: readonly Entry[], cwd: string | null): string[] {
  const files = new Set<string>();
  for (const entry of entries) {
    if (entry.role !== 'tool' || entry.toolTarget === null || isCommand(entry)) continue;
    const target = entry.toolTarget.trim();
    if (!isPath(target)) continue;
    files.add(cwd && target.startsWith(`${cwd}/`) ? target.slice(cwd.length + 1) : target);
    if (files.size >= MAX_FILES) break;
  }
  return [...files].map((file) => `${file} ${expandIdentifiers(file)}`);
}

function isPath(target: string): boolean {
  return target.length <= 400 && !/\s/.test(target) && !target.includes('://') && (target.includes('/') || /\.[A-Za-z][\w]{0,7}$/.test(target));
}

/** The errors it ran into, as the fixes plane reads them (fixes/extract.ts), each once. */
function listErrors(sessionId: string, entries: readonly Entry[]): string[] {
  const errors = new Set<string>();
  const events = extractFixEvents(sessionId, null, { namespace_id: '', repo: null, root: null }, entries, () => null);
  for (const event of events) {
    if (event.kind !== 'error') continue;
    const text = (event.text ?? event.signature ?? '').trim();
    if (text !== '') errors.add(text);
    if (errors.size >= MAX_ERRORS) break;
  }
  return [...errors];
}

function isText(value: string | null | undefined): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
