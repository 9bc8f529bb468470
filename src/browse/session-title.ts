/**
 * How a session is named to people, on every door and in the handover: its own title; else the first thing the
 * user asked, quoted, on one line and cut; else `(untitled)`. JSON carries the parts (`title`, null when the
 * session has none, and `first_prompt`) so a program can apply the same rule.
 */
export function describeSessionTitle(title: string | null, firstPrompt: string | null, maxChars: number = PROMPT_SHOWN): string {
  if (title !== null && title.trim() !== '') return title;
  const prompt = (firstPrompt ?? '').replace(/\s+/g, ' ').trim();
  if (prompt === '') return '(untitled)';
  const chars = Array.from(prompt);
  return `"${chars.length > maxChars ? `${chars.slice(0, maxChars - 1).join('').trimEnd()}…` : prompt}"`;
}

/** Characters of a first prompt shown in a listing. */
export const PROMPT_SHOWN = 60;
