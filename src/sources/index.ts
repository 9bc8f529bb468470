import type { SourceName } from '../model.js';
import { claudeCodeSource } from './claude-code.js';
import { codexSource } from './codex.js';
import { openclawSource } from './openclaw.js';
import type { Source } from './source.js';

/** Every transcript format moon reads. Their detect() functions are mutually exclusive by construction. */
export const SOURCES: readonly Source[] = [claudeCodeSource, codexSource, openclawSource];

/** Records each detector sees at once: the head a well-formed transcript starts with. */
export const DETECT_WINDOW = 8;

/**
 * The format of a file, judged by its first parsed records (never by its path), or null when none fits. The
 * first records decide; when they fit no format (junk or foreign records before the transcript proper), the
 * window slides along the records read, so the first recognisable one decides instead.
 */
export function detectSource(head: readonly unknown[]): Source | null {
  for (let start = 0; start === 0 || start < head.length; start += 1) {
    const window = head.slice(start, start + DETECT_WINDOW);
    const found = SOURCES.find((source) => source.detect(window));
    if (found) return found;
  }
  return null;
}

export function sourceByName(name: string): Source | null {
  return SOURCES.find((source) => source.name === (name as SourceName)) ?? null;
}

export { claudeCodeSource, codexSource, openclawSource };
