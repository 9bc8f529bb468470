import { truncateText } from '../project/render.js';
import { formatLocalIso } from '../time/format.js';
import type { DistillInput, ProjectionTool } from './read-projection.js';

/**
 * One session's L1 block in a daily memory file (seed 001, L1 normalisation): where it came from, an execution
 * summary (goal, key actions, outcome, blockers) and the conversation, between markers that make a re-run a
 * replacement. Pure and deterministic: the same projection renders the same block, whenever it runs.
 */
export interface L1Layout {
  zone: string;
  /** Conversation chunk size in bytes (distill.chunk_bytes, resolved). */
  chunkBytes: number;
  /** Chunks kept: the first half and the last half, the middle named as omitted. */
  maxChunks: number;
}

export const BEGIN = 'MOON_SESSION_BEGIN';
export const END = 'MOON_SESSION_END';

/** A session id as it appears inside an HTML comment: without `>` or a line break nothing can close the comment. */
export function toMarkerId(sessionId: string): string {
  return sessionId.replace(/[^A-Za-z0-9._:@/+=-]/g, '_');
}

export function beginMarker(sessionId: string): string {
  return `<!-- ${BEGIN}:${toMarkerId(sessionId)} -->`;
}

export function endMarker(sessionId: string): string {
  return `<!-- ${END}:${toMarkerId(sessionId)} -->`;
}

const GOAL_CHARS = 300;
const ACTION_CHARS = 200;
const OUTCOME_CHARS = 400;
const MAX_ACTIONS = 8;
const MAX_BLOCKERS = 5;
/** One turn's text in the daily file: whole turns are in the projection and the archive. */
const TURN_CHARS = 2_000;

export interface L1Block {
  text: string;
  /** Turns left out because the conversation was longer than max_chunks × chunk_bytes. */
  omittedTurns: number;
  chunks: number;
}

export function renderL1Block(input: DistillInput, projectionPath: string, layout: L1Layout): L1Block {
  const when =
    input.startMs !== null && input.endMs !== null
      ? `${formatLocalIso(input.startMs, layout.zone)} — ${formatLocalIso(input.endMs, layout.zone)}`
      : 'time unknown';
  const heading = truncateText(input.title ?? input.turns.find((turn) => turn.role === 'user')?.text ?? input.sessionId, 120);
  const conversation = chunkConversation(
    input.turns.map((turn) => `- ${turn.localTime ? `${turn.localTime} ` : ''}**${turn.role}**: ${truncateText(turn.text, TURN_CHARS)}`),
    layout,
  );
  const lines = [
    beginMarker(input.sessionId),
    `## ${heading}`,
    '',
    `- Session: \`${input.sessionId}\` (${input.source}${input.project ? `, project ${input.project}` : ''}${input.branch ? `, branch ${input.branch}` : ''})`,
    `- When: ${when}`,
    `- Source archive: ${input.archivePath ? `\`${input.archivePath}\`` : '(none recorded)'}`,
    `- Projection: \`${projectionPath}\``,
    `- Messages: ${input.messageCount} · noise filtered: ${input.noiseFiltered} · content hash: ${input.contentHash}`,
    '',
    '### Execution summary',
    '',
    `- **Goal:** ${describeGoal(input)}`,
    ...describeActions(input.tools),
    `- **Outcome:** ${describeOutcome(input)}`,
    ...describeBlockers(input.tools),
    '',
    '### Conversation',
    '',
    ...(conversation.lines.length > 0 ? conversation.lines : ['- (no conversation recorded)']),
    endMarker(input.sessionId),
  ];
  return { text: lines.join('\n'), omittedTurns: conversation.omitted, chunks: conversation.chunks };
}

function describeGoal(input: DistillInput): string {
  const first = input.turns.find((turn) => turn.role === 'user');
  return first ? truncateText(first.text, GOAL_CHARS) : input.title ? truncateText(input.title, GOAL_CHARS) : '(no request recorded)';
}

/** Calls with side effects (priority above normal): edits, commits, deploys. */
function describeActions(tools: readonly ProjectionTool[]): string[] {
  const key = tools.filter((tool) => tool.priority !== 'normal' && tool.priority !== 'low');
  if (key.length === 0) {
    return [`- **Key actions:** ${tools.length === 0 ? 'none' : `${tools.length} read-only tool call${tools.length === 1 ? '' : 's'}`}`];
  }
  const shown = key.slice(0, MAX_ACTIONS).map((tool) => `  - ${tool.tool}: ${truncateText(tool.text, ACTION_CHARS)}`);
  const more = key.length > MAX_ACTIONS ? [`  - … and ${key.length - MAX_ACTIONS} more`] : [];
  return ['- **Key actions:**', ...shown, ...more];
}

function describeOutcome(input: DistillInput): string {
  const last = [...input.turns].reverse().find((turn) => turn.role === 'assistant');
  if (last) return truncateText(last.text, OUTCOME_CHARS);
  const decision = input.decisions[input.decisions.length - 1];
  return decision ? truncateText(decision, OUTCOME_CHARS) : '(no outcome recorded)';
}

/** Failed calls that no later call of the same command made good. */
function describeBlockers(tools: readonly ProjectionTool[]): string[] {
  const open: ProjectionTool[] = [];
  tools.forEach((tool, index) => {
    // A call the user turned down is their choice, not something that blocked the work.
    if (!tool.failed || DECLINED.test(tool.text)) return;
    const call = callOf(tool);
    const fixed = tools.slice(index + 1).some((later) => !later.failed && later.tool === tool.tool && callOf(later) === call);
    if (!fixed) open.push(tool);
  });
  if (open.length === 0) return ['- **Blockers:** none'];
  const shown = open.slice(0, MAX_BLOCKERS).map((tool) => `  - ${tool.tool}: ${truncateText(tool.text, ACTION_CHARS)}`);
  const more = open.length > MAX_BLOCKERS ? [`  - … and ${open.length - MAX_BLOCKERS} more`] : [];
  return ['- **Blockers:**', ...shown, ...more];
}

const DECLINED = /doesn't want to proceed with this tool use|tool use was rejected|user (?:denied|declined|rejected)/i;

function callOf(tool: ProjectionTool): string {
  const arrow = tool.text.indexOf(' → ');
  return arrow < 0 ? tool.text : tool.text.slice(0, arrow);
}

/** Lines grouped into chunks of at most `chunkBytes`; past `maxChunks`, the middle chunks are named, not kept. */
function chunkConversation(lines: readonly string[], layout: L1Layout): { lines: string[]; omitted: number; chunks: number } {
  const chunks: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (current.length > 0 && bytes + size > layout.chunkBytes) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(line);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  if (chunks.length <= layout.maxChunks) return { lines: chunks.flat(), omitted: 0, chunks: chunks.length };
  const head = Math.ceil(layout.maxChunks / 2);
  const tail = layout.maxChunks - head;
  const middle = chunks.slice(head, chunks.length - tail);
  const omitted = middle.reduce((sum, chunk) => sum + chunk.length, 0);
  return {
    lines: [
      ...chunks.slice(0, head).flat(),
      `- … ${omitted} turns omitted (${middle.length} of ${chunks.length} chunks past distill.max_chunks = ${layout.maxChunks}; the whole session is in its projection)`,
      ...chunks.slice(chunks.length - tail).flat(),
    ],
    omitted,
    chunks: chunks.length,
  };
}

