/**
 * A unified diff of two texts, line by line, for `--dry-run`. Only the region between the common first and last
 * lines is compared (an install touches one or two places of a file that may be long, like ~/.claude.json).
 */
export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }, context = 3): string {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const ops = diffMiddle(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  const lines: { kind: ' ' | '-' | '+'; text: string }[] = [
    ...a.slice(Math.max(0, head - context), head).map((text) => ({ kind: ' ' as const, text })),
    ...ops,
    ...a.slice(a.length - tail, Math.min(a.length, a.length - tail + context)).map((text) => ({ kind: ' ' as const, text })),
  ];
  const fromStart = Math.max(0, head - context);
  const fromCount = lines.filter((line) => line.kind !== '+').length;
  const toCount = lines.filter((line) => line.kind !== '-').length;
  return [
    `--- ${labels.from}`,
    `+++ ${labels.to}`,
    `@@ -${fromCount === 0 ? fromStart : fromStart + 1},${fromCount} +${toCount === 0 ? fromStart : fromStart + 1},${toCount} @@`,
    ...lines.map((line) => `${line.kind}${line.text}`),
  ].join('\n');
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Longest common subsequence of two short line lists (quadratic; large regions fall back to remove-then-add). */
function diffMiddle(a: string[], b: string[]): { kind: ' ' | '-' | '+'; text: string }[] {
  if (a.length * b.length > 4_000_000) return [...a.map((text) => ({ kind: '-' as const, text })), ...b.map((text) => ({ kind: '+' as const, text }))];
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const out: { kind: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: ' ', text: a[i]! });
      i += 1;
      j += 1;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      out.push({ kind: '-', text: a[i]! });
      i += 1;
    } else {
      out.push({ kind: '+', text: b[j]! });
      j += 1;
    }
  }
  while (i < a.length) out.push({ kind: '-', text: a[i++]! });
  while (j < b.length) out.push({ kind: '+', text: b[j++]! });
  return out;
}
