const WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, couple: 2, 'a couple of': 2,
};

/**
 * Larger counts are not said about the past ("99999999 days ago"); they would overflow dates and instants, and
 * luxon throws on an infinite shift.
 */
const MAX_COUNT = 100_000;

/** Read "2", "1.5", "two", "an", "half an" as a number; null for anything else. */
export function readCountWord(text: string): number | null {
  const word = text.trim().toLowerCase().replace(/\s+/g, ' ');
  if (/^\d+(\.\d+)?$/.test(word)) {
    const count = Number(word);
    return Number.isFinite(count) && count <= MAX_COUNT ? count : null;
  }
  if (/^half an?$/.test(word)) return 0.5;
  return WORDS[word] ?? null;
}

/** Regex source for a count as written in the patterns above. */
export const COUNT_SOURCE = String.raw`(\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+couple\s+of|half\s+an?)`;
