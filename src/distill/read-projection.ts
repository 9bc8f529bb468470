import { parseFrontmatter, readSection, splitFrontmatter } from '../project/parse.js';
import { MoonError } from '../errors.js';

/**
 * A v2 projection read back for distillation: the frontmatter, the conversation in the order it was said (user
 * and assistant turns interleaved by the Timeline, each with its local time), every tool transaction with its
 * priority, and the Decisions & Outcomes list. Only what the renderer writes is read; a v1 file is refused.
 */
export interface ProjectionTurn {
  role: 'user' | 'assistant';
  /** Local time as the Timeline shows it (`20:12:51 AEDT`), or null when unknown. */
  localTime: string | null;
  text: string;
}

export interface ProjectionTool {
  tool: string;
  priority: string;
  /** `` `call` → result ``, as rendered. */
  text: string;
  /** The call failed: a non-zero exit code, or the tool's own error status. */
  failed: boolean;
}

export interface DistillInput {
  sessionId: string;
  source: string;
  project: string | null;
  cwd: string | null;
  branch: string | null;
  title: string | null;
  archivePath: string | null;
  contentHash: string;
  /** Session start and end in UTC ms, from time_range_utc; null when the session has no timestamps. */
  startMs: number | null;
  endMs: number | null;
  messageCount: number;
  noiseFiltered: number;
  turns: ProjectionTurn[];
  tools: ProjectionTool[];
  decisions: string[];
}

const NONE = '- (none)';

export function readDistillInput(markdown: string, path: string): DistillInput {
  let header: string[];
  let body: string[];
  let frontmatter: Record<string, unknown>;
  try {
    ({ header, body } = splitFrontmatter(markdown));
    frontmatter = parseFrontmatter(header);
  } catch (error) {
    throw new MoonError('bad_input', `${path}: ${(error as Error).message}`);
  }
  if (frontmatter['moon_archive_projection'] !== 2) {
    throw new MoonError('bad_input', `${path}: not a v2 projection (moon_archive_projection: ${JSON.stringify(frontmatter['moon_archive_projection'] ?? null)})`, {
      hint: 'run `moon index --reproject` to rewrite old projections',
    });
  }
  const sessionId = stringOf(frontmatter['session_id']);
  const contentHash = stringOf(frontmatter['content_hash']);
  if (!sessionId || !contentHash) throw new MoonError('bad_input', `${path}: projection frontmatter lacks session_id or content_hash`);
  const [startMs, endMs] = readRange(stringOf(frontmatter['time_range_utc']));
  return {
    sessionId,
    source: stringOf(frontmatter['source']) ?? 'unknown',
    project: stringOf(frontmatter['project']),
    cwd: stringOf(frontmatter['cwd']),
    branch: stringOf(frontmatter['branch']),
    title: stringOf(frontmatter['title']),
    archivePath: stringOf(frontmatter['archive_jsonl_path']),
    contentHash,
    startMs,
    endMs,
    messageCount: numberOf(frontmatter['message_count']),
    noiseFiltered: numberOf(frontmatter['projection_filtered_noise_count']),
    turns: readTurns(body),
    tools: readTools(body),
    decisions: readSection(body, 'Decisions & Outcomes')
      .filter((line) => line.startsWith('- ') && line !== NONE)
      .map((line) => line.slice(2)),
  };
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function readRange(range: string | null): [number | null, number | null] {
  if (!range) return [null, null];
  const [start, end] = range.split(' — ').map((part) => Date.parse(part.trim()));
  return [Number.isFinite(start) ? start! : null, Number.isFinite(end) ? end! : null];
}

/** Items of a `### <title>` list inside a `## <section>`, without their `[HH:mm:ssZ]` stamps. */
function readItems(body: readonly string[], section: string, title: string): string[] {
  const lines = readSection(body, section);
  const start = lines.findIndex((line) => line.trim() === `### ${title}`);
  if (start < 0) return [];
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('### ')) break;
    const item = /^- (?:\[[^\]]*\] )?(.*)$/.exec(line);
    if (item && line !== NONE) items.push(item[1]!);
  }
  return items;
}

/** Timeline rows in order: `| 3 | 09:12:55Z | 20:12:55 AEDT | user | … |`. */
function readTimelineRoles(body: readonly string[]): { role: string; local: string; empty: boolean }[] {
  return readSection(body, 'Timeline').flatMap((line) => {
    const cells = line.split(' | ');
    if (cells.length < 5 || !/^\| \d+$/.test(cells[0]!.trim())) return [];
    return [{ role: cells[3]!.trim(), local: cells[2]!.trim(), empty: cells.slice(4).join(' | ').startsWith('(empty)') }];
  });
}

function readTurns(body: readonly string[]): ProjectionTurn[] {
  const users = readItems(body, 'Conversations', 'User Queries').map(unquoteUser);
  const assistants = readItems(body, 'Conversations', 'Assistant Responses');
  const turns: ProjectionTurn[] = [];
  const next = { user: 0, assistant: 0 };
  for (const row of readTimelineRoles(body)) {
    if ((row.role !== 'user' && row.role !== 'assistant') || row.empty) continue;
    const list = row.role === 'user' ? users : assistants;
    const text = list[next[row.role]++];
    if (text === undefined) continue;
    turns.push({ role: row.role, localTime: /^\d/.test(row.local) ? row.local : null, text });
  }
  // Anything the Timeline did not place (an older renderer's file) follows in list order.
  for (const text of users.slice(next.user)) turns.push({ role: 'user', localTime: null, text });
  for (const text of assistants.slice(next.assistant)) turns.push({ role: 'assistant', localTime: null, text });
  return turns;
}

function unquoteUser(text: string): string {
  const match = /^"([\s\S]*)"(.*)$/.exec(text);
  return match ? `${match[1]}${match[2]}` : text;
}

/** Tool transactions in the order they ran: each `tool:<name>` Timeline row takes the next item of its list. */
function readTools(body: readonly string[]): ProjectionTool[] {
  const byTool = new Map<string, ProjectionTool[]>();
  let tool: string | null = null;
  for (const line of readSection(body, 'Tool Activity')) {
    const heading = /^### (.+)$/.exec(line);
    if (heading) {
      tool = heading[1]!.trim();
      continue;
    }
    const item = /^- (?:\[[^\]]*\] )?\*\*(\w+)\*\* (.*)$/.exec(line);
    if (!tool || !item) continue;
    const exit = /→ exit (-?\d+)/.exec(item[2]!);
    const failed = exit ? Number(exit[1]) !== 0 : /→ error\b/.test(item[2]!);
    const list = byTool.get(tool) ?? [];
    list.push({ tool, priority: item[1]!, text: item[2]!, failed });
    byTool.set(tool, list);
  }
  const ordered: ProjectionTool[] = [];
  const next = new Map<string, number>();
  for (const row of readTimelineRoles(body)) {
    if (!row.role.startsWith('tool:')) continue;
    const name = row.role.slice('tool:'.length);
    const at = next.get(name) ?? 0;
    const found = byTool.get(name)?.[at];
    if (!found) continue;
    next.set(name, at + 1);
    ordered.push(found);
  }
  for (const [name, list] of byTool) ordered.push(...list.slice(next.get(name) ?? 0));
  return ordered;
}
