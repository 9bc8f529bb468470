import type { PromptText } from './prompt-text.js';
import { sliceHead, sliceTail } from '../text/limits.js';

/**
 * How prompts read as text: one turn per prompt (its header, what was asked, what came back). Token counts are
 * taken over exactly this text, and a segment's content — what a summariser reads — is its turns in order,
 * after the context turns of an overlap.
 */
export function renderTurn(prompt: PromptText): string {
  const title = prompt.title ? ` · ${oneLine(prompt.title)}` : '';
  const response = prompt.response === null ? '[no response]' : `[response]\n${prompt.response.content}`;
  return `[prompt ${prompt.id} · ${formatTime(prompt.timestamp)}${title}]\n${prompt.content}\n${response}\n`;
}

/** Roughly four characters a token: how a token budget becomes a character budget for text that is cut. */
export const CHARS_PER_TOKEN = 4;

export interface SegmentText {
  promptIds: readonly string[];
  overlapPromptIds: readonly string[];
}

/**
 * A segment's content: the overlap's turns (their last `overlapTokens × 4` characters) marked as context, then
 * the segment's own turns. Over `maxChars`, the middle is left out and the cut says how much.
 */
export function renderSegmentContent(
  segment: SegmentText,
  promptsById: ReadonlyMap<string, PromptText>,
  options: { overlapTokens: number; maxChars: number },
): string {
  const parts: string[] = [];
  if (segment.overlapPromptIds.length > 0 && options.overlapTokens > 0) {
    const context = segment.overlapPromptIds.map((id) => promptsById.get(id)).filter((prompt): prompt is PromptText => prompt !== undefined).map(renderTurn).join('\n');
    const budget = options.overlapTokens * CHARS_PER_TOKEN;
    const cut = context.length > budget ? `…${sliceTail(context, budget)}` : context;
    parts.push(`[context: the turns before this segment, in the same conversation]\n${cut}\n[end of context]\n`);
  }
  for (const id of segment.promptIds) {
    const prompt = promptsById.get(id);
    if (prompt) parts.push(renderTurn(prompt));
  }
  const text = parts.join('\n');
  if (text.length <= options.maxChars) return text;
  const half = Math.max(1, Math.floor(options.maxChars / 2));
  return `${sliceHead(text, half)}\n[… ${text.length - 2 * half} characters left out …]\n${sliceTail(text, half)}`;
}

export function formatTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}
