import { createHash } from 'node:crypto';

/**
 * Puffin's `.puffin/history.json` (one JSON document, rewritten whole on every save) read into a parsed view:
 * every prompt with its branch, parent, children, response and depth in its conversation tree (seed 004 §1).
 * Malformed entries are skipped and counted with the reason; the rest of the file is kept.
 */
export interface PuffinResponse {
  content: string;
  sessionId: string | null;
  cost: number | null;
  turns: number | null;
  duration: number | null;
  /** Epoch ms; null when absent or unreadable. */
  timestamp: number | null;
  filesModified: Array<{ path: string; action: string }>;
}

export interface ParsedPrompt {
  id: string;
  branchId: string;
  /** The parent as written (possibly dangling: `parentMissing` says so). */
  parentId: string | null;
  parentMissing: boolean;
  title: string | null;
  content: string;
  /** Epoch ms (Puffin writes ms; CLI-synced prompts carry ISO strings). */
  timestamp: number;
  response: PuffinResponse | null;
  /** Child prompt ids: `children` as written, else the prompts naming this one as parent. */
  children: string[];
  /** Distance from the root of its conversation tree (a root, or a prompt whose parent is missing, is 0). */
  depth: number;
  /** The root prompt of its tree. */
  rootId: string;
  /** Puffin's own kind: 'derivation', 'story-thread', or null for an ordinary prompt. */
  kind: string | null;
  /** Position in its branch's prompts array as written. */
  position: number;
}

/**
 * What linking a branch into conversation trees (and segmenting it) needs of a prompt: everything but its text.
 * A ParsedPrompt is one; a reader that keeps less than the text (the RLM index's outline) gives its own.
 */
export interface LinkablePrompt {
  id: string;
  branchId: string;
  parentId: string | null;
  parentMissing: boolean;
  children: string[];
  depth: number;
  rootId: string;
  timestamp: number;
  position: number;
  response: { timestamp: number | null } | null;
}

/** A branch of prompts read one way or another: parsed (ParsedPrompt) or outlined. */
export interface PuffinBranchOf<P> {
  id: string;
  name: string;
  prompts: P[];
  handoffSummary: string | null;
}

export type ParsedBranch = PuffinBranchOf<ParsedPrompt>;

export interface SkippedEntry {
  branchId: string | null;
  index: number | null;
  reason: string;
}

export interface PuffinHistoryOf<P> {
  /** Branches in display order: `branchOrder` first, then branches it leaves out, in file order. */
  branches: Array<PuffinBranchOf<P>>;
  totalPrompts: number;
  dateRange: { earliest: number; latest: number } | null;
  updatedAt: string | null;
  activeBranch: string | null;
  skipped: SkippedEntry[];
}

export type ParsedHistory = PuffinHistoryOf<ParsedPrompt>;

export type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Epoch ms from Puffin's number or ISO string; null when neither. */
export function readPuffinTime(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.length > 0) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/** Is this parsed JSON document a Puffin history? (`branches` of objects holding `prompts` arrays.) */
export function isPuffinHistory(value: unknown): value is Json {
  if (!isObject(value) || !isObject(value.branches)) return false;
  const branches = Object.values(value.branches);
  return branches.every((branch) => isObject(branch) && Array.isArray(branch.prompts)) && ('activeBranch' in value || 'branchOrder' in value || branches.length > 0);
}

function readResponse(value: unknown): PuffinResponse | null {
  if (!isObject(value) || typeof value.content !== 'string') return null;
  const num = (key: string): number | null => (typeof value[key] === 'number' && Number.isFinite(value[key]) ? (value[key] as number) : null);
  const files = Array.isArray(value.filesModified)
    ? value.filesModified.filter(isObject).flatMap((file) => (typeof file.path === 'string' ? [{ path: file.path, action: typeof file.action === 'string' ? file.action : 'modified' }] : []))
    : [];
  return {
    content: value.content,
    sessionId: typeof value.sessionId === 'string' ? value.sessionId : null,
    cost: num('cost'),
    turns: num('turns'),
    duration: num('duration'),
    timestamp: readPuffinTime(value.timestamp),
    filesModified: files,
  };
}

