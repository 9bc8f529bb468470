/**
 * File changes as searchable text. Code an agent wrote is found later by the identifiers it introduced, so the
 * bodies of `apply_patch`, `Edit`, `MultiEdit` and `Write` calls become one compact, bounded diff per file:
 *
 *     Update File: src/clock.ts
 *     - const now = Date.now();
 *     + vi.setSystemTime(new Date('2026-02-21'));
 *
 * Every adapter renders changes with renderFileChanges, so a patch reads the same whichever agent wrote it.
 */

export type FileChangeOp = 'Add' | 'Update' | 'Delete';

export interface FileChange {
  op: FileChangeOp;
  path: string;
  /** New path of a moved file (`*** Move to:`). */
  movedTo: string | null;
  removed: string[];
  added: string[];
}

/** Changed lines kept per file, and characters per line: enough to find what was written, bounded for any patch. */
export const PATCH_LINES_PER_FILE = 60;
export const PATCH_LINE_CHARS = 200;
/** Characters of the whole rendered text: a patch of a thousand files still stays a small entry. */
export const PATCH_TEXT_LIMIT = 8000;

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const MOVE_TO = /^\*\*\* Move to: (.+)$/;

/** True when a tool input is a Codex `apply_patch` body (`*** Begin Patch` or a bare `*** Update File:` header). */
export function isApplyPatch(raw: string): boolean {
  return /^\*\*\* (?:Begin Patch|(?:Add|Update|Delete) File: )/m.test(raw);
}

/**
 * The files of an `apply_patch` body: `*** Add|Update|Delete File: path` headers, `+`/`-` lines below them
 * (context lines and `@@` hunk headers are left out). Lines are scanned once; nothing backtracks.
 */
export function parseApplyPatch(raw: string): FileChange[] {
  const changes: FileChange[] = [];
  let current: FileChange | null = null;
  for (const line of raw.split('\n')) {
    const header = FILE_HEADER.exec(line);
    if (header) {
      current = { op: header[1] as FileChangeOp, path: header[2]!.trim(), movedTo: null, removed: [], added: [] };
      changes.push(current);
      continue;
    }
    if (current === null) continue;
    const move = MOVE_TO.exec(line);
    if (move) {
      current.movedTo = move[1]!.trim();
      continue;
    }
    if (line.startsWith('***')) continue; // *** End Patch, *** End of File
    if (line.startsWith('+')) current.added.push(line.slice(1));
    else if (line.startsWith('-')) current.removed.push(line.slice(1));
  }
  return changes;
}

/** An edit that replaced `before` with `after` in `path` (Claude Code `Edit`, one `MultiEdit` item). */
export function describeReplacement(path: string, before: string, after: string): FileChange {
  return { op: 'Update', path, movedTo: null, removed: splitLines(before), added: splitLines(after) };
}

/** A whole file written (Claude Code `Write`, OpenClaw `write`). */
export function describeWrite(path: string, content: string): FileChange {
  return { op: 'Add', path, movedTo: null, removed: [], added: splitLines(content) };
}

/** Changes to the same file are merged in order, so a MultiEdit of ten hunks reads as one file's diff. */
export function mergeFileChanges(changes: readonly FileChange[]): FileChange[] {
  const byPath = new Map<string, FileChange>();
  for (const change of changes) {
    const existing = byPath.get(change.path);
    if (existing && existing.op === change.op) {
      existing.removed.push(...change.removed.slice(0, PATCH_LINES_PER_FILE));
      existing.added.push(...change.added.slice(0, PATCH_LINES_PER_FILE));
    } else if (!existing) {
      byPath.set(change.path, { ...change, removed: [...change.removed], added: [...change.added] });
    }
  }
  return [...byPath.values()];
}

/** One header line per file, then its removed and added lines, bounded per line, per file and in total. */
export function renderFileChanges(changes: readonly FileChange[]): string {
  const out: string[] = [];
  let chars = 0;
  for (const [index, change] of changes.entries()) {
    const header = `${change.op} File: ${change.path}${change.movedTo ? ` → ${change.movedTo}` : ''}`;
    const lines = [header, ...boundLines(change)];
    const size = lines.reduce((sum, line) => sum + line.length + 1, 0);
    if (chars + size > PATCH_TEXT_LIMIT && out.length > 0) {
      out.push(`… ${changes.length - index} more file${changes.length - index === 1 ? '' : 's'}`);
      break;
    }
    out.push(...lines);
    chars += size;
  }
  return out.join('\n');
}

/** The paths a change list touches, in order: the call's target is the first. */
export function listChangedPaths(changes: readonly FileChange[]): string[] {
  return changes.map((change) => change.path);
}

function boundLines(change: FileChange): string[] {
  const body = [
    ...change.removed.filter((line) => line.trim() !== '').map((line) => `- ${clipLine(line)}`),
    ...change.added.filter((line) => line.trim() !== '').map((line) => `+ ${clipLine(line)}`),
  ];
  if (body.length <= PATCH_LINES_PER_FILE) return body;
  const rest = body.length - PATCH_LINES_PER_FILE;
  return [...body.slice(0, PATCH_LINES_PER_FILE), `… ${rest} more line${rest === 1 ? '' : 's'}`];
}

function clipLine(line: string): string {
  const trimmed = line.trimEnd();
  return trimmed.length > PATCH_LINE_CHARS ? `${trimmed.slice(0, PATCH_LINE_CHARS)}…` : trimmed;
}

/** Characters of an edit's text that are split into lines; a multi-megabyte body costs no more than its kept part. */
const SPLIT_LIMIT = PATCH_LINES_PER_FILE * (PATCH_LINE_CHARS + 1) * 2;

function splitLines(text: string): string[] {
  return (text.length > SPLIT_LIMIT ? text.slice(0, SPLIT_LIMIT) : text).split('\n');
}
