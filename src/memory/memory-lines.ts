import { readFileSync } from 'node:fs';
import { errnoOf } from '../errors.js';

/**
 * MEMORY.md's lines about a project: those naming it (its name as a whole word, case-insensitive) or its root
 * folder. Headings, blank lines and the empty-section placeholder are left out; list markers are removed.
 */
export const MAX_MEMORY_LINES = 12;

export function readMemoryLines(memoryFile: string, project: { name: string; root: string }): string[] {
  let text: string;
  try {
    text = readFileSync(memoryFile, 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'EISDIR') return [];
    throw error;
  }
  return selectMemoryLines(text, project);
}

export function selectMemoryLines(text: string, project: { name: string; root: string }): string[] {
  // A name of one or two letters would match too much; only the root folder then.
  const byName = project.name.length >= 3 ? new RegExp(`(?<![\\p{L}\\p{N}_-])${escapeRegExp(project.name)}(?![\\p{L}\\p{N}_-])`, 'iu') : null;
  const lines: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || /^<!--.*-->$/.test(line)) continue;
    const item = line.replace(/^(?:[-*+]|\d+[.)])\s+/, '').trim();
    if (item === '' || /^\(none yet\)$/i.test(item)) continue;
    if (!(byName?.test(item) || (project.root.length > 1 && item.includes(project.root)))) continue;
    if (!lines.includes(item)) lines.push(item);
    if (lines.length >= MAX_MEMORY_LINES) break;
  }
  return lines;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