/** One prompt as written, or the reason it cannot be read. */
export function readPuffinPrompt(value: unknown, branchId: string, position: number): ParsedPrompt | string {
  if (!isObject(value)) return 'prompt is not an object';
  if (typeof value.id !== 'string' || value.id.length === 0) return 'prompt has no id';
  if (typeof value.content !== 'string') return `prompt ${value.id} has no content string`;
  const timestamp = readPuffinTime(value.timestamp);
  if (timestamp === null) return `prompt ${value.id} has no readable timestamp`;
  const children = Array.isArray(value.children) ? value.children.filter((child): child is string => typeof child === 'string') : [];
  return {
    id: value.id,
    branchId,
    parentId: typeof value.parentId === 'string' && value.parentId.length > 0 ? value.parentId : null,
    parentMissing: false,
    title: typeof value.title === 'string' && value.title.length > 0 ? value.title : null,
    content: value.content,
    timestamp,
    response: readResponse(value.response),
    children,
    depth: 0,
    rootId: value.id,
    kind: typeof value.type === 'string' ? value.type : null,
    position,
  };
}

/**
 * Links a branch's prompts into trees: a parent outside the branch is missing (the prompt starts its own tree),
 * children come from `children` when written and from parent links otherwise, and depth counts from the root.
 * Cycles (never written by Puffin, but possible in a hand-edited file) are broken at the prompt that closes them.
 */
export function linkBranch<P extends LinkablePrompt>(prompts: P[]): void {
  const byId = new Map(prompts.map((prompt) => [prompt.id, prompt]));
  const linked = new Map<string, Set<string>>();
  for (const prompt of prompts) {
    if (prompt.parentId !== null && !byId.has(prompt.parentId)) prompt.parentMissing = true;
    if (prompt.parentId !== null && byId.has(prompt.parentId)) {
      const set = linked.get(prompt.parentId) ?? new Set<string>();
      set.add(prompt.id);
      linked.set(prompt.parentId, set);
    }
  }
  for (const prompt of prompts) {
    const fromParents = linked.get(prompt.id);
    if (fromParents) for (const child of prompt.children) fromParents.add(child);
    prompt.children = [...(fromParents ?? prompt.children)].filter((child) => byId.has(child));
  }
  const resolved = new Map<string, { depth: number; root: string }>();
  const resolve = (start: P): { depth: number; root: string } => {
    const chain: P[] = [];
    const seen = new Set<string>();
    let current: P | undefined = start;
    let base: { depth: number; root: string } | null = null;
    while (current) {
      const known = resolved.get(current.id);
      if (known) {
        base = known;
        break;
      }
      if (seen.has(current.id)) {
        // A cycle: the prompt that closes it becomes a root.
        current.parentMissing = true;
        break;
      }
      seen.add(current.id);
      chain.push(current);
      if (current.parentId === null || current.parentMissing) break;
      current = byId.get(current.parentId);
    }
    let depth = base ? base.depth + 1 : 0;
    let root = base ? base.root : chain[chain.length - 1]!.id;
    for (let index = chain.length - 1; index >= 0; index -= 1) {
      const prompt = chain[index]!;
      if (index === chain.length - 1 && !base) {
        depth = 0;
        root = prompt.id;
      }
      resolved.set(prompt.id, { depth, root });
      depth += 1;
    }
    return resolved.get(start.id)!;
  };
  for (const prompt of prompts) {
    const { depth, root } = resolve(prompt);
    prompt.depth = depth;
    prompt.rootId = root;
  }
}

/** Branch ids in display order: `branchOrder` (known ids only, once each), then the rest in file order. */
export function orderBranches(history: Json): string[] {
  const ids = isObject(history.branches) ? Object.keys(history.branches) : [];
  const order = Array.isArray(history.branchOrder) ? history.branchOrder.filter((id): id is string => typeof id === 'string' && ids.includes(id)) : [];
  const listed = [...new Set(order)];
  return [...listed, ...ids.filter((id) => !listed.includes(id))];
}

