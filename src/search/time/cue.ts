/**
 * Whether a query may hold a time expression at all: a digit, or a word one of the time finders starts from —
 * chrono's strict parser (weekdays and months with their abbreviations, "weekend", "weekday", time units without
 * abbreviation; every clock time and numeric date has a digit), the casual phrases (time-of-day words, "today",
 * "yesterday", "tonight", "tomorrow", "noon", units with "min"/"hr"), and the session-relative ones ("… of the
 * session / conversation / chat"). Word edges as both use them (ASCII word characters). A superset by
 * construction, checked against chrono's own dictionaries and every finder in test/search/time-cue.test.ts: a
 * query without a cue has no time expression, and parseTimeQuery returns it as it is without running a finder —
 * chrono costs ~26 ms a query even when it finds nothing, and ~40 ms more to load.
 */
export const TIME_CUE_WORDS: readonly string[] = [
  // weekdays (chrono's WEEKDAY_DICTIONARY) and the week's parts
  'monday', 'mon', 'tuesday', 'tue', 'tues', 'wednesday', 'wed', 'thursday', 'thu', 'thur', 'thurs', 'friday', 'fri',
  'saturday', 'sat', 'sunday', 'sun', 'weekend', 'weekends', 'weekday', 'weekdays',
  // months (chrono's MONTH_DICTIONARY)
  'january', 'jan', 'february', 'feb', 'march', 'mar', 'april', 'apr', 'may', 'june', 'jun', 'july', 'jul', 'august',
  'aug', 'september', 'sep', 'sept', 'october', 'oct', 'november', 'nov', 'december', 'dec',
  // units (chrono's TIME_UNIT_DICTIONARY_NO_ABBR, and the casual finders' abbreviations)
  'second', 'seconds', 'minute', 'minutes', 'min', 'mins', 'hour', 'hours', 'hr', 'hrs', 'day', 'days', 'week', 'weeks',
  'month', 'months', 'quarter', 'quarters', 'year', 'years',
  // days and their parts
  'today', 'yesterday', 'tonight', 'tomorrow', 'morning', 'afternoon', 'evening', 'night', 'noon', 'midday', 'midnight',
  // the session-relative phrases
  'session', 'conversation', 'chat',
];

const CUE = new RegExp(String.raw`[0-9]|\b(?:${TIME_CUE_WORDS.join('|')})\b`, 'i');

export function mayHoldTime(query: string): boolean {
  return CUE.test(query);
}
