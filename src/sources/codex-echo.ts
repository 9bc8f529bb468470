import { createHash } from 'node:crypto';
import type { Role } from '../model.js';
import type { CodexChunk, EchoKind, RecentMessage } from './codex-chunk.js';

/**
 * Codex writes what happened twice: as a `response_item` (what the model saw) and as an `event_msg` (what the UI
 * showed), in either order — messages, reasoning summaries, web searches. Whichever stream wrote it first is the
 * entry; the other is an echo.
 */

/** How many recent records an echo is looked for in; echoes sit next to their original. */
const RECENT_MESSAGES = 16;
/** Blocks of one record that are hashed: an echo repeats the whole text or one of its first blocks. */
const HASHED_BLOCKS = 8;
/**
 * The public sanitized fixtures replace a message by `[REDACTED_TEXT len=N sha=H]` in the response_item and by
 * `[REDACTED_MESSAGE len=N sha=H]` in its event_msg echo; both stand for the same text.
 */
const REDACTION_PLACEHOLDER = /^\[REDACTED_[A-Z]+ (len=\d+ sha=[0-9a-f]+)\]$/;

export interface EchoCandidate {
  from: RecentMessage['from'];
  role: Role;
  kind: EchoKind;
  text: string;
  blocks: readonly string[];
}

/**
 * True when the candidate echoes a recent record of the other stream; that record's matched hashes are used up,
 * so the same text sent twice is two entries. Otherwise the candidate is remembered for its own echo.
 *
 * A reasoning item with several summary parts is echoed by one event per part, and a user message with images is
 * written as several blocks while its echo holds only the typed text: a record is forgotten once its whole text
 * or its last block was echoed, and an item drops every event it contains.
 */
export function takeEcho(chunk: CodexChunk, candidate: EchoCandidate): boolean {
  const hashes = [...new Set([candidate.text, ...candidate.blocks.slice(0, HASHED_BLOCKS)].map(hashText))];
  const recent = chunk.state.recent;
  let echoed = false;
  for (let index = 0; index < recent.length; index += 1) {
    const seen = recent[index]!;
    if (seen.from === candidate.from || seen.role !== candidate.role || (seen.kind ?? 'message') !== candidate.kind) {
      continue;
    }
    if (!seen.hashes.some((hash) => hashes.includes(hash))) continue;
    echoed = true;
    const whole = seen.hashes[0];
    seen.hashes = seen.hashes.filter((hash) => !hashes.includes(hash));
    if (seen.hashes.length <= 1 || !seen.hashes.includes(whole!)) {
      recent.splice(index, 1);
      index -= 1;
    }
    // An event echoes one record; an item may contain several events (one per summary part).
    if (candidate.from === 'event') break;
  }
  if (echoed) {
    chunk.duplicates += 1;
    return true;
  }
  recent.push({ from: candidate.from, role: candidate.role, kind: candidate.kind, hashes });
  if (recent.length > RECENT_MESSAGES) recent.splice(0, recent.length - RECENT_MESSAGES);
  return false;
}

function hashText(text: string): string {
  const trimmed = text.trim();
  const canonical = REDACTION_PLACEHOLDER.exec(trimmed)?.[1] ?? trimmed;
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}