/** A prompt as read from its branch: the parsed prompt, or the reason it could not be read. */
export type ReadPrompt = ParsedPrompt | string;

/** A parsed Puffin history document into the parsed view. */
export function parsePuffinHistory(history: unknown): ParsedHistory {
  if (!isPuffinHistory(history)) throw new Error('not a Puffin history: expected an object with "branches" holding "prompts" arrays');
  const read = new Map<string, ReadPrompt[]>();
  for (const branchId of Object.keys(history.branches as Json)) {
    const raw = (history.branches as Json)[branchId] as Json;
    read.set(
      branchId,
      (raw.prompts as unknown[]).map((value, index) => readPuffinPrompt(value, branchId, index)),
    );
  }
  return assemblePuffinHistory(history, read);
}

/**
 * The parsed view from a history's own fields and each branch's prompts, already read one by one (the whole
 * parse above reads them from the document; the streaming reader as they stream past, never holding the raw
 * prompts). Both end here, so they give the same view: branches in display order, a repeated id skipped where
 * it comes second in that order, trees linked per branch.
 */
export function assemblePuffinHistory<P extends LinkablePrompt>(history: Json, read: ReadonlyMap<string, ReadonlyArray<P | string>>): PuffinHistoryOf<P> {
  const skipped: SkippedEntry[] = [];
  const branches: Array<PuffinBranchOf<P>> = [];
  const seenIds = new Set<string>();
  let earliest = Infinity;
  let latest = -Infinity;
  for (const branchId of orderBranches(history)) {
    const raw = (history.branches as Json)[branchId] as Json;
    const prompts: P[] = [];
    (read.get(branchId) ?? []).forEach((prompt, index) => {
      if (typeof prompt === 'string') {
        skipped.push({ branchId, index, reason: prompt });
        return;
      }
      if (seenIds.has(prompt.id)) {
        skipped.push({ branchId, index, reason: `prompt ${prompt.id} repeats an id already read` });
        return;
      }
      seenIds.add(prompt.id);
      prompts.push(prompt);
      earliest = Math.min(earliest, prompt.timestamp);
      latest = Math.max(latest, prompt.response?.timestamp ?? prompt.timestamp, prompt.timestamp);
    });
    linkBranch(prompts);
    const handoff = isObject(raw.handoffContext) && typeof raw.handoffContext.summary === 'string' ? raw.handoffContext.summary : null;
    branches.push({ id: branchId, name: typeof raw.name === 'string' ? raw.name : branchId, prompts, handoffSummary: handoff });
  }
  const totalPrompts = branches.reduce((sum, branch) => sum + branch.prompts.length, 0);
  return {
    branches,
    totalPrompts,
    dateRange: totalPrompts > 0 ? { earliest, latest } : null,
    updatedAt: typeof history.updatedAt === 'string' ? history.updatedAt : null,
    activeBranch: typeof history.activeBranch === 'string' ? history.activeBranch : null,
    skipped,
  };
}

/** Runs of whitespace as one space, ends trimmed: a re-indented or re-wrapped text hashes the same. */
function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Seed 004's prompt hash: SHA-256 (hex) of the prompt's id, its content and its response's content, each with
 * whitespace normalised (a missing response hashes as an empty one). What changed between two readings of a
 * history is told by comparing these per prompt id: added, modified, removed.
 */
export function hashPuffinPrompt(prompt: Pick<ParsedPrompt, 'id' | 'content' | 'response'>): string {
  return createHash('sha256')
    .update(normalizeWhitespace(prompt.id))
    .update('\u0000')
    .update(normalizeWhitespace(prompt.content))
    .update('\u0000')
    .update(normalizeWhitespace(prompt.response?.content ?? ''))
    .digest('hex');
}
