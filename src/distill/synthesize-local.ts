import { truncateText } from '../project/render.js';
import { basename } from 'node:path';
import { BEGIN, END } from './l1-block.js';
import { MEMORY_MAX_LINES, MEMORY_SECTIONS, type MemorySection, renderMemory } from './memory-file.js';

/**
 * L2 without a model (distill.provider = "local"): moon's own extractive rules turn the day's L1 blocks into
 * MEMORY.md items — what a user said they prefer, what an assistant found the cause of, what was decided, and
 * one line of context per session — each with its provenance, merged into the current file newest first and
 * cut to 240 lines by dropping the oldest items of the longest section.
 */
export interface DailySource {
  path: string;
  text: string;
}

interface Turn {
  role: 'user' | 'assistant';
  text: string;
}

interface Block {
  day: string;
  sessionId: string;
  heading: string;
  project: string | null;
  outcome: string | null;
  turns: Turn[];
}

const PREFERENCE =
  /\b(i (?:prefer|like|love|hate|dislike|want|always|never|usually)\b|i'd rather|i would rather|please (?:always|never|use|don't|do not|keep|avoid|stop)\b|(?:don't|do not|never) (?:use|add|commit|push|run)\b|from now on|going forward|in (?:the )?future\b|my preference)/i;
/** A correction or standing instruction: "Not [vars] — …", "Always …", "… instead of …". */
const DIRECTIVE = /^(?:no|not|never|always|avoid|don't|do not)\b|\b(?:instead of|rather than)\b/i;
const LESSON = /\b(root cause|the cause (?:was|is)|turns out|the fix (?:was|is)|fixed by|the problem (?:was|is)|lesson|gotcha|caveat|watch out|because)\b/i;
const DECISION = /\b(decided|decision|we(?:'ll| will) (?:use|go with|keep|switch|stick)|going with|switch(?:ed)? to|chose|settled on|agreed)\b/i;

const ITEM_CHARS = 240;

export function synthesizeLocally(days: readonly DailySource[], current: Record<MemorySection, readonly string[]> | null): string {
  const fresh: Record<MemorySection, string[]> = { 'Lessons Learned': [], 'User Preferences': [], 'Durable Decisions & Context': [] };
  for (const block of days.flatMap(readBlocks)) {
    const source = `(${block.day}, session ${block.sessionId.slice(0, 8)})`;
    for (const sentence of pickSentences(block.turns, 'user', PREFERENCE, 3, DIRECTIVE)) fresh['User Preferences'].push(`- "${sentence}" ${source}`);
    for (const sentence of pickSentences(block.turns, 'assistant', LESSON, 2)) fresh['Lessons Learned'].push(`- ${sentence} ${source}`);
    for (const sentence of pickSentences(block.turns, 'assistant', DECISION, 2)) fresh['Durable Decisions & Context'].push(`- ${sentence} ${source}`);
    const outcome = block.outcome ? ` — ${truncateText(block.outcome, 160)}` : '';
    fresh['Durable Decisions & Context'].push(`- ${block.project ? `${block.project}: ` : ''}${truncateText(block.heading, 120)}${outcome} ${source}`);
  }
  const merged = {} as Record<MemorySection, string[]>;
  for (const title of MEMORY_SECTIONS) merged[title] = mergeItems(fresh[title], current?.[title] ?? []);
  return trimToLines(merged);
}

function readBlocks(source: DailySource): Block[] {
  const day = /^(\d{4}-\d{2}-\d{2})/.exec(basename(source.path))?.[1] ?? basename(source.path, '.md');
  const blocks: Block[] = [];
  const pattern = new RegExp(`<!-- ${BEGIN}:([^ ]+) -->\\n([\\s\\S]*?)<!-- ${END}:\\1 -->`, 'g');
  for (const match of source.text.matchAll(pattern)) {
    const body = match[2]!;
    const heading = /^## (.+)$/m.exec(body)?.[1] ?? match[1]!;
    const project = /^- Session: `[^`]*` \([^,)]*, project ([^,)]+)/m.exec(body)?.[1] ?? null;
    const outcome = /^- \*\*Outcome:\*\* (.+)$/m.exec(body)?.[1] ?? null;
    const conversation = body.slice(body.indexOf('### Conversation'));
    const turns = [...conversation.matchAll(/^- (?:[^*\n]*?)\*\*(user|assistant)\*\*: (.+)$/gm)].map((turn) => ({
      role: turn[1] as Turn['role'],
      text: turn[2]!,
    }));
    blocks.push({ day, sessionId: match[1]!, heading, project, outcome: outcome === '(no outcome recorded)' ? null : outcome, turns });
  }
  return blocks;
}

function pickSentences(turns: readonly Turn[], role: Turn['role'], cue: RegExp, max: number, also?: RegExp): string[] {
  const picked: string[] = [];
  for (const turn of turns) {
    if (turn.role !== role) continue;
    for (const sentence of turn.text.split(/(?<=[.!?])\s+/)) {
      if (picked.length >= max) return picked;
      if (sentence.length >= 12 && (cue.test(sentence) || also?.test(sentence))) picked.push(truncateText(sentence, ITEM_CHARS));
    }
  }
  return picked;
}

/** New items first, then the current ones not said again; the same words with another provenance are one item. */
function mergeItems(fresh: readonly string[], current: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of [...fresh, ...current]) {
    if (!item.startsWith('- ') || item === '- (none yet)') continue;
    const key = item.replace(/\s*\([^()]*\)\s*$/, '').replace(/[^\p{L}\p{N}]+/gu, ' ').trim().toLowerCase();
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}

function trimToLines(sections: Record<MemorySection, string[]>): string {
  let text = renderMemory(sections);
  while (text.split('\n').length - 1 > MEMORY_MAX_LINES) {
    const longest = MEMORY_SECTIONS.reduce((a, b) => (sections[b].length > sections[a].length ? b : a));
    sections[longest].pop();
    text = renderMemory(sections);
  }
  return text;
}

