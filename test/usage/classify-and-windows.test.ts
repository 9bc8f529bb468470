import { describe, expect, test } from 'vitest';
import { classifyUsage } from '../../src/usage/classify.js';
import { DEFAULT_CONTEXT_WINDOW, contextWindowFor } from '../../src/usage/context-windows.js';
import { composeSnapshot } from '../../src/usage/snapshot.js';

describe('contextWindowFor', () => {
  test.each([
    ['claude-sonnet-4-5-20250929', 200_000],
    ['claude-opus-4-7', 200_000],
    ['claude-3-5-haiku-latest', 200_000],
    ['claude-sonnet-4-5[1m]', 1_000_000],
    ['claude-sonnet-4-20250514-context-1m', 1_000_000],
    ['anthropic/claude-opus-4-5', 200_000],
    ['gpt-5.3-codex', 272_000],
    ['gpt-5-codex', 272_000],
    ['gpt-5', 272_000],
    ['gpt-5-mini', 272_000],
    ['openai/gpt-5.2', 272_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4.1-mini', 1_047_576],
    ['gpt-4o', 128_000],
    ['gpt-4o-mini-2024-07-18', 128_000],
    ['o3', 200_000],
    ['o4-mini', 200_000],
    ['codex-mini-latest', 200_000],
    ['gemini-2.5-pro', 1_048_576],
    ['gemini-1.5-pro-002', 2_097_152],
    ['GPT-4O', 128_000],
  ])('%s → %i', (model, window) => {
    expect(contextWindowFor(model)).toBe(window);
  });

  test('an unknown or missing model gets the default', () => {
    expect(DEFAULT_CONTEXT_WINDOW).toBe(200_000);
    expect(contextWindowFor('mystery-9000')).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowFor('')).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowFor(null)).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowFor(undefined)).toBe(DEFAULT_CONTEXT_WINDOW);
  });
});

describe('classifyUsage', () => {
  const thresholds = { startRatio: 0.8, emergencyRatio: 0.95 };
  test.each([
    [0, 'ok'],
    [0.79999, 'ok'],
    [0.8, 'compaction'],
    [0.94, 'compaction'],
    [0.95, 'emergency'],
    [1.3, 'emergency'],
  ] as const)('ratio %f → %s', (ratio, level) => {
    expect(classifyUsage({ usage_ratio: ratio }, thresholds)).toBe(level);
  });

  test('an emergency threshold below the start threshold still reports the emergency', () => {
    expect(classifyUsage({ usage_ratio: 0.7 }, { startRatio: 0.9, emergencyRatio: 0.6 })).toBe('emergency');
  });
});

describe('composeSnapshot', () => {
  const reading = { usedTokens: 50_000, windowTokens: null, model: 'gpt-4o', provider: null, atMs: Date.parse('2026-03-01T10:00:00.900Z') };
  test('the stated window wins over the table; the provider falls back; seconds are floored', () => {
    expect(composeSnapshot('s', { ...reading, windowTokens: 100_000 }, 0, 'openai')).toEqual({
      session_id: 's',
      used_tokens: 50_000,
      max_tokens: 100_000,
      usage_ratio: 0.5,
      captured_at_epoch_secs: Date.parse('2026-03-01T10:00:00Z') / 1000,
      provider: 'openai',
      model: 'gpt-4o',
    });
  });

  test('no real count or no positive window is no snapshot; no model leaves the field out', () => {
    expect(composeSnapshot('s', { ...reading, usedTokens: 0 }, 0, 'x')).toBeNull();
    expect(composeSnapshot('s', { ...reading, usedTokens: Number.POSITIVE_INFINITY }, 0, 'x')).toBeNull();
    expect(composeSnapshot('s', { ...reading, windowTokens: -1 }, 0, 'x')).toMatchObject({ max_tokens: 128_000 });
    expect(composeSnapshot('s', { ...reading, model: null }, 0, 'x')).not.toHaveProperty('model');
  });
});
