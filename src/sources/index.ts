import type { SourceName } from '../model.js';
import { claudeCodeSource } from './claude-code.js';
import { codexSource } from './codex.js';
import { openclawSource } from './openclaw.js';
import type { Source } from './source.js';

/** Every transcript format moon reads. Their detect() functions are mutually exclusive by construction. */
export const SOURCES: readonly Source[] = [claudeCodeSource, codexSource, openclawSource];

/** The format of a file, judged by its first parsed records (never by its path), or null when none fits. */
export function detectSource(head: readonly unknown[]): Source | null {
  return SOURCES.find((source) => source.detect(head)) ?? null;
}

export function sourceByName(name: string): Source | null {
  return SOURCES.find((source) => source.name === (name as SourceName)) ?? null;
}

export { claudeCodeSource, codexSource, openclawSource };
