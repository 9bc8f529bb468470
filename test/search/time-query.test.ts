import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseTimeQuery, resolveZoneName, type TimeWindow, toDailyFilters } from '../../src/search/time-query.js';

// Monday 2026-04-06 10:00 in Sydney, the day after DST ended there (Sunday 03:00 AEDT became 02:00 AEST).
const SYDNEY = { nowMs: Date.parse('2026-04-06T10:00:00+10:00'), zone: 'Australia/Sydney' };
// Sunday 2026-03-08 22:30 in Los Angeles, the evening of the US DST start (02:00 PST became 03:00 PDT).
const LOS_ANGELES = { nowMs: Date.parse('2026-03-08T22:30:00-07:00'), zone: 'America/Los_Angeles' };

type Span = [string, string];

const toSpan = (window: TimeWindow): Span => [new Date(window.startMs).toISOString(), new Date(window.endMs).toISOString()];
const DAY = 86_400_000;

/**
 * A time of day with no date becomes daily filters over the history; these are its occurrences on the last
 * `days` local days (today included) that have started, newest first — computed from the filters the store receives, so the
 * DST behaviour asserted below is what SQL applies.
 */
function listOccurrences(query: string, options: { nowMs: number; zone: string }, days: number): TimeWindow[] {
  const found: TimeWindow[] = [];
  for (const daily of parseTimeQuery(query, options).daily) {
    for (const filter of toDailyFilters(daily, { startMs: options.nowMs - (days + 2) * DAY, endMs: options.nowMs })) {
      const length = (filter.toMs - filter.fromMs + DAY) % DAY || DAY;
      const today = Math.floor((options.nowMs + filter.offsetMs) / DAY);
      for (let back = 0; back < days; back += 1) {
        const startMs = (today - back) * DAY + filter.fromMs - filter.offsetMs;
        if (startMs >= filter.startMs && startMs < filter.endMs && startMs < options.nowMs) {
          found.push({ startMs, endMs: startMs + length, label: daily.label });
        }
      }
    }
  }
  return found.sort((a, b) => b.startMs - a.startMs);
}

const spans = (query: string, options = SYDNEY): Span[] => {
  const result = parseTimeQuery(query, options);
  return [...result.windows.map(toSpan), ...listOccurrences(query, options, 30).map(toSpan)];
};
const span = (start: string, end: string): Span => [new Date(start).toISOString(), new Date(end).toISOString()];

describe('resolveZoneName', () => {
  const beforeDstEnd = Date.parse('2026-04-04T00:00:00Z');

  it('gives abbreviations a fixed offset whatever the date', () => {
    expect(resolveZoneName('AEDT', SYDNEY.nowMs)).toEqual({ zone: 'UTC+11', offsetMinutes: 660 });
    expect(resolveZoneName('aest', beforeDstEnd)).toEqual({ zone: 'UTC+10', offsetMinutes: 600 });
    expect(resolveZoneName('IST', SYDNEY.nowMs)).toEqual({ zone: 'UTC+5:30', offsetMinutes: 330 });
    expect(resolveZoneName('PST', LOS_ANGELES.nowMs)).toEqual({ zone: 'UTC-8', offsetMinutes: -480 });
    expect(resolveZoneName('BST', SYDNEY.nowMs)?.offsetMinutes).toBe(60);
    expect(resolveZoneName('Z', SYDNEY.nowMs)).toEqual({ zone: 'UTC', offsetMinutes: 0 });
    expect(resolveZoneName('UTC+11', SYDNEY.nowMs)).toEqual({ zone: 'UTC+11', offsetMinutes: 660 });
  });

  it('gives IANA names their real offset at the instant', () => {
    expect(resolveZoneName('Australia/Sydney', beforeDstEnd)).toEqual({ zone: 'Australia/Sydney', offsetMinutes: 660 });
    expect(resolveZoneName('Australia/Sydney', SYDNEY.nowMs)).toEqual({ zone: 'Australia/Sydney', offsetMinutes: 600 });
    expect(resolveZoneName('europe/london', SYDNEY.nowMs)).toEqual({ zone: 'Europe/London', offsetMinutes: 60 });
    expect(resolveZoneName('Europe/London', Date.parse('2026-01-10T00:00:00Z'))?.offsetMinutes).toBe(0);
  });

  it('rejects unknown names', () => {
    expect(resolveZoneName('Mars/Olympus_Mons', SYDNEY.nowMs)).toBeNull();
    expect(resolveZoneName('XYZT', SYDNEY.nowMs)).toBeNull();
  });
});

