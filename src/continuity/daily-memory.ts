import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { errnoOf, toIoError } from '../errors.js';

/** Daily memory files: `memory/YYYY-MM-DD.md`. */
const DAILY_FILE = /^\d{4}-\d{2}-\d{2}\.md$/;

/** The comment that opens a session's block in a daily memory file. */
export function sessionBeginMarker(sessionId: string): string {
  return `<!-- MOON_SESSION_BEGIN:${sessionId} -->`;
}

export function holdsSessionBlock(text: string, sessionId: string): boolean {
  return text.includes(sessionBeginMarker(sessionId));
}

/** Every daily memory file holding a block of the session, by name (so by date). None, or no folder: []. */
export function findDailyMemoryRefs(memoryDir: string, sessionId: string): string[] {
  let names: string[];
  try {
    names = readdirSync(memoryDir);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return [];
    throw toIoError(memoryDir, error, 'read');
  }
  return names
    .filter((name) => DAILY_FILE.test(name))
    .sort()
    .map((name) => join(memoryDir, name))
    .filter((path) => {
      try {
        return holdsSessionBlock(readFileSync(path, 'utf8'), sessionId);
      } catch (error) {
        // A folder or a file that vanished since the listing holds no block.
        if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'EISDIR') return false;
        throw toIoError(path, error, 'read');
      }
    });
}
