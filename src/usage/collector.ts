import type { UsageReading } from './snapshot.js';
import type { TailVisit } from './tail.js';

/**
 * One format's way of finding the latest usage: it is shown the transcript's records newest first and keeps what
 * it needs. Pure — the file is read by the caller.
 */
export interface UsageCollector {
  /** Byte strings every record it cares about contains; other lines are not even parsed. */
  readonly mustContain: readonly string[];
  visit(record: unknown): TailVisit;
  /** Whether records further back could still give it what it lacks (read on only while no usage is found). */
  wantsMore(): boolean;
  result(): UsageReading | null;
}

/** A token count as transcripts write it: a finite number of zero or more, anything else counts nothing. */
export function countTokens(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