describe('clock times with no date: that time on any day, newest first (checked on the last 30 days)', () => {
  it('AEDT stays +11 after Sydney left DST; the IANA name follows the change', () => {
    const aedt = spans('05:39 AEDT');
    expect(aedt).toHaveLength(30);
    expect(aedt[0]).toEqual(span('2026-04-05T18:24:00Z', '2026-04-05T18:54:00Z')); // Mon 05:39 +11
    expect(aedt[1]).toEqual(span('2026-04-04T18:24:00Z', '2026-04-04T18:54:00Z')); // Sun 05:39 +11
    expect(aedt[29]).toEqual(span('2026-03-07T18:24:00Z', '2026-03-07T18:54:00Z'));

    const sydney = spans('05:39 Australia/Sydney');
    expect(sydney[0]).toEqual(span('2026-04-05T19:24:00Z', '2026-04-05T19:54:00Z')); // Mon 05:39 AEST
    expect(sydney[1]).toEqual(span('2026-04-04T19:24:00Z', '2026-04-04T19:54:00Z')); // Sun 05:39, already AEST
    expect(sydney[2]).toEqual(span('2026-04-03T18:24:00Z', '2026-04-03T18:54:00Z')); // Sat 05:39 AEDT

    const aest = spans('5:39am AEST');
    expect(aest[2]).toEqual(span('2026-04-03T19:24:00Z', '2026-04-03T19:54:00Z')); // AEST even on an AEDT day
  });

  it('uses the query zone when none is written', () => {
    const local = spans('at 05:39');
    expect(local[0]).toEqual(span('2026-04-05T19:24:00Z', '2026-04-05T19:54:00Z'));
    expect(local[2]).toEqual(span('2026-04-03T18:24:00Z', '2026-04-03T18:54:00Z'));
  });

  it('widens an hour-precise time to ±30 minutes and counts days in the written zone', () => {
    const pst = spans('3pm PST');
    expect(pst).toHaveLength(30);
    expect(pst[0]).toEqual(span('2026-04-05T22:30:00Z', '2026-04-05T23:30:00Z')); // Sun 15:00 -08
  });

  it('keeps only windows that have started', () => {
    const utc = spans('18:39 UTC');
    expect(utc).toHaveLength(29); // today's 18:39 UTC is still ahead
    expect(utc[0]).toEqual(span('2026-04-05T18:24:00Z', '2026-04-05T18:54:00Z'));

    const london = spans('09:00 Europe/London');
    expect(london[0]).toEqual(span('2026-04-05T07:45:00Z', '2026-04-05T08:15:00Z')); // BST
    expect(london[8]).toEqual(span('2026-03-28T08:45:00Z', '2026-03-28T09:15:00Z')); // GMT, before 29 March

    const la = spans('10pm America/Los_Angeles');
    expect(la[0]).toEqual(span('2026-04-05T04:30:00Z', '2026-04-05T05:30:00Z')); // Sat 22:00 PDT
  });

  it('reads offsets, Z and bracketed abbreviations', () => {
    expect(spans('18:39Z')[0]).toEqual(span('2026-04-05T18:24:00Z', '2026-04-05T18:54:00Z'));
    expect(spans('5pm UTC+11')[0]).toEqual(span('2026-04-05T05:30:00Z', '2026-04-05T06:30:00Z'));
    expect(spans('05:39 (AEDT) on 21 Feb')).toEqual([span('2026-02-20T18:24:00Z', '2026-02-20T18:54:00Z')]);
  });

  it('strips the time and its connective from the text', () => {
    const result = parseTimeQuery('what happened at 05:39 AEDT?', SYDNEY);
    expect(result.text).toBe('what happened?');
    expect(result.expressions).toEqual(['05:39 AEDT']);
    expect(parseTimeQuery('05:39 AEDT', SYDNEY).text).toBe('');
  });
});

