import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findDailyMemoryRefs, sessionBeginMarker } from '../../src/continuity/daily-memory.js';
import { MAX_KEY_DECISIONS, composeContinuityMap, serializeContinuityMap } from '../../src/continuity/map.js';
import { readProjectionDecisions } from '../../src/continuity/projection-decisions.js';
import { type SessionSpan, chooseTargetSession } from '../../src/continuity/target.js';
import { writeContinuityMap } from '../../src/continuity/write-map.js';
import { makeTempDir } from '../helpers/cli.js';

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  const temp = makeTempDir('moon-continuity-parts-');
  dir = temp.path;
  cleanup = temp.cleanup;
});
afterAll(() => cleanup());

const span = (id: string, fields: Partial<SessionSpan> = {}): SessionSpan => ({
  id,
  project: 'app',
  cwd: '/home/dev/app',
  parentSessionId: null,
  startMs: null,
  endMs: null,
  ...fields,
});

describe('chooseTargetSession', () => {
  const source = span('src', { startMs: 1000, endMs: 2000 });

  test('the newest main session of the same cwd that started after the source ended', () => {
    const candidates = [
      source,
      span('overlapping', { startMs: 1500, endMs: 3000 }),
      span('at-the-end', { startMs: 2000 }),
      span('next', { startMs: 2500 }),
      span('newest', { startMs: 9000 }),
      span('subagent', { startMs: 9500, parentSessionId: 'newest' }),
      span('other-cwd', { startMs: 9900, cwd: '/home/dev/other' }),
      span('no-time', {}),
    ];
    expect(chooseTargetSession(source, candidates)).toBe('newest');
  });

  test('ties go to the smaller id; nothing later is null', () => {
    expect(chooseTargetSession(source, [span('b', { startMs: 5000 }), span('a', { startMs: 5000 })])).toBe('a');
    expect(chooseTargetSession(source, [span('earlier', { startMs: 10 })])).toBeNull();
  });

  test('without a cwd the project name decides (case aside); without either, or without a time, nothing is chosen', () => {
    const noCwd = span('src', { cwd: null, project: 'App', startMs: 1000 });
    expect(chooseTargetSession(noCwd, [span('x', { cwd: '/elsewhere/app', project: 'app', startMs: 5000 })])).toBe('x');
    expect(chooseTargetSession(span('src', { cwd: null, project: null, startMs: 1000 }), [span('x', { startMs: 5000 })])).toBeNull();
    expect(chooseTargetSession(span('src'), [span('x', { startMs: 5000 })])).toBeNull();
  });
});

describe('readProjectionDecisions', () => {
  test('the section’s list items, in order, up to the next section', () => {
    const markdown = ['# Archive Projection — s', '', '## Decisions & Outcomes', '- Decided to use SQLite.', '- `npm test` → exit 0', '', '## Keywords & Topics', '- **Keywords**: a'].join('\n');
    expect(readProjectionDecisions(markdown)).toEqual(['Decided to use SQLite.', '`npm test` → exit 0']);
  });

  test('an empty section is []; a projection without the section (v1) is null', () => {
    expect(readProjectionDecisions('## Decisions & Outcomes\n- (none)\n\n## Keywords & Topics\n')).toEqual([]);
    expect(readProjectionDecisions('---\nmoon_archive_projection: 1\n---\n## Signals\n- user: hi\n')).toBeNull();
  });
});

describe('composeContinuityMap', () => {
  test('keys in the seed’s order; refs de-duplicated; decisions de-duplicated (case, spacing) and capped', () => {
    const decisions = ['Use  SQLite.', 'use sqlite.', '', ...Array.from({ length: 30 }, (_, i) => `Decision ${i}`)];
    const map = composeContinuityMap({
      sourceSessionId: 's',
      targetSessionId: 't',
      archiveRefs: ['/a', '/a', '/b'],
      dailyMemoryRefs: ['/m1'],
      decisions,
      nowMs: 1_772_355_600_999,
    });
    expect(Object.keys(map)).toEqual(['source_session_id', 'target_session_id', 'archive_refs', 'daily_memory_refs', 'key_decisions', 'generated_at_epoch_secs']);
    expect(map.archive_refs).toEqual(['/a', '/b']);
    expect(map.key_decisions).toHaveLength(MAX_KEY_DECISIONS);
    expect(map.key_decisions.slice(0, 2)).toEqual(['Use SQLite.', 'Decision 0']);
    expect(map.generated_at_epoch_secs).toBe(1_772_355_600);
    expect(serializeContinuityMap(map)).toBe(`${JSON.stringify(map, null, 2)}\n`);
  });
});

describe('findDailyMemoryRefs', () => {
  test('daily files holding the exact begin marker, by date; no folder is []', () => {
    const memory = join(dir, 'memory');
    mkdirSync(memory);
    writeFileSync(join(memory, '2026-02-02.md'), `${sessionBeginMarker('abc')}\n`);
    writeFileSync(join(memory, '2026-02-01.md'), `x\n${sessionBeginMarker('abc')}\n`);
    writeFileSync(join(memory, '2026-02-03.md'), `${sessionBeginMarker('abcd')}\n<!-- MOON_SESSION_BEGIN: abc -->\n`);
    writeFileSync(join(memory, 'MEMORY.md'), `${sessionBeginMarker('abc')}\n`);
    mkdirSync(join(memory, '2026-02-04.md'));
    expect(sessionBeginMarker('abc')).toBe('<!-- MOON_SESSION_BEGIN:abc -->');
    expect(findDailyMemoryRefs(memory, 'abc')).toEqual([join(memory, '2026-02-01.md'), join(memory, '2026-02-02.md')]);
    expect(findDailyMemoryRefs(join(dir, 'no-memory'), 'abc')).toEqual([]);
  });
});

describe('writeContinuityMap', () => {
  test('continuity-<epoch>.json; the same map rewrites it, another map of the same second gets -2', () => {
    const folder = join(dir, 'continuity');
    const map = composeContinuityMap({ sourceSessionId: 's', targetSessionId: 't', archiveRefs: ['/a'], dailyMemoryRefs: [], decisions: [], nowMs: 5_000 });
    const path = writeContinuityMap(folder, map);
    expect(path).toBe(join(folder, 'continuity-5.json'));
    expect(writeContinuityMap(folder, map)).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe(serializeContinuityMap(map));
    expect(writeContinuityMap(folder, { ...map, target_session_id: 'u' })).toBe(join(folder, 'continuity-5-2.json'));
  });
});
