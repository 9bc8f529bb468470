import { abbreviateZone, formatLocalIso } from '../../index.js';

/** `1 match`, `2 matches`: the plural is given when it is not just `s` added. */
/** `a, b or c`: choices for a help text. */
export function describeNames(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * Transcript text is untrusted: an escape sequence inside it must not move the cursor, recolour or clear the
 * reader's terminal. Control characters become visible escapes; newlines and tabs are kept unless `oneLine`.
 */
export function escapeControl(text: string, options: { oneLine?: boolean } = {}): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => {
    if (!options.oneLine && (char === '\n' || char === '\t')) return char;
    if (char === '\n') return '\\n';
    if (char === '\t') return '\\t';
    if (char === '\r') return '\\r';
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** `2026-02-22 05:39 AEDT` in the given zone. */
export function formatLocalStamp(ms: number, zone: string, options: { seconds?: boolean } = {}): string {
  const iso = formatLocalIso(ms, zone);
  const time = options.seconds ? iso.slice(11, 19) : iso.slice(11, 16);
  return `${iso.slice(0, 10)} ${time} ${abbreviateZone(ms, zone)}`;
}

/** `2026-02-22 05:39–07:10 AEDT`; the end date is repeated only when it is another day (or another zone name). */
export function formatLocalRange(startMs: number | null, endMs: number | null, zone: string): string {
  if (startMs === null && endMs === null) return '(no time)';
  if (startMs === null || endMs === null || endMs === startMs) return formatLocalStamp((startMs ?? endMs)!, zone);
  const start = formatLocalStamp(startMs, zone);
  const end = formatLocalStamp(endMs, zone);
  if (start.slice(0, 10) === end.slice(0, 10) && start.slice(17) === end.slice(17)) {
    return `${start.slice(0, 16)}–${end.slice(11)}`;
  }
  return `${start} – ${end}`;
}