describe('clock times with a date: one window around that moment', () => {
  it('reads day words and explicit dates next to the time', () => {
    expect(spans('at 3pm yesterday')).toEqual([span('2026-04-05T04:30:00Z', '2026-04-05T05:30:00Z')]);
    expect(spans('noon yesterday')).toEqual([span('2026-04-05T01:30:00Z', '2026-04-05T02:30:00Z')]);
    expect(spans('on 2026-02-21 at 05:39')).toEqual([span('2026-02-20T18:24:00Z', '2026-02-20T18:54:00Z')]);
    expect(spans('Saturday 5:39am')).toEqual([span('2026-04-03T18:24:00Z', '2026-04-03T18:54:00Z')]);
    expect(spans('what happened at 05:39 AEDT on Saturday?')).toEqual([span('2026-04-03T18:24:00Z', '2026-04-03T18:54:00Z')]);
    expect(spans('5:39am AEST on Saturday')).toEqual([span('2026-04-03T19:24:00Z', '2026-04-03T19:54:00Z')]);
  });

  it('reads ISO date-times, with or without an offset', () => {
    expect(spans('2026-02-21T18:39:00Z')).toEqual([span('2026-02-21T18:24:00Z', '2026-02-21T18:54:00Z')]);
    expect(spans('2026-02-21T18:39:00+11:00')).toEqual([span('2026-02-21T07:24:00Z', '2026-02-21T07:54:00Z')]);
    expect(spans('2026-02-21T05:39')).toEqual([span('2026-02-20T18:24:00Z', '2026-02-20T18:54:00Z')]);
  });

  it('handles the DST edges: a repeated hour takes its first pass, a skipped one moves forward', () => {
    expect(spans('Sunday at 2:30am')).toEqual([span('2026-04-04T15:15:00Z', '2026-04-04T15:45:00Z')]); // 02:30 AEDT
    expect(spans('at 2:30am today', LOS_ANGELES)).toEqual([span('2026-03-08T10:15:00Z', '2026-03-08T10:45:00Z')]); // 03:30 PDT
  });

  it('keeps an abbreviation fixed but lets the IANA zone follow DST', () => {
    expect(spans('3pm PST yesterday', LOS_ANGELES)).toEqual([span('2026-03-07T22:30:00Z', '2026-03-07T23:30:00Z')]);
    expect(spans('3pm PDT yesterday', LOS_ANGELES)).toEqual([span('2026-03-07T21:30:00Z', '2026-03-07T22:30:00Z')]);
    expect(spans('3pm PST', LOS_ANGELES)[0]).toEqual(span('2026-03-08T22:30:00Z', '2026-03-08T23:30:00Z'));
    const local = spans('3pm America/Los_Angeles', LOS_ANGELES);
    expect(local[0]).toEqual(span('2026-03-08T21:30:00Z', '2026-03-08T22:30:00Z')); // PDT today
    expect(local[1]).toEqual(span('2026-03-07T22:30:00Z', '2026-03-07T23:30:00Z')); // PST yesterday
  });
});

