import type { SessionRelative } from '../../time/types.js';
import { COUNT_SOURCE, readCountWord } from './numbers.js';

const MINUTE = 60_000;
/** "2 hours into the session" is said loosely; ±15 minutes matches the ~15–30 minute marker spacing (§3.7). */
const ELAPSED_TOLERANCE_MS = 15 * MINUTE;
/** "At the start of the session" covers the opening exchange, not the first third. */
const OPENING_MS = 10 * MINUTE;

const SESSION = String.raw`(?:the|this|that|a|our)\s+(?:session|conversation|chat)`;

interface SessionPattern {
  pattern: RegExp;
  build: (match: RegExpExecArray) => Omit<SessionRelative, 'label'> | null;
}

const PATTERNS: SessionPattern[] = [
  {
    pattern: new RegExp(String.raw`\b${COUNT_SOURCE}\s+(hours?|hrs?|minutes?|mins?)\s+(?:in|into)\s+${SESSION}\b`, 'i'),
    build: (match) => {
      const count = readCountWord(match[1] ?? '');
      if (count === null) return null;
      const unitMs = /^h/i.test(match[2] ?? '') ? 60 * MINUTE : MINUTE;
      const elapsed = count * unitMs;
      return { fromMs: Math.max(0, elapsed - ELAPSED_TOLERANCE_MS), toMs: elapsed + ELAPSED_TOLERANCE_MS };
    },
  },
  {
    pattern: new RegExp(String.raw`\b(?:at|near|from)\s+the\s+(?:very\s+)?(?:start|beginning|outset)\s+of\s+${SESSION}\b`, 'i'),
    build: () => ({ fromMs: 0, toMs: OPENING_MS }),
  },
  {
    pattern: new RegExp(String.raw`\bearly\s+(?:on\s+)?in\s+${SESSION}\b`, 'i'),
    build: () => ({ fromFraction: 0, toFraction: 1 / 3 }),
  },
  {
    pattern: new RegExp(String.raw`\b(?:midway|halfway|part\s+way)\s+(?:through|into|in)\s+${SESSION}\b|\b(?:in\s+)?the\s+middle\s+of\s+${SESSION}\b`, 'i'),
    build: () => ({ fromFraction: 1 / 3, toFraction: 2 / 3 }),
  },
  {
    pattern: new RegExp(String.raw`\blate\s+(?:on\s+)?in\s+${SESSION}\b|\b(?:at|near|towards?)\s+the\s+(?:very\s+)?end\s+of\s+${SESSION}\b`, 'i'),
    build: () => ({ fromFraction: 2 / 3, toFraction: 1 }),
  },
];

export interface SessionMatch {
  start: number;
  end: number;
  relative: SessionRelative;
}

/** Find the first phrase placing the moment inside a session rather than on the calendar. */
export function findSessionRelative(query: string): SessionMatch | null {
  let best: SessionMatch | null = null;
  for (const { pattern, build } of PATTERNS) {
    const match = pattern.exec(query);
    if (!match || (best !== null && best.start <= match.index)) continue;
    const bounds = build(match);
    if (bounds === null) continue;
    best = { start: match.index, end: match.index + match[0].length, relative: { ...bounds, label: match[0] } };
  }
  return best;
}
