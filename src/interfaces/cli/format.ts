import { abbreviateZone, formatLocalIso } from '../../index.js';

/** `1 match`, `2 matches`: the plural is given when it is not just `s` added. */
/** `a, b or c`: choices for a help text. */
export function describeNames(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export { escapeControl } from '../../text/escape-control.js';

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