describe('days and parts of the day', () => {
  it('spans whole local days, 25 hours long on the DST change', () => {
    expect(spans('yesterday')).toEqual([span('2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z')]);
    expect(spans('today')).toEqual([span('2026-04-05T14:00:00Z', '2026-04-06T14:00:00Z')]);
    expect(spans('the day before yesterday')).toEqual([span('2026-04-03T13:00:00Z', '2026-04-04T13:00:00Z')]);
    expect(spans('yesterday', LOS_ANGELES)).toEqual([span('2026-03-07T08:00:00Z', '2026-03-08T08:00:00Z')]);
    expect(spans('today', LOS_ANGELES)).toEqual([span('2026-03-08T08:00:00Z', '2026-03-09T07:00:00Z')]); // 23 h
  });

  it('takes the most recent past weekday', () => {
    const saturday = span('2026-04-03T13:00:00Z', '2026-04-04T13:00:00Z');
    expect(spans('Saturday')).toEqual([saturday]);
    expect(spans('last Saturday')).toEqual([saturday]);
    expect(spans('Monday')).toEqual([span('2026-04-05T14:00:00Z', '2026-04-06T14:00:00Z')]); // today
    expect(spans('last Monday')).toEqual([span('2026-03-29T13:00:00Z', '2026-03-30T13:00:00Z')]);
  });

  it('maps parts of the day onto local hours', () => {
    expect(spans('last Saturday morning')).toEqual([span('2026-04-03T18:00:00Z', '2026-04-04T01:00:00Z')]);
    expect(spans('this morning')).toEqual([span('2026-04-05T19:00:00Z', '2026-04-06T02:00:00Z')]);
    expect(spans('yesterday evening')).toEqual([span('2026-04-05T07:00:00Z', '2026-04-05T11:00:00Z')]);
    expect(spans('yesterday afternoon')).toEqual([span('2026-04-05T02:00:00Z', '2026-04-05T07:00:00Z')]);
    expect(spans('Saturday night')).toEqual([span('2026-04-04T10:00:00Z', '2026-04-04T19:00:00Z')]); // 9 h, DST
    expect(spans('last night')).toEqual([span('2026-04-05T11:00:00Z', '2026-04-05T19:00:00Z')]);
    expect(spans('last night', LOS_ANGELES)).toEqual([span('2026-03-08T05:00:00Z', '2026-03-08T12:00:00Z')]); // 7 h
    expect(spans('this morning', LOS_ANGELES)).toEqual([span('2026-03-08T12:00:00Z', '2026-03-08T19:00:00Z')]);
    expect(spans('tonight', LOS_ANGELES)).toEqual([span('2026-03-09T04:00:00Z', '2026-03-09T12:00:00Z')]);
  });

  it('repeats a part with no day over the last 30 days', () => {
    const mornings = spans('in the morning');
    expect(mornings).toHaveLength(30);
    expect(mornings.slice(0, 3)).toEqual([
      span('2026-04-05T19:00:00Z', '2026-04-06T02:00:00Z'),
      span('2026-04-04T19:00:00Z', '2026-04-05T02:00:00Z'),
      span('2026-04-03T18:00:00Z', '2026-04-04T01:00:00Z'),
    ]);
    const nights = spans('at night');
    expect(nights).toHaveLength(29); // tonight has not started at 10:00
    expect(nights[0]).toEqual(span('2026-04-05T11:00:00Z', '2026-04-05T19:00:00Z'));
  });
});

