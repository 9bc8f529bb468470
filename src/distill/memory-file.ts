/**
 * MEMORY.md (L2): exactly three sections, in this order, at most 240 lines. Checked before any rewrite — a model
 * answer that is not this shape is rejected and the old file kept (issue: L2 synthesis).
 */
export const MEMORY_SECTIONS = ['Lessons Learned', 'User Preferences', 'Durable Decisions & Context'] as const;
export type MemorySection = (typeof MEMORY_SECTIONS)[number];
export const MEMORY_MAX_LINES = 240;

export type MemoryCheck = { ok: true; text: string; sections: Record<MemorySection, string[]> } | { ok: false; reason: string };

/** Validate (and tidy: one surrounding ```markdown fence removed, trailing blanks trimmed) a candidate MEMORY.md. */
export function checkMemoryText(candidate: string): MemoryCheck {
  let text = candidate.replace(/\r\n?/g, '\n').trim();
  const fenced = /^```(?:markdown|md)?\n([\s\S]*)\n```$/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  if (text === '') return { ok: false, reason: 'the answer is empty' };
  if (/^[[{]/.test(text)) return { ok: false, reason: 'the answer is JSON, not markdown' };
  if (/^<[a-zA-Z!]/.test(text)) return { ok: false, reason: 'the answer is HTML, not markdown' };
  const lines = text.split('\n');
  if (lines.length > MEMORY_MAX_LINES) return { ok: false, reason: `the answer has ${lines.length} lines (at most ${MEMORY_MAX_LINES})` };
  const headings = lines.flatMap((line, index) => (/^##\s+\S/.test(line) && !line.startsWith('###') ? [{ title: line.replace(/^##\s+/, '').trim(), index }] : []));
  const titles = headings.map((heading) => heading.title);
  if (titles.length !== MEMORY_SECTIONS.length || titles.some((title, index) => title.toLowerCase() !== MEMORY_SECTIONS[index]!.toLowerCase())) {
    return {
      ok: false,
      reason: `the answer's sections are ${titles.length === 0 ? 'missing' : titles.map((title) => `"${title}"`).join(', ')}; expected exactly ${MEMORY_SECTIONS.map((title) => `"${title}"`).join(', ')} in that order`,
    };
  }
  const preamble = lines.slice(0, headings[0]!.index).filter((line) => line.trim() !== '');
  if (preamble.some((line) => !/^#\s/.test(line) && !/^<!--.*-->$/.test(line.trim()))) {
    return { ok: false, reason: 'the answer has text before its first section' };
  }
  const sections = {} as Record<MemorySection, string[]>;
  headings.forEach((heading, index) => {
    const end = headings[index + 1]?.index ?? lines.length;
    sections[MEMORY_SECTIONS[index]!] = lines.slice(heading.index + 1, end).filter((line) => line.trim() !== '');
  });
  return { ok: true, text: `${text}\n`, sections };
}

/** Render sections as MEMORY.md; an empty section says so. */
export function renderMemory(sections: Record<MemorySection, readonly string[]>): string {
  const parts = ['# MEMORY', ''];
  for (const title of MEMORY_SECTIONS) {
    const items = sections[title];
    parts.push(`## ${title}`, '', ...(items.length > 0 ? items : ['- (none yet)']), '');
  }
  return `${parts.join('\n').trimEnd()}\n`;
}
