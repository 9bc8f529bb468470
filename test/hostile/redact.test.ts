import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createRedactor } from '../../src/normalize/index.js';
import { propertyRuns } from './runs.js';

/**
 * The redactor against hostile text: it never throws, redacting twice changes nothing, output stays within a
 * bounded (markers aside, it only shrinks), markers already present survive whole, and 1 MB adversarial runs come back.
 */

const RUNS = propertyRuns(300, 10_000);
const redact = createRedactor({ enabled: true });
const MARKER = /\[REDACTED:[a-z-]+\]/g;

const PIECES = [
  'sk-', 'sk-proj-', 'sk-ant-api03-', 'ghp_', 'github_pat_', 'AKIA', 'xoxb-', 'sk_live_', 'AIza', 'eyJ', '.', '=', '==',
  ':', '"', "'", ' ', '\n', 'password', 'PASSWORD=', 'api_key: ', 'export SECRET=', 'Authorization: Bearer ',
  'https://user:pass@host/', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----', '-----BEGIN',
  '[REDACTED:openai-key]', '[REDACTED:', ']', '${VAR}', 'process.env.API_KEY', 'A', 'z', '0', '9', '+', '/', '_', '-',
];
const base64ish = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-'.split('')), maxLength: 60 });
const hostileText = fc.oneof(
  fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PIECES) }, { weight: 2, arbitrary: base64ish }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) }), { maxLength: 30 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 120 }),
);

/** Redaction only replaces: without its markers the output is no longer than the input, and markers are sparse. */
function expectBounded(text: string, once: string): void {
  expect(once.replace(MARKER, '').length).toBeLessThanOrEqual(text.length);
  expect([...once.matchAll(MARKER)].length).toBeLessThanOrEqual(text.length / 2 + 1);
}

function countMarkers(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [marker] of text.matchAll(MARKER)) counts.set(marker, (counts.get(marker) ?? 0) + 1);
  return counts;
}

describe('createRedactor on hostile text', () => {
  test('never throws, is idempotent, bounded, and keeps markers whole', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const once = redact(text);
        expect(redact(once)).toBe(once);
        expectBounded(text, once);
        // A marker in the input is still there (a secret around it may add more, never take one away).
        for (const [marker, count] of countMarkers(text)) expect(countMarkers(once).get(marker) ?? 0).toBeGreaterThanOrEqual(count);
      }),
      RUNS,
    );
  });

  test.each([
    '-----BEGIN RSA PRIVATE KEY-----[REDACTED:openai-key]-----END RSA PRIVATE KEY-----',
    '-----BEGIN PRIVATE KEY-----\nMIIEv[REDACTED:aws-key]QIBADAN\n[REDACTED:secret]',
  ])('a private key block keeps the markers an earlier pass left inside it: %j', (text) => {
    const once = redact(text);
    expect(once.startsWith('[REDACTED:private-key]')).toBe(true);
    for (const [found, count] of countMarkers(text)) expect(countMarkers(once).get(found)).toBe(count);
    expect(redact(once)).toBe(once);
  });

  const MEGABYTE = 1 << 20;
  const fill = (unit: string) => unit.repeat(Math.ceil(MEGABYTE / unit.length)).slice(0, MEGABYTE);
  test.each([
    ['BEGIN blocks', fill('-----BEGIN ')],
    ['BEGIN without END', `-----BEGIN RSA PRIVATE KEY-----\n${fill('A')}`],
    ['equals signs', fill('=')],
    ['the base64 alphabet', fill('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')],
    ['sk- repeated', fill('sk-')],
    ['assignments', fill('password=')],
    ['colons and quotes', fill('"a":')],
    ['bearer', fill('Bearer ')],
    ['url credentials', fill('https://a:b@')],
    ['JWT dots', fill('eyJ.')],
    ['markers', fill('[REDACTED:secret]')],
  ])('a 1 MB run of %s is redacted, idempotently', (_name, text) => {
    const once = redact(text);
    expectBounded(text, once);
    expect(redact(once)).toBe(once);
  });
});
