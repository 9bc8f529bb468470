import type { CompactionAnchor, Entry } from '../model.js';
import { extractDecisions } from '../normalize/decisions.js';
import { extractKeywords, MAX_KEYWORDS } from '../normalize/keywords.js';
import { describeOutcomeHead, summarizeOutcome } from '../normalize/outcome.js';
import { inferTopics } from '../normalize/topics.js';
import { findLongestBacktickRun } from '../text/backticks.js';
import { isIndexCut } from '../text/limits.js';
import { describePatchFiles, readPatchCall, renderDiffBlock } from '../normalize/diff.js';
import type { SessionDoc } from './doc.js';
import { computeTemporalMarkers, type TemporalMarker } from './temporal-markers.js';
import {
  formatLocalIso,
  formatLocalTime,
  formatUtcIso,
  formatUtcTime,
  formatZoneLabel,
  resolveZone,
  toLocalParts,
  toUtcParts,
} from '../time/format.js';

/**
 * v2 projection renderer (seed 000 §3.1). Pure: the same SessionDoc always yields the same bytes — no wall clock,
 * entries and anchors re-sorted here, every list ordered explicitly.
 */

export const PROJECTION_VERSION = 2;
/** Seed 000 §3.2 size limits, in characters (code points). */
export const GENERAL_LIMIT = 512;
export const TOOL_RESULT_LIMIT = 1024;
export const SUMMARY_LIMIT = 160;
const NONE = '- (none)';
const UNKNOWN_TIME = '—';

/**
 * Compaction events, not anchor records: Claude Code writes a compact_boundary and then an isCompactSummary
 * record pointing back at it — two anchors, one compaction. An anchor whose origin is another anchor continues it.
 */
export function countCompactions(anchors: readonly CompactionAnchor[]): number {
  const ids = new Set(anchors.map((anchor) => anchor.id));
  return anchors.filter((anchor) => anchor.originId === null || !ids.has(anchor.originId)).length;
}

/** One line: newlines, tabs and control characters become single spaces. */
export function flattenText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/** True when flattenText would leave something: found at the first visible character, without copying the text. */
export function hasVisibleText(text: string): boolean {
  return /[^\s\u0000-\u001f\u007f\u2028\u2029]/.test(text);
}

