import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../archive/write.js';
import { errnoOf, toIoError } from '../errors.js';
import { BEGIN, beginMarker, endMarker } from './l1-block.js';

/**
 * Daily memory files, `$MOON_HOME/memory/YYYY-MM-DD.md`: one block per session between its BEGIN and END markers.
 * Upserting replaces a session's block in place (or appends it), so re-running L1 never duplicates; text
 * outside the blocks (a person's own notes) is kept as written.
 */
export function dailyFilePath(memoryDir: string, day: string): string {
  return join(memoryDir, `${day}.md`);
}

/** A file's text, or null when it does not exist; any other failure names the file. */
export function readTextIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return null;
    throw toIoError(path, error, 'read');
  }
}

/** Where a session's block is: [start of BEGIN line, end of END line] in `text`, or null. */
function findBlock(text: string, sessionId: string): [number, number] | null {
  const begin = text.indexOf(beginMarker(sessionId));
  if (begin < 0) return null;
  const endLine = endMarker(sessionId);
  const end = text.indexOf(endLine, begin);
  // A BEGIN without its END (a hand edit): the block runs to the next BEGIN, or the end of the file.
  if (end < 0) {
    const next = text.indexOf(`<!-- ${BEGIN}:`, begin + 1);
    return [begin, next < 0 ? text.length : next];
  }
  return [begin, end + endLine.length];
}

export function upsertDailyBlock(path: string, day: string, zone: string, sessionId: string, block: string): void {
  const text = readTextIfExists(path) ?? `# Daily memory — ${day} (${zone})\n`;
  const found = findBlock(text, sessionId);
  const next = found
    ? `${text.slice(0, found[0])}${block}${text.slice(found[1])}`
    : `${text.replace(/\n*$/, '\n')}\n${block}\n`;
  writeFileAtomic(path, next);
}

/** Take a session's block out (it moved to another day). Returns whether one was there. */
export function removeDailyBlock(path: string, sessionId: string): boolean {
  const text = readTextIfExists(path);
  if (text === null) return false;
  const found = findBlock(text, sessionId);
  if (!found) return false;
  const before = text.slice(0, found[0]).replace(/\n+$/, '\n');
  const after = text.slice(found[1]).replace(/^\n+/, '\n');
  writeFileAtomic(path, `${before}${after}`);
  return true;
}

/** Session ids with a block in a daily file's text, in file order. */
export function listDailySessions(text: string): string[] {
  const ids: string[] = [];
  for (const match of text.matchAll(new RegExp(`<!-- ${BEGIN}:([^ ]+) -->`, 'g'))) ids.push(match[1]!);
  return ids;
}