describe('ranges', () => {
  it('reads calendar weeks and months', () => {
    expect(spans('last week')).toEqual([span('2026-03-29T13:00:00Z', '2026-04-05T14:00:00Z')]);
    expect(spans('this week')).toEqual([span('2026-04-05T14:00:00Z', '2026-04-12T14:00:00Z')]);
    expect(spans('last month')).toEqual([span('2026-02-28T13:00:00Z', '2026-03-31T13:00:00Z')]);
    expect(spans('last week', LOS_ANGELES)).toEqual([span('2026-02-23T08:00:00Z', '2026-03-02T08:00:00Z')]);
    expect(spans('this week', LOS_ANGELES)).toEqual([span('2026-03-02T08:00:00Z', '2026-03-09T07:00:00Z')]);
  });

  it('takes the latest month that has started', () => {
    const march = span('2026-02-28T13:00:00Z', '2026-03-31T13:00:00Z');
    expect(spans('in March')).toEqual([march]);
    expect(spans('March')).toEqual([march]);
    expect(spans('March madness bracket')).toEqual([march]);
    expect(spans('in March 2025')).toEqual([span('2025-02-28T13:00:00Z', '2025-03-31T13:00:00Z')]);
    expect(spans('in May')).toEqual([span('2025-04-30T14:00:00Z', '2025-05-31T14:00:00Z')]);
    expect(spans('in March', LOS_ANGELES)).toEqual([span('2026-03-01T08:00:00Z', '2026-04-01T07:00:00Z')]);
  });

  it('reads whole dates', () => {
    const day = span('2026-02-20T13:00:00Z', '2026-02-21T13:00:00Z');
    expect(spans('2026-02-21')).toEqual([day]);
    expect(spans('21 Feb 2026')).toEqual([day]);
    expect(spans('Feb 21')).toEqual([day]);
    expect(spans('Saturday, 21 February 2026')).toEqual([day]);
    expect(spans('Dec 25')).toEqual([span('2025-12-24T13:00:00Z', '2025-12-25T13:00:00Z')]);
  });

  it('reads clock ranges exactly, on a day or on each recent day', () => {
    const afternoon = span('2026-04-05T04:00:00Z', '2026-04-05T06:00:00Z');
    expect(spans('between 2pm and 4pm yesterday')).toEqual([afternoon]);
    expect(spans('yesterday between 2pm and 4pm')).toEqual([afternoon]);
    expect(spans('2pm-4pm yesterday')).toEqual([afternoon]);
    expect(spans('from 9am until 5pm AEST yesterday')).toEqual([span('2026-04-04T23:00:00Z', '2026-04-05T07:00:00Z')]);
    expect(spans('between 10pm and 2am on Saturday')).toEqual([span('2026-04-04T11:00:00Z', '2026-04-04T15:00:00Z')]);
    const daily = spans('between 2pm and 4pm');
    expect(daily).toHaveLength(29);
    expect(daily[1]).toEqual(span('2026-04-04T03:00:00Z', '2026-04-04T05:00:00Z')); // AEDT
  });

  it('reads since, after and before', () => {
    const now = '2026-04-06T00:00:00Z';
    expect(spans('since Monday')).toEqual([span('2026-04-05T14:00:00Z', now)]); // Monday is today
    expect(spans('since Saturday')).toEqual([span('2026-04-03T13:00:00Z', now)]);
    expect(spans('since Monday', LOS_ANGELES)).toEqual([span('2026-03-02T08:00:00Z', '2026-03-09T05:30:00Z')]);
    expect(spans('since 3pm')).toEqual([span('2026-04-05T05:00:00Z', now)]); // yesterday's: today's is ahead
    expect(spans('after 3pm yesterday')).toEqual([span('2026-04-05T05:00:00Z', '2026-04-05T14:00:00Z')]);
    expect(spans('Saturday before noon')).toEqual([span('2026-04-03T13:00:00Z', '2026-04-04T01:00:00Z')]);
  });

  it('reads "ago", rolling spans and weekends', () => {
    expect(spans('3 days ago')).toEqual([span('2026-04-02T13:00:00Z', '2026-04-03T13:00:00Z')]);
    expect(spans('2 hours ago')).toEqual([span('2026-04-05T21:30:00Z', '2026-04-05T22:30:00Z')]);
    expect(spans('two hours ago', LOS_ANGELES)).toEqual([span('2026-03-09T03:00:00Z', '2026-03-09T04:00:00Z')]);
    expect(spans('in the last 2 hours')).toEqual([span('2026-04-05T22:00:00Z', '2026-04-06T00:00:00Z')]);
    const weekend = span('2026-04-03T13:00:00Z', '2026-04-05T14:00:00Z');
    expect(spans('over the weekend')).toEqual([weekend]);
    expect(spans('last weekend')).toEqual([weekend]);
    // On a Sunday "the weekend" is this one, "last weekend" the one before.
    expect(spans('over the weekend', LOS_ANGELES)).toEqual([span('2026-03-07T08:00:00Z', '2026-03-09T07:00:00Z')]);
    expect(spans('last weekend', LOS_ANGELES)).toEqual([span('2026-02-28T08:00:00Z', '2026-03-02T08:00:00Z')]);
  });

  it('keeps separate expressions as a union', () => {
    const result = parseTimeQuery('auth bug yesterday, and the deploy last week', SYDNEY);
    expect(result.windows.map(toSpan)).toEqual([
      span('2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z'),
      span('2026-03-29T13:00:00Z', '2026-04-05T14:00:00Z'),
    ]);
    expect(result.expressions).toEqual(['yesterday', 'last week']);
    expect(result.text).toBe('auth bug, and the deploy');
  });
});

describe('session-relative phrases', () => {
  const MIN = 60_000;
  const relative = (query: string) => parseTimeQuery(query, SYDNEY).sessionRelative;

  it('reads elapsed time ±15 minutes', () => {
    expect(relative('2 hours into the session')).toEqual({ fromMs: 105 * MIN, toMs: 135 * MIN, label: '2 hours into the session' });
    expect(relative('90 minutes into the session')).toMatchObject({ fromMs: 75 * MIN, toMs: 105 * MIN });
    expect(relative('an hour into the session')).toMatchObject({ fromMs: 45 * MIN, toMs: 75 * MIN });
  });

  it('reads phases as fractions and the start as the first 10 minutes', () => {
    expect(relative('early in the session')).toMatchObject({ fromFraction: 0, toFraction: 1 / 3 });
    expect(relative('midway through the session')).toMatchObject({ fromFraction: 1 / 3, toFraction: 2 / 3 });
    expect(relative('in the middle of the session')).toMatchObject({ fromFraction: 1 / 3, toFraction: 2 / 3 });
    expect(relative('late in the session')).toMatchObject({ fromFraction: 2 / 3, toFraction: 1 });
    expect(relative('at the end of the session')).toMatchObject({ fromFraction: 2 / 3, toFraction: 1 });
    expect(relative('at the start of the session')).toMatchObject({ fromMs: 0, toMs: 10 * MIN });
  });

  it('leaves the calendar alone and strips the phrase', () => {
    const result = parseTimeQuery('what did we try 2 hours into the session about auth', SYDNEY);
    expect(result.windows).toEqual([]);
    expect(result.text).toBe('what did we try about auth');
    expect(result.expressions).toEqual(['2 hours into the session']);
    const both = parseTimeQuery('late in the session yesterday', SYDNEY);
    expect(both.windows.map(toSpan)).toEqual([span('2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z')]);
    expect(both.sessionRelative).toMatchObject({ fromFraction: 2 / 3 });
    expect(both.text).toBe('');
  });
});

