import { describe, expect, test } from 'vitest';
import { FRAME_WORDS, dropFrameWords, isPersonalQuestion, readSoftWindow } from '../../src/search/personal.js';
import { parseTimeQuery } from '../../src/search/time-query.js';

describe('personal questions', () => {
  test.each([
    'How many bikes do I own?',
    'What is my ethnicity?',
    "I'm checking our previous chat about the rotation sheet",
    'Can you recommend a show for me to watch tonight?',
    'did i say which port?',
  ])('%s is asked in the first person', (query) => {
    expect(isPersonalQuestion(query)).toBe(true);
  });

  test.each([
    'What did Caroline recommend to Melanie?',
    'deploy last Saturday morning',
    'I/O error on the build host',
    'Ima Hogg museum',
    'why did the deploy fail',
    'src/my/config.ts',
  ])('%s is not', (query) => {
    expect(isPersonalQuestion(query)).toBe(false);
  });

  test('frame words leave a personal question, content stays; nothing but frame words is kept as asked', () => {
    expect(dropFrameWords(['remind', 'rotation', 'sheet', 'previous', 'chat'])).toEqual(['rotation', 'sheet']);
    expect(dropFrameWords(['many', 'bikes', 'own'])).toEqual(['bikes', 'own']);
    expect(dropFrameWords(['Recommend', 'tips'])).toEqual(['Recommend', 'tips']);
    // the list stays short: words that name topics are not in it
    for (const word of ['bike', 'deploy', 'error', 'recipe', 'test', 'own']) expect(FRAME_WORDS.has(word)).toBe(false);
  });

  test('a soft window runs from the earliest date asked for up to now; clock times and session parts have none', () => {
    const nowMs = Date.parse('2026-03-07T12:00:00Z');
    const weekend = parseTimeQuery('what did I bake last weekend', { nowMs, zone: 'UTC' });
    expect(readSoftWindow(weekend, nowMs)).toEqual({ startMs: Date.parse('2026-02-28T00:00:00Z'), endMs: nowMs + 1 });
    expect(readSoftWindow(parseTimeQuery('what did I say at 05:39', { nowMs, zone: 'UTC' }), nowMs)).toBeNull();
    expect(readSoftWindow(parseTimeQuery('what did I say early in the session', { nowMs, zone: 'UTC' }), nowMs)).toBeNull();
    expect(readSoftWindow(null, nowMs)).toBeNull();
  });
});
