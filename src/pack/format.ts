import { frameHistory } from '../inject/safe-text.js';
import type { ContextPack, PackSection } from './types.js';

/** Item texts are already made safe (makeSafeText); lines are folded so one item's text cannot forge another's header. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}

/**
 * The pack as text, for a person or an agent's context: a line saying what it is, then — inside the
 * `<moon-history>` frame every agent-facing output has — sections in order, each item with its source, kind,
 * trust and recency; then what was left out and why. Headings and sources add a few tokens beyond used_tokens
 * (which counts item texts).
 */
export const TITLES: Record<PackSection, string> = { planning: 'Planning', history: 'History', long_term: 'Long-term memory', documents: 'Documents' };

export function formatPack(pack: ContextPack): string {
  const clean = (text: string): string => oneLine(text);
  const head = `Context pack for ${clean(pack.namespace_id ?? 'every namespace')}: ${pack.used_tokens}/${pack.budget} tokens, ${pack.items.length} items`;
  const lines: string[] = [];
  for (const section of Object.keys(TITLES) as PackSection[]) {
    const items = pack.items.filter((item) => item.section === section);
    if (items.length === 0) continue;
    if (lines.length > 0) lines.push('');
    lines.push(`## ${TITLES[section]}`);
    for (const item of items) {
      lines.push(`- [${clean(item.source)}] (${item.record_kind}, ${item.trust_class}${item.recency ? `, ${item.recency}` : ''})`);
      for (const line of item.text.split('\n')) lines.push(`  ${oneLine(line)}`);
    }
  }
  const omitted = pack.omitted.map((omission) => `- ${omission.subsystem}: ${omission.reason}${omission.detail ? ` (${clean(omission.detail)})` : ''}`);
  return [head, ...(lines.length > 0 ? [frameHistory(lines.join('\n'))] : []), ...(omitted.length > 0 ? ['', 'Omitted:', ...omitted] : [])].join('\n');
}

