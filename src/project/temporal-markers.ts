import type { CompactionAnchor, Entry } from '../model.js';
import { formatPreviousWeekday, toLocalParts } from '../time/format.js';

/**
 * Natural-language temporal markers (seed 000 §3.7). Vector search matches "Saturday night" or "2 hours into
 * session" far better than ISO strings, so the timeline carries these phrases at the session start and end,
 * roughly every 20 minutes of session time, and at compaction boundaries.
 */

export type MarkerKind = 'start' | 'periodic' | 'compaction' | 'end';

export interface TemporalMarker {
  kind: MarkerKind;
  /** Instant the marker describes (epoch ms). */
  ts: number;
  /** Seq of the entry the marker precedes; null = after the last entry. */
  beforeSeq: number | null;
  /** e.g. `[Saturday night] [Early in session] [40 minutes into session]` */
  text: string;
}

export const MARKER_INTERVAL_MINUTES = 20;
const MINUTE_MS = 60_000;

/** Local part of day; night spans 21–05, so it belongs to the day it started on (01:00 Sunday is "Saturday night"). */
export function describeDayPart(ms: number, zone: string): string {
  const { hour, weekday } = toLocalParts(ms, zone);
  if (hour >= 5 && hour < 12) return `${weekday} morning`;
  if (hour >= 12 && hour < 17) return `${weekday} afternoon`;
  if (hour >= 17 && hour < 21) return `${weekday} evening`;
  return `${hour < 5 ? formatPreviousWeekday(ms, zone) : weekday} night`;
}

/** `45 minutes`, `1 hour`, `2 hours 20 minutes` */
export function describeElapsed(minutes: number): string {
  const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
}

/** Thirds of the session's span: gives vague queries ("late in that session") something to match. */
export function describeSessionPhase(elapsedMs: number, spanMs: number): string {
  if (spanMs <= 0 || elapsedMs < spanMs / 3) return 'Early in session';
  if (elapsedMs > (spanMs * 2) / 3) return 'Late in session';
  return 'Midway through session';
}

function compareEntries(a: Entry, b: Entry): number {
  return a.seq - b.seq || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/**
 * Markers for a session, in timeline order. Pure: depends only on entries (by seq), anchors and zone.
 * Periodic markers go before the first entry that crosses a new 20-minute bucket, so a long idle gap yields one
 * marker, not a burst. Entries without a timestamp are skipped for timing but keep their place.
 */
export function computeTemporalMarkers(
  entries: readonly Entry[],
  zone: string,
  anchors: readonly CompactionAnchor[] = [],
): TemporalMarker[] {
  const ordered = [...entries].sort(compareEntries);
  const timed = ordered.filter((e): e is Entry & { ts: number } => e.ts !== null);
  const first = timed[0];
  if (!first) return [];
  const startMs = timed.reduce((min, e) => Math.min(min, e.ts), first.ts);
  const endMs = timed.reduce((max, e) => Math.max(max, e.ts), first.ts);
  const span = endMs - startMs;
  const phrase = (parts: string[]): string => parts.map((p) => `[${p}]`).join(' ');

  const markers: TemporalMarker[] = [];
  markers.push({
    kind: 'start',
    ts: startMs,
    beforeSeq: ordered[0]?.seq ?? null,
    text: phrase([describeDayPart(startMs, zone), 'Session start', 'Early in session']),
  });

  // Compaction markers sit before the first entry recorded after the compaction record (by transcript line).
  const compactions = [...anchors].sort((a, b) => a.line - b.line || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const compactionBefore = new Map<number, CompactionAnchor[]>();
  const trailingCompactions: CompactionAnchor[] = [];
  const findNext = indexFirstAfterLine(ordered);
  for (const anchor of compactions) {
    const next = ordered[findNext(anchor.line)];
    if (!next) trailingCompactions.push(anchor);
    else {
      const before = compactionBefore.get(next.seq);
      if (before) before.push(anchor);
      else compactionBefore.set(next.seq, [anchor]);
    }
  }
  const compactionMarker = (anchor: CompactionAnchor, beforeSeq: number | null, fallbackTs: number): TemporalMarker => {
    const ts = anchor.ts ?? fallbackTs;
    const minutes = Math.max(0, Math.floor((ts - startMs) / MINUTE_MS));
    return {
      kind: 'compaction',
      ts,
      beforeSeq,
      text: phrase([describeDayPart(ts, zone), 'Compaction boundary', `${describeElapsed(minutes)} into session`]),
    };
  };

  let bucket = 0;
  let lastTs = first.ts;
  ordered.forEach((entry, index) => {
    for (const anchor of compactionBefore.get(entry.seq) ?? []) {
      markers.push(compactionMarker(anchor, entry.seq, entry.ts ?? lastTs));
    }
    if (entry.ts === null) return;
    lastTs = entry.ts;
    const entryBucket = Math.floor((entry.ts - startMs) / (MARKER_INTERVAL_MINUTES * MINUTE_MS));
    // The last entry gets the end marker instead, which states the same elapsed time.
    if (index > 0 && index < ordered.length - 1 && entryBucket > bucket) {
      // State the real elapsed time of the entry that crossed the boundary, not the boundary itself.
      const minutes = Math.floor((entry.ts - startMs) / MINUTE_MS);
      markers.push({
        kind: 'periodic',
        ts: entry.ts,
        beforeSeq: entry.seq,
        text: phrase([
          describeDayPart(entry.ts, zone),
          describeSessionPhase(entry.ts - startMs, span),
          `${describeElapsed(minutes)} into session`,
        ]),
      });
    }
    bucket = Math.max(bucket, entryBucket);
  });

  for (const anchor of trailingCompactions) markers.push(compactionMarker(anchor, null, lastTs));
  const totalMinutes = Math.floor(span / MINUTE_MS);
  // A session shorter than a minute has no "late" part; the end marker then only names the day part.
  const endParts = totalMinutes > 0 ? ['Late in session', `${describeElapsed(totalMinutes)} into session`] : [];
  markers.push({
    kind: 'end',
    ts: endMs,
    beforeSeq: null,
    text: phrase([describeDayPart(endMs, zone), 'Session end', ...endParts]),
  });
  return markers;
}

/**
 * For entries in session order, a lookup of the first one whose transcript line is after `line` (its index, or
 * `entries.length`). The running maximum of lines rises exactly where such an entry can first appear, so a
 * binary search over it answers each anchor in log time instead of a scan per anchor.
 */
function indexFirstAfterLine(entries: readonly Entry[]): (line: number) => number {
  const runningMax: number[] = [];
  let max = -Infinity;
  for (const entry of entries) {
    max = Math.max(max, entry.line);
    runningMax.push(max);
  }
  return (line) => {
    let low = 0;
    let high = runningMax.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((runningMax[middle] as number) > line) high = middle;
      else low = middle + 1;
    }
    return low;
  };
}
