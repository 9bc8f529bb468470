/**
 * JSON values as text a person reads and a search finds: `key: value` lines, lists as `- item` lines, nested
 * objects indented. Tool inputs (TodoWrite todos, TaskCreate fields) and JSON tool results (SendMessage's
 * `{"success":true,"message":…}`) would otherwise reach the index as escaped JSON (`[{\"content\":…`), which
 * neither reads nor tokenises well.
 */

/** Output budget shared by one rendering: a huge value costs no more than what is kept of it. */
interface Budget {
  left: number;
}

/**
 * Levels of nesting rendered; deeper values read as `…`. Tool inputs nest a few levels; a transcript line nested
 * thousands deep must not exhaust the stack (every level is a call) nor indent its lines by kilobytes.
 */
export const MAX_RENDER_DEPTH = 24;

/**
 * Lines for a value. Each string is cut at `valueLimit` characters; the whole rendering stops at `totalLimit`
 * characters with a closing `…`. Empty values (null, '', [], {}) are left out of objects.
 */
export function renderReadable(value: unknown, valueLimit: number, totalLimit = valueLimit * 8): string {
  const budget: Budget = { left: totalLimit };
  const lines: string[] = [];
  renderInto(value, '', lines, budget, valueLimit, 0);
  if (budget.left <= 0) lines.push('…');
  return lines.join('\n');
}

function renderInto(value: unknown, indent: string, lines: string[], budget: Budget, limit: number, depth: number): void {
  if (isScalar(value)) {
    emit(lines, budget, `${indent}${scalarText(value, limit)}`);
  } else if (depth >= MAX_RENDER_DEPTH) {
    emit(lines, budget, `${indent}…`);
  } else if (Array.isArray(value)) {
    renderList(value, indent, lines, budget, limit, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    renderObject(value as Record<string, unknown>, indent, lines, budget, limit, depth + 1);
  }
}

function renderObject(
  record: Record<string, unknown>,
  indent: string,
  lines: string[],
  budget: Budget,
  limit: number,
  depth: number,
) {
  for (const [key, value] of Object.entries(record)) {
    if (budget.left <= 0) return;
    if (isEmpty(value)) continue;
    if (isScalar(value)) {
      emit(lines, budget, `${indent}${key}: ${scalarText(value, limit)}`);
    } else if (Array.isArray(value) && value.every(isScalar)) {
      // A short list of names or numbers reads best on one line: `updatedFields: owner, status`.
      emit(lines, budget, `${indent}${key}: ${truncate(value.map((item) => scalarText(item, limit)).join(', '), limit)}`);
    } else {
      emit(lines, budget, `${indent}${key}:`);
      renderInto(value, `${indent}  `, lines, budget, limit, depth);
    }
  }
}

function renderList(items: readonly unknown[], indent: string, lines: string[], budget: Budget, limit: number, depth: number) {
  for (const item of items) {
    if (budget.left <= 0) return;
    if (isEmpty(item)) continue;
    if (isScalar(item)) {
      emit(lines, budget, `${indent}- ${scalarText(item, limit)}`);
      continue;
    }
    // The item's own lines, the first marked as a list item and the rest aligned under it.
    const itemLines: string[] = [];
    renderInto(item, '', itemLines, budget, limit, depth);
    itemLines.forEach((line, index) => lines.push(`${indent}${index === 0 ? '- ' : '  '}${line}`));
  }
}

function emit(lines: string[], budget: Budget, line: string): void {
  if (budget.left <= 0) return;
  lines.push(line);
  budget.left -= line.length + 1;
}

type Scalar = string | number | boolean;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function scalarText(value: Scalar, limit: number): string {
  return truncate(typeof value === 'string' ? value : String(value), limit);
}

function truncate(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/**
 * The value a text holds when the whole text is a JSON object or array (`{"success":true,…}`), else undefined.
 * Only texts that open like JSON are parsed, so prose and command output cost one character check.
 */
export function parseJsonText(text: string): object | undefined {
  const trimmed = text.trim();
  const opens = trimmed.startsWith('{') ? '}' : trimmed.startsWith('[') ? ']' : null;
  if (opens === null || !trimmed.endsWith(opens)) return undefined;
  try {
    const value = JSON.parse(trimmed) as unknown;
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `Links: [{"title":…,"url":…}]`: a label, then JSON to the end of the line (Claude Code WebSearch results). */
const LABELLED_JSON = /^([A-Z][\w ]{0,40}): (?=[[{])/;

/**
 * A text result made readable: a result that is wholly JSON becomes `key: value` lines, and a labelled line
 * holding JSON becomes the label followed by the rendered value. Everything else is kept as written.
 */
export function renderJsonText(text: string, valueLimit: number): string {
  const whole = parseJsonText(text);
  if (whole !== undefined) return renderReadable(whole, valueLimit, Math.max(text.length, valueLimit));
  if (!text.includes(': [') && !text.includes(': {')) return text;
  return text
    .split('\n')
    .map((line) => {
      const label = LABELLED_JSON.exec(line);
      if (!label) return line;
      const value = parseJsonText(line.slice(label[0].length));
      if (value === undefined) return line;
      const body = renderReadable(value, valueLimit, Math.max(line.length, valueLimit));
      return `${label[1]}:\n${body}`;
    })
    .join('\n');
}
