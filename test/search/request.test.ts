import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { MoonError } from '../../src/errors.js';
import { RECALL_REQUEST_FIELDS, RecallRequestSchema, parseRecallRequest, parseRecallRequestLine } from '../../src/search/request.js';

function failure(value: unknown): MoonError {
  try {
    parseRecallRequest(value);
  } catch (error) {
    expect(error).toBeInstanceOf(MoonError);
    return error as MoonError;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('the recall request schema', () => {
  test('a full request reads into RecallOptions', () => {
    expect(
      parseRecallRequest({
        query: 'wrangler deploy',
        limit: 3,
        group: 'message',
        require: 'stripe',
        exclude: ['vars'],
        project: 'shop',
        session: ['s-1'],
        source: 'claude-code',
        role: ['user', 'assistant'],
        tool: 'Bash',
        since: '2026-02-01',
        until: '2026-03-01T00:00:00Z',
        exclude_session: 's-2',
        per_session: 2,
        now: '2026-03-02T10:00:00+11:00',
        tz: 'Australia/Sydney',
        strategy: 'bm25',
        explain: true,
      }),
    ).toEqual({
      query: 'wrangler deploy',
      limit: 3,
      group: 'message',
      require: ['stripe'],
      exclude: ['vars'],
      project: ['shop'],
      session: ['s-1'],
      source: ['claude-code'],
      role: ['user', 'assistant'],
      tool: ['Bash'],
      since: '2026-02-01',
      until: '2026-03-01T00:00:00Z',
      excludeSession: ['s-2'],
      messagesPerSession: 2,
      now: '2026-03-02T10:00:00+11:00',
      tz: 'Australia/Sydney',
      strategy: 'bm25',
      explain: true,
    });
  });

  test('kebab-case and camelCase spellings, null for not given, numbers and booleans as strings', () => {
    const options = parseRecallRequest({ query: 'x', 'per-session': '4', excludeSession: ['a'], limit: ' 7 ', explain: 'true', since: null });
    expect(options).toMatchObject({ messagesPerSession: 4, excludeSession: ['a'], limit: 7, explain: true });
    expect(options.since).toBeUndefined();
    expect(parseRecallRequest({ query: 'x', perSession: 1 }).messagesPerSession).toBe(1);
  });

  test('errors name the field as the caller spelled it, never a flag', () => {
    const cases: [unknown, string, string][] = [
      [{ query: 'x', limit: 0 }, 'limit', 'limit: must be a positive whole number, got 0'],
      [{ query: 'x', limit: 'five' }, 'limit', 'limit: must be a positive whole number, got "five"'],
      [{ query: 'x', limit: 2.5 }, 'limit', 'limit: must be a positive whole number, got 2.5'],
      [{ query: 'x', 'per-session': -1 }, 'per_session', 'per-session: must be a positive whole number, got -1'],
      [{ query: 'x', role: 'robot' }, 'role', 'role: "robot" is not one of user, assistant, tool, system'],
      [{ query: 'x', role: ['user', 'robot'] }, 'role', 'role: "robot" is not one of user, assistant, tool, system'],
      [{ query: 'x', source: 'cursor' }, 'source', 'source: "cursor" is not one of claude-code, codex, openclaw'],
      [{ query: 'x', group: 'day' }, 'group', 'group: "day" is not one of session, message'],
      [{ query: 'x', strategy: 'magic' }, 'strategy', 'strategy: "magic" is not one of hybrid, bm25'],
      [{ query: 'x', since: '' }, 'since', 'since: must not be empty'],
      [{ query: 'x', since: 20260221 }, 'since', 'since: must be a string'],
      [{ query: 'x', project: 3 }, 'project', 'project: must be a string or a list of them'],
      [{ query: 'x', explain: 'yes' }, 'explain', 'explain: must be true or false'],
      [{ query: '   ' }, 'query', 'query: must be a non-empty string'],
      [{ limit: 2 }, 'query', 'query: must be a non-empty string'],
    ];
    for (const [value, field, message] of cases) {
      const error = failure(value);
      expect(error.message, JSON.stringify(value)).toContain(message);
      expect(error.message).not.toMatch(/--/);
      expect(error.field).toBe(field);
      expect(error.exitCode).toBe(2);
    }
  });

  test('unknown fields, a field given twice, and what is not an object', () => {
    expect(failure({ query: 'x', colour: 'red' }).message).toMatch(/^unknown field "colour"/);
    expect(failure({ query: 'x', perSession: 1, per_session: 2 }).message).toBe('"perSession" and "per_session" are the same field');
    expect(failure([1]).message).toBe('expected a JSON object');
    expect(failure('x').message).toBe('expected a JSON object');
    expect(() => parseRecallRequestLine('{oops')).toThrow(/^malformed JSON/);
    expect(parseRecallRequestLine('{"query":"q"}').query).toBe('q');
  });

  test('the canonical schema is strict and converts to a JSON Schema a client can read', () => {
    expect(RecallRequestSchema.safeParse({ query: 'x', limit: '5' }).success).toBe(false);
    expect(RecallRequestSchema.safeParse({ query: 'x', perSession: 5 }).success).toBe(false);
    const json = z.toJSONSchema(z.object(RECALL_REQUEST_FIELDS), { io: 'input' }) as { properties: Record<string, { description?: string }>; required: string[] };
    expect(json.required).toEqual(['query']);
    expect(Object.keys(json.properties)).toContain('per_session');
    for (const [name, property] of Object.entries(json.properties)) expect(property.description, name).toBeTruthy();
  });
});
