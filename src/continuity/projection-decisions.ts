/** The heading the v2 projection gives its decisions (src/project/render.ts). */
const DECISIONS_HEADING = '## Decisions & Outcomes';
/** The line a projection writes for an empty section. */
const NONE = '(none)';

/**
 * The lines of a projection's `## Decisions & Outcomes` section, in order — the session's decisions and outcomes
 * as extractDecisions chose them when the projection was written. Null when the projection has no such section
 * (a v1 projection), so the caller can look elsewhere.
 */
export function readProjectionDecisions(markdown: string): string[] | null {
  return readProjectionDecisionLines(markdown.split(/\r?\n/));
}

/** The same, from the projection's lines (a caller reading other sections splits it once). */
export function readProjectionDecisionLines(lines: readonly string[]): string[] | null {
  const start = lines.findIndex((line) => line.trim() === DECISIONS_HEADING);
  if (start < 0) return null;
  const decisions: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,2} /.test(line)) break;
    const item = /^- (.*)$/.exec(line)?.[1]?.trim();
    if (item && item !== NONE) decisions.push(item);
  }
  return decisions;
}