describe('text stripping', () => {
  it.each([
    ['what did we decide about wrangler last Saturday morning', 'what did we decide about wrangler'],
    ['what did we decide about wrangler on Saturday morning?', 'what did we decide about wrangler?'],
    ['what happened at 05:39 AEDT?', 'what happened?'],
    ['wrangler deploy errors in March', 'wrangler deploy errors'],
    ['the migration we discussed on the 21st of February', 'the migration we discussed'],
    ['fix auth since 3pm AEST, see log', 'fix auth, see log'],
    ['what did we do during the weekend', 'what did we do'],
    ['what did we talk about (yesterday)', 'what did we talk about'],
  ])('%s → %s', (query, text) => {
    expect(parseTimeQuery(query, SYDNEY).text).toBe(text);
  });

  it('reports the expressions as written', () => {
    expect(parseTimeQuery('wrangler between 2pm and 4pm yesterday', SYDNEY).expressions).toEqual(['between 2pm and 4pm yesterday']);
    expect(parseTimeQuery('deploys since Monday', SYDNEY).expressions).toEqual(['since Monday']);
  });
});

describe('not times', () => {
  it.each([
    'bump to v1.2',
    'upgrade to 3.0.21',
    'open 2026-report.md',
    'open 2026-02-21.md',
    'report-2026-02-21',
    'we may need a migration',
    'May we deploy?',
    'second attempt at the fix',
    'the build took 5 minutes',
    'port 8080',
    'localhost:8080',
    'it works now',
    'fix the auth bug',
    'file.ts:12:30 error',
    'error at line 10:30',
    '1/2 of the tests failed',
    'python 3.12 on node 20',
    'the sun rose',
    'we sat down',
    'march forward',
    'good morning',
    'the weekend job',
    'monday.com integration',
    'git log --since=yesterday',
    'convert AEDT to UTC',
    'Europe/London timezone handling',
    'deploy at 10',
    'version 12.5.2025',
    'the last 5 minutes of the session',
  ])('%s', (query) => {
    const result = parseTimeQuery(query, SYDNEY);
    expect(result.windows).toEqual([]);
    expect(result.sessionRelative).toBeNull();
    expect(result.text).toBe(query);
    expect(result.expressions).toEqual([]);
  });

  it.each(['tomorrow', 'next Saturday', 'next week', 'in 5 minutes', 'tonight', 'this Saturday'])(
    'leaves the future alone: %s',
    (query) => {
      const result = parseTimeQuery(query, SYDNEY); // 10:00 on a Monday: tonight and Saturday are ahead
      expect(result.windows).toEqual([]);
      expect(result.text).toBe(query);
    },
  );

  it('never reads a zone word that chrono would ("3pm get the logs")', () => {
    const result = parseTimeQuery('3pm get the logs', SYDNEY);
    expect(result.text).toBe('get the logs');
    expect(spans('3pm get the logs')[0]).toEqual(span('2026-04-05T04:30:00Z', '2026-04-05T05:30:00Z')); // +10, not +4
  });
});

describe('determinism', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('depends only on nowMs, not on the wall clock', () => {
    const before = parseTimeQuery('at 3pm yesterday and 05:39 AEDT', SYDNEY);
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2031-07-01T00:00:00Z'));
    expect(parseTimeQuery('at 3pm yesterday and 05:39 AEDT', SYDNEY)).toEqual(before);
  });
});
