import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  MAX_CANDIDATES,
  MIN_PREFIX_CHARS,
  chooseSession,
  isFullLengthSessionId,
  shortenSessionId,
  toResolutionError,
} from '../../src/browse/resolve-session-id.js';
import { MoonError } from '../../src/errors.js';
import type { SessionMatch } from '../../src/store/types.js';

const match = (id: string, extra: Partial<SessionMatch> = {}): SessionMatch => ({
  id,
  source: 'claude-code',
  project: 'shop',
  title: null,
  startMs: Date.parse('2026-02-20T10:00:00Z'),
  parentSessionId: null,
  ...extra,
});

/** What the store gives for a prefix: the exact id first, then the others starting with it, by id. */
const matchesFor = (wanted: string, all: readonly SessionMatch[]): SessionMatch[] => {
  const hits = all.filter((item) => item.id.startsWith(wanted)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const exact = hits.filter((item) => item.id === wanted);
  return [...exact, ...hits.filter((item) => item.id !== wanted)].slice(0, MAX_CANDIDATES + 1);
};

const PARENT = 'ef958aa1-0e93-49f0-bb71-150f63befcd1';

describe('chooseSession', () => {
  test('an exact id names its session whatever its length; a unique prefix of 8 or more names its session', () => {
    const all = [match('dawn'), match('5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d')];
    expect(chooseSession('dawn', matchesFor('dawn', all))).toEqual({ kind: 'found', session: all[0] });
    expect(chooseSession('5f3c2a1e', matchesFor('5f3c2a1e', all))).toEqual({ kind: 'found', session: all[1] });
  });

  test('a prefix shorter than 8 characters (beyond a puffin- source prefix) is refused even when it is unique', () => {
    const all = [match('5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d'), match('puffin-mjgemr768h20qxza1', { source: 'puffin' })];
    for (const wanted of ['5f3c2a1', '', 'puffin-mjgemr7', 'puffin-']) {
      expect(() => chooseSession(wanted, matchesFor(wanted, all), 'session_id')).toThrow(MoonError);
      expect(() => chooseSession(wanted, matchesFor(wanted, all), 'session_id')).toThrow(/^session_id: .*at least its first 8 characters/);
    }
    expect(chooseSession('puffin-mjgemr76', matchesFor('puffin-mjgemr76', all))).toMatchObject({ kind: 'found', session: { id: 'puffin-mjgemr768h20qxza1' } });
  });

  test('a prefix several sessions share is ambiguous, listing them; one no session has is unknown', () => {
    const all = [match('c0ffee12-aaaa-4aaa-8aaa-000000000001'), match('c0ffee12-bbbb-4bbb-8bbb-000000000002', { title: 'Release' })];
    const ambiguous = chooseSession('c0ffee12', matchesFor('c0ffee12', all));
    expect(ambiguous).toEqual({ kind: 'ambiguous', wanted: 'c0ffee12', candidates: all, more: false });
    const error = toResolutionError(ambiguous as Exclude<typeof ambiguous, { kind: 'found' }>);
    expect(error.code).toBe('bad_usage');
    expect(error.message).toContain('"c0ffee12" matches 2 sessions');
    expect(error.message).toContain(`${all[0]!.id}  2026-02-20 10:00 UTC  claude-code  shop`);
    expect(error.message).toContain(`${all[1]!.id}  2026-02-20 10:00 UTC  claude-code  Release`);
    expect(chooseSession('abcdef12', matchesFor('abcdef12', all))).toEqual({ kind: 'unknown', wanted: 'abcdef12' });
  });

  test('past the cap, the first ten are listed and the rest counted as more', () => {
    const all = Array.from({ length: 14 }, (_, index) => match(`c0ffee12-${String(index).padStart(4, '0')}`));
    const resolution = chooseSession('c0ffee12', matchesFor('c0ffee12', all));
    expect(resolution).toMatchObject({ kind: 'ambiguous', more: true });
    if (resolution.kind !== 'ambiguous') return;
    expect(resolution.candidates.map((item) => item.id)).toEqual(all.slice(0, MAX_CANDIDATES).map((item) => item.id));
    expect(toResolutionError(resolution).message).toContain('matches more than 10 sessions');
  });

  test("a prefix matching a session and its own subagents names the session; another session's subagent keeps it ambiguous", () => {
    const parent = match(PARENT);
    const agents = [match(`${PARENT}:agent-a1`, { parentSessionId: PARENT }), match(`${PARENT}:agent-b2`, { parentSessionId: PARENT })];
    expect(chooseSession('ef958aa1', matchesFor('ef958aa1', [parent, ...agents]))).toEqual({ kind: 'found', session: parent });
    expect(chooseSession(`${PARENT}:agent-a`, matchesFor(`${PARENT}:agent-a`, [parent, ...agents]))).toEqual({ kind: 'found', session: agents[0] });
    const stranger = match('ef958aa1-ffff-4fff-8fff-ffffffffffff');
    expect(chooseSession('ef958aa1', matchesFor('ef958aa1', [parent, ...agents, stranger]))).toMatchObject({ kind: 'ambiguous' });
    // Two sessions with one id (a second transcript reusing it) are two sessions, not a family.
    expect(chooseSession('ef958aa1', matchesFor('ef958aa1', [parent, match(`${PARENT}~1a2b3c4d`)]))).toMatchObject({ kind: 'ambiguous' });
  });
});

describe('id forms', () => {
  test('full-length ids are those holding a UUID, and Puffin ids; other forms are not told from prefixes', () => {
    for (const id of [
      '5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d',
      '019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
      `${PARENT}:agent-aef063ba534d73153`,
      `${PARENT}~1a2b3c4d`,
      'puffin-mjgemr768h20qxza1',
      'puffin-d4d4553b-533f-41f5-a53f-54fe2af9f77e',
      'rollout-2026-01-02T03-04-05-019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
    ]) {
      expect(isFullLengthSessionId(id), id).toBe(true);
    }
    for (const id of ['5f3c2a1e', '5f3c2a1e-8b7d-4c6a-9e21', 'puffin-mjgemr76', 'fixture-session', 'escape-session']) {
      expect(isFullLengthSessionId(id), id).toBe(false);
    }
  });

  test('moon prints the first 8 characters, after puffin-; short ids whole', () => {
    expect(shortenSessionId('5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d')).toBe('5f3c2a1e');
    expect(shortenSessionId(`${PARENT}:agent-aef063ba534d73153`)).toBe('ef958aa1');
    expect(shortenSessionId('puffin-mjgemr768h20qxza1')).toBe('puffin-mjgemr76');
    expect(shortenSessionId('dawn')).toBe('dawn');
  });

  test('the printed form of any session names it, or is ambiguous with it among the candidates', () => {
    const uuid = fc.uuid();
    const session = fc.oneof(
      uuid,
      uuid.map((id) => `puffin-${id}`),
      fc.stringMatching(/^[0-9a-z]{16,17}$/).map((id) => `puffin-${id}`),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
    );
    fc.assert(
      fc.property(fc.uniqueArray(session, { minLength: 1, maxLength: 12 }), (ids) => {
        const all = ids.map((id) => match(id));
        for (const item of all) {
          const printed = shortenSessionId(item.id);
          expect(printed.length).toBeLessThanOrEqual(item.id.length);
          const resolution = chooseSession(printed, matchesFor(printed, all));
          if (resolution.kind === 'found') expect(resolution.session.id).toBe(item.id);
          else {
            expect(resolution.kind).toBe('ambiguous');
            if (resolution.kind === 'ambiguous' && !resolution.more) expect(resolution.candidates.map((candidate) => candidate.id)).toContain(item.id);
          }
        }
      }),
    );
  });

  test('MIN_PREFIX_CHARS is what moon prints', () => {
    expect(MIN_PREFIX_CHARS).toBe(shortenSessionId('5f3c2a1e-8b7d-4c6a-9e21-3d4f5a6b7c8d').length);
  });
});
