import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { readProjectionDecisionLines } from '../continuity/projection-decisions.js';
import { errnoOf } from '../errors.js';
import { classifyDecisionLine } from '../text/decision-line.js';

/**
 * What a hook says about one earlier session, read back from its v2 projection (`archives/mlib/<id>.md`): how it
 * ended (the last assistant response — what an L1 block's **Outcome** holds) and its `## Decisions & Outcomes`,
 * with file edits folded into one list of changed files. Read from the projection rather than the daily memory
 * files so a session is described the same whether or not L1 has run.
 */
export interface SessionDigest {
  outcome: string | null;
  /** The section's lines that are decisions (src/text/decision-line.ts), labels taken off, in the session's order:
   * not its requests, commands and their output, outcomes or reports. */
  decisions: string[];
  /** Files the session wrote or edited, in order, each once. */
  changedFiles: string[];
}

export const EMPTY_DIGEST: SessionDigest = { outcome: null, decisions: [], changedFiles: [] };

/** A projection larger than this is not read by a hook (a long session's tool activity can run to megabytes). */
const MAX_PROJECTION_BYTES = 8 * 1024 * 1024;

/** The digest of the projection at `path`; a missing, unreadable or oversized file is an empty digest. */
export function readSessionDigest(path: string | null): SessionDigest {
  if (path === null) return EMPTY_DIGEST;
  const text = readBounded(path);
  return text === null ? EMPTY_DIGEST : digestProjection(text);
}

export function digestProjection(markdown: string): SessionDigest {
  const lines = markdown.split(/\r?\n/);
  const decisions: string[] = [];
  const changedFiles: string[] = [];
  for (const line of readProjectionDecisionLines(lines) ?? []) {
    const item = stripStamp(line);
    const edit = /^(?:Edited|Wrote|Created|Deleted) (\S.*)$/.exec(item);
    if (edit) {
      if (!changedFiles.includes(edit[1]!)) changedFiles.push(edit[1]!);
    } else {
      const verdict = classifyDecisionLine(item);
      if (verdict.decision && !decisions.includes(verdict.text)) decisions.push(verdict.text);
    }
  }
  const outcome = readLastResponse(lines);
  // The outcome is said once, as the outcome.
  return { outcome, decisions: decisions.filter((decision) => decision !== outcome), changedFiles };
}

/** The last item of `### Assistant Responses` (inside `## Conversations`), without its time stamp. */
function readLastResponse(lines: readonly string[]): string | null {
  const start = lines.findIndex((line) => line.trim() === '### Assistant Responses');
  if (start < 0) return null;
  let last: string | null = null;
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,3} /.test(line)) break;
    const item = /^- (.*)$/.exec(line)?.[1];
    if (item !== undefined && item.trim() !== '(none)') last = item;
  }
  return last === null ? null : stripStamp(last);
}

/** `[18:57:27Z] text` → `text`. */
function stripStamp(item: string): string {
  return item.replace(/^\[[^\]]{1,40}\]\s*/, '').trim();
}

function readBounded(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'EACCES' || errnoOf(error) === 'EISDIR') return null;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_PROJECTION_BYTES) return null;
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const got = readSync(fd, buffer, read, stat.size - read, read);
      if (got === 0) break;
      read += got;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
