/** Shared shapes for the recall time-query parser. Every instant is epoch milliseconds (UTC). */

export interface TimeWindow {
  startMs: number;
  endMs: number; // exclusive
  label: string;
}

/** A moment placed inside a session rather than on the calendar; ms are offsets from the session's start. */
export interface SessionRelative {
  fromMs?: number;
  toMs?: number;
  fromFraction?: number;
  toFraction?: number;
  label: string;
}

/**
 * A time of day on any day ("05:39 AEDT", "between 2pm and 4pm", "after 3pm"): the same local span of every
 * day in `zone`, most recent occurrence first. Milliseconds after local midnight; `fromMs` may be negative and
 * `toMs` may pass 24 h when the span crosses midnight ("00:05" ± 15 min, "10pm to 2am").
 */
export interface DailyWindow {
  zone: string;
  fromMs: number;
  toMs: number;
  label: string;
}

export interface TimeQuery {
  /** Union of absolute windows; [] when the query names no absolute time. */
  windows: TimeWindow[];
  /** Times of day with no date; together with `windows` they form one union. */
  daily: DailyWindow[];
  sessionRelative: SessionRelative | null;
  /** The query without the words that only carried time. */
  text: string;
  /** The time expressions recognised, as written. */
  expressions: string[];
}

export interface LocalDate {
  year: number;
  month: number; // 1-12
  day: number;
}

export type DayPart = 'morning' | 'afternoon' | 'evening' | 'night';

/** A clock time as written; `minutePrecise` is false for "3pm"/"noon", which get a wider tolerance. */
export interface Clock {
  hour: number;
  minute: number;
  second: number;
  minutePrecise: boolean;
}

/**
 * One recognised fragment of the query. Fragments next to each other ("yesterday" + "at 3pm" + "PST")
 * are later merged into one expression, so each field is independent and optional.
 */
export interface Atom {
  start: number;
  end: number;
  day?: LocalDate;
  /** A bare weekday name yields to an explicit date next to it ("Saturday, 21 Feb 2026"). */
  weakDay?: boolean;
  dayEnd?: LocalDate;
  month?: { year: number; month: number };
  clock?: Clock;
  clockEnd?: Clock;
  part?: DayPart;
  /** Bare "morning"/"night" only counts when a day sits next to it ("Saturday morning"). */
  partNeedsDay?: boolean;
  /** IANA name or luxon fixed-offset name ("UTC+11"), from a zone written after a clock time. */
  zone?: string;
  /** Only meaningful next to a clock time; a lone "UTC" is topic text. */
  zoneOnly?: boolean;
  /** Already absolute: "last week", "2 hours ago", ISO date-times with an offset. */
  windows?: TimeWindow[];
}

export interface ParseContext {
  nowMs: number;
  zone: string;
}