/** Flatten, then cut to at most `max` characters including the trailing `…`. Counts code points, never splits a pair. */
export function truncateText(text: string, max: number): string {
  // Tool output can be megabytes; only its start can appear. A window whose flattened form is already longer
  // than `max` gives exactly the same result as the whole text, so flatten the window when that holds.
  const windowSize = max * 8 + 64;
  if (text.length > windowSize) {
    const chars = Array.from(flattenText(text.slice(0, windowSize)));
    if (chars.length > max) return `${chars.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
  }
  const flat = flattenText(text);
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
}

/** Inline code whose fence is longer than any backtick run inside, so backticks in the text cannot close it. */
export function formatInlineCode(text: string): string {
  const longest = findLongestBacktickRun(text);
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * ` [1.1 MB message; the raw archive keeps all of it]` after a message larger than the index holds
 * (src/text/limits.ts): the `…` shows where the projection cut it, this says how much was left out and where
 * the whole of it is.
 */
function describeCut(text: string): string {
  return isIndexCut(text) ? ` [${formatSize(text.length)} message; the raw archive keeps all of it]` : '';
}

/** Characters as a size a reader takes in at a glance: `580 KB`, `1.1 MB` (decimal units, one decimal above 1 MB). */
function formatSize(chars: number): string {
  if (chars < 1_000_000) return `${Math.round(chars / 1000)} KB`;
  return `${(chars / 1_000_000).toFixed(1)} MB`;
}

/** Table cells split on `|`; GFM accepts `\|` everywhere, including inside code spans. */
function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** YAML double-quoted scalar. JSON string syntax is valid YAML; line/paragraph separators are escaped too. */
function quoteYaml(value: string): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function formatYamlValue(value: string | number | null | readonly string[]): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return quoteYaml(value);
  return `[${value.map(quoteYaml).join(', ')}]`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortEntries(entries: readonly Entry[]): Entry[] {
  return [...entries].sort((a, b) => a.seq - b.seq || compareText(a.key, b.key) || compareText(a.id, b.id));
}

function sortAnchors(anchors: readonly CompactionAnchor[]): CompactionAnchor[] {
  return [...anchors].sort((a, b) => a.line - b.line || compareText(a.id, b.id));
}

/** Unique tool names in first-use (seq) order: reads as the session's story and is stable for a given session. */
export function listToolNames(entries: readonly Entry[]): string[] {
  return [...groupToolEntries(entries).keys()];
}

/** Tool entries by name, names in first-use order; one pass, so a session of many distinct tools stays linear. */
function groupToolEntries(entries: readonly Entry[]): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>();
  for (const entry of entries) {
    if (entry.role !== 'tool') continue;
    const name = describeToolName(entry);
    const group = groups.get(name);
    if (group) group.push(entry);
    else groups.set(name, [entry]);
  }
  return groups;
}

function describeToolName(entry: Entry): string {
  return flattenText(entry.toolName ?? '') || 'unknown';
}

/** Session span from the session's own bounds and every entry timestamp; null when nothing is timed. */
function computeRange(doc: SessionDoc, entries: readonly Entry[]): { startMs: number; endMs: number } | null {
  const instants = [doc.session.startMs, doc.session.endMs, ...entries.map((e) => e.ts)].filter(
    (t): t is number => t !== null && Number.isFinite(t),
  );
  const first = instants[0];
  if (first === undefined) return null;
  // reduce, not Math.min(...): spreading a very long session's timestamps can exceed the argument limit.
  return { startMs: instants.reduce((a, b) => Math.min(a, b), first), endMs: instants.reduce((a, b) => Math.max(a, b), first) };
}

function formatStamp(ts: number | null): string {
  return ts === null ? '[time unknown]' : `[${formatUtcTime(ts)}]`;
}

/** The readable form of a tool call, at most `max` characters: the files a patch touches, else its text, else target, else name. */
function describeToolCall(entry: Entry, max: number): string {
  const patch = readPatchCall(entry.text);
  if (patch) return truncateText(describePatchFiles(patch), max);
  return truncateText(entry.text, max) || truncateText(entry.toolTarget ?? '', max) || truncateText(describeToolName(entry), max);
}

/** The Timeline's role column: reasoning and recaps are told apart from replies and system prompts. */
function describeRole(entry: Entry): string {
  if (entry.role === 'tool') return `tool:${describeToolName(entry)}`;
  return entry.kind ?? entry.role;
}

function renderFrontmatter(
  doc: SessionDoc,
  zone: string,
  range: { startMs: number; endMs: number } | null,
  fields: { toolNames: string[]; keywords: string[]; topics: string[]; messageCount: number },
): string[] {
  const { session } = doc;
  const startLabel = range ? formatZoneLabel(range.startMs, zone) : null;
  const endLabel = range ? formatZoneLabel(range.endMs, zone) : null;
  const rows: [string, string | number | null | readonly string[]][] = [
    ['moon_archive_projection', PROJECTION_VERSION],
    ['session_id', session.id],
    ['source', session.source],
    ['project', session.project],
    ['cwd', session.cwd],
    ['branch', session.branch],
    ['title', session.title === null ? null : truncateText(session.title, GENERAL_LIMIT) || null],
    // Subagent facts appear only on subagent sessions, like the parent they belong to.
    ...optionalRow('parent_session_id', session.parentSessionId),
    ...optionalRow('agent_type', session.agentType),
    ...optionalRow('agent_description', session.agentDescription),
    ['archive_jsonl_path', doc.archivePath],
    ['content_hash', doc.contentHash],
    // Session end, not "now": the file must be byte-identical when re-rendered.
    ['created_at_epoch_secs', range ? Math.floor(range.endMs / 1000) : 0],
    ['time_range_utc', range ? `${formatUtcIso(range.startMs)} — ${formatUtcIso(range.endMs)}` : null],
    ['time_range_local', range ? `${formatLocalIso(range.startMs, zone)} — ${formatLocalIso(range.endMs, zone)}` : null],
    // A session crossing a DST change names both labels.
    ['local_timezone', startLabel === endLabel ? startLabel : `${startLabel} — ${endLabel}`],
    ['residential_timezone', zone],
    ['message_count', fields.messageCount],
    ['tool_calls', fields.toolNames],
    ['keywords', fields.keywords],
    ['topics', fields.topics],
    ['compactions', countCompactions(doc.anchors)],
    ['projection_filtered_noise_count', doc.filteredNoiseCount],
  ];
  return ['---', ...rows.map(([key, value]) => `${key}: ${formatYamlValue(value)}`), '---'];
}

function optionalRow(key: string, value: string | null): [string, string][] {
  const flat = value === null ? '' : truncateText(value, GENERAL_LIMIT);
  return flat === '' ? [] : [[key, flat]];
}

/** A session's own title names its projection; untitled sessions keep the generic heading. */
function renderHeading(doc: SessionDoc): string {
  const id = flattenText(doc.session.id);
  const title = doc.session.title === null ? '' : truncateText(doc.session.title, SUMMARY_LIMIT);
  return title === '' ? `# Archive Projection — ${id}` : `# ${title} — ${id}`;
}

/** `2026-04-04 23:40 AEDT – 2026-04-05 02:20 AEST (2026-04-04 12:40–15:20 UTC)`; compact when on one date. */
function describeSessionRange(range: { startMs: number; endMs: number } | null, zone: string): string {
  if (!range) return 'time unknown';
  const s = toLocalParts(range.startMs, zone);
  const e = toLocalParts(range.endMs, zone);
  const local =
    s.date === e.date && s.abbr === e.abbr
      ? `${s.date} ${s.time}–${e.time} ${s.abbr}`
      : `${s.date} ${s.time} ${s.abbr} – ${e.date} ${e.time} ${e.abbr}`;
  const us = toUtcParts(range.startMs);
  const ue = toUtcParts(range.endMs);
  const utc = us.date === ue.date ? `${us.date} ${us.time}–${ue.time} UTC` : `${us.date} ${us.time} – ${ue.date} ${ue.time} UTC`;
  return `${local} (${utc})`;
}

function summarizeEntry(entry: Entry): string {
  if (entry.role === 'tool') {
    const call = formatInlineCode(describeToolCall(entry, 80));
    const budget = Math.max(10, SUMMARY_LIMIT - Array.from(call).length - 3);
    return `${call} → ${summarizeOutcome(entry, budget)}`;
  }
  if (!hasVisibleText(entry.text)) return '(empty)';
  return entry.role === 'user' ? `"${truncateText(entry.text, SUMMARY_LIMIT - 2)}"` : truncateText(entry.text, SUMMARY_LIMIT);
}

function renderTimelineRow(cells: string[]): string {
  return `| ${cells.map(escapeCell).join(' | ')} |`;
}

function renderMarkerRow(marker: TemporalMarker, zone: string): string {
  return renderTimelineRow(['', formatUtcTime(marker.ts), formatLocalTime(marker.ts, zone), 'marker', marker.text]);
}

function renderTimeline(entries: readonly Entry[], markers: readonly TemporalMarker[], zone: string): string[] {
  if (entries.length === 0) return ['## Timeline', '', NONE];
  const lines = ['## Timeline', '', '| # | Time (UTC) | Time (Local) | Role | Summary |', '|---|---|---|---|---|'];
  // Markers by the entry they precede, in their own order: one lookup per entry, not a scan of every marker.
  const before = new Map<number, TemporalMarker[]>();
  for (const marker of markers) {
    if (marker.beforeSeq === null) continue;
    const list = before.get(marker.beforeSeq);
    if (list) list.push(marker);
    else before.set(marker.beforeSeq, [marker]);
  }
  entries.forEach((entry, index) => {
    for (const marker of before.get(entry.seq) ?? []) lines.push(renderMarkerRow(marker, zone));
    const role = describeRole(entry);
    const utc = entry.ts === null ? UNKNOWN_TIME : formatUtcTime(entry.ts);
    const local = entry.ts === null ? UNKNOWN_TIME : formatLocalTime(entry.ts, zone);
    lines.push(renderTimelineRow([String(index + 1), utc, local, role, summarizeEntry(entry)]));
  });
  for (const marker of markers) if (marker.beforeSeq === null) lines.push(renderMarkerRow(marker, zone));
  return lines;
}

/** Replies only: reasoning is the model thinking aloud and a recap is the harness's, neither is a response. */
function renderConversationList(entries: readonly Entry[], role: 'user' | 'assistant'): string[] {
  const items = entries
    .filter((e) => e.role === role && e.kind === null && hasVisibleText(e.text))
    .map((e) => {
      const text = truncateText(e.text, GENERAL_LIMIT);
      return `- ${formatStamp(e.ts)} ${role === 'user' ? `"${text}"` : text}${describeCut(e.text)}`;
    });
  return items.length > 0 ? items : [NONE];
}

/**
 * `- [18:39:30Z] **high** \`npm test\` → exit 0 in 14.8 s: ✓ test/cart.test.ts …`: call and result as one
 * transaction (seed 000 §3.6), the provider's stated outcome first. A patch's changed lines follow as a diff.
 */
function renderTransaction(entry: Entry): string[] {
  const patch = readPatchCall(entry.text);
  const call = formatInlineCode(patch ? truncateText(describePatchFiles(patch), GENERAL_LIMIT) : describeToolCall(entry, GENERAL_LIMIT));
  const head = describeOutcomeHead(entry);
  const text = entry.result === null ? null : hasVisibleText(entry.result) ? `${truncateText(entry.result, TOOL_RESULT_LIMIT)}${describeCut(entry.result)}` : '';
  const result =
    head === null
      ? text === null ? '(no result)' : text === '' ? '(empty result)' : text
      : text === null || text === '' ? head : `${head}: ${text}`;
  const line = `- ${formatStamp(entry.ts)} **${entry.priority ?? 'normal'}** ${call} → ${result}`;
  return patch ? [line, ...renderDiffBlock(patch)] : [line];
}

function renderToolActivity(entries: readonly Entry[]): string[] {
  const lines = ['## Tool Activity'];
  const groups = groupToolEntries(entries);
  if (groups.size === 0) return [...lines, '', NONE];
  for (const [name, group] of groups) {
    lines.push('', `### ${name}`);
    for (const entry of group) for (const line of renderTransaction(entry)) lines.push(line);
  }
  return lines;
}

function renderCompactionNotes(anchors: readonly CompactionAnchor[]): string[] {
  if (anchors.length === 0) return [NONE];
  return anchors.map((a) => {
    const note = truncateText(a.note, GENERAL_LIMIT) || '(empty note)';
    return `- ${formatStamp(a.ts)} ${note} (origin: ${flattenText(a.originId ?? '') || 'unknown'}, anchor: ${flattenText(a.id)})`;
  });
}

/** Render a session as a v2 projection markdown document (ends with one newline). */
export function renderProjection(doc: SessionDoc): string {
  const zone = resolveZone(doc.timezone);
  const entries = sortEntries(doc.entries);
  const anchors = sortAnchors(doc.anchors);
  const range = computeRange(doc, entries);
  const toolNames = listToolNames(entries);
  const keywords = extractKeywords(entries, MAX_KEYWORDS, doc.corpus, doc.rankedTerms);
  const topics = inferTopics(entries, keywords);
  const decisions = extractDecisions(entries);
  const markers = computeTemporalMarkers(entries, zone, anchors);

  const sections: string[][] = [
    renderFrontmatter(doc, zone, range, { toolNames, keywords, topics, messageCount: entries.length }),
    [
      renderHeading(doc),
      '',
      `> Session: ${describeSessionRange(range, zone)}`,
      `> Messages: ${entries.length} | Tools used: ${toolNames.length > 0 ? toolNames.join(', ') : '(none)'}`,
    ],
    renderTimeline(entries, markers, zone),
    ['## Conversations', '', '### User Queries', ...renderConversationList(entries, 'user')],
    ['### Assistant Responses', ...renderConversationList(entries, 'assistant')],
    renderToolActivity(entries),
    ['## Decisions & Outcomes', ...(decisions.length > 0 ? decisions.map((d) => `- ${d}`) : [NONE])],
    [
      '## Keywords & Topics',
      `- **Keywords**: ${keywords.length > 0 ? keywords.join(', ') : '(none)'}`,
      `- **Topics**: ${topics.length > 0 ? topics.join(', ') : '(none)'}`,
    ],
    ['## Compaction Notes', ...renderCompactionNotes(anchors)],
  ];
  return `${sections.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}
