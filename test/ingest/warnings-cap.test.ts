import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { makeTempDir, runMoon } from '../helpers/cli.js';
import { claudeSession } from '../helpers/transcripts.js';

test('a file of many bad lines names the first twenty and counts the rest; its good lines are indexed', async () => {
  const temp = makeTempDir('moon-warn-');
  try {
    const corpus = join(temp.path, 'corpus');
    mkdirSync(corpus);
    const good = claudeSession({
      sessionId: 'mostly-bad',
      turns: [
        { role: 'user', at: '2026-01-05T10:00:00Z', id: 'mb-1', text: 'the albatross migration plan needs review' },
        { role: 'assistant', at: '2026-01-05T10:01:00Z', id: 'mb-2', text: 'Reviewed the albatross migration plan.' },
      ],
    });
    const bad = Array.from({ length: 50 }, (_, index) => `{not json ${index}`).join('\n');
    writeFileSync(join(corpus, 'mostly-bad.jsonl'), `${good.split('\n')[0]}\n${bad}\n${good.split('\n').slice(1).join('\n')}`);
    const run = await runMoon(['index', corpus, '--json'], { MOON_HOME: join(temp.path, 'home') });
    const report = JSON.parse(run.stdout) as { warnings: string[]; entries: number };
    const mine = report.warnings.filter((warning) => warning.includes('mostly-bad.jsonl'));
    expect(mine).toHaveLength(21);
    expect(mine[0]).toMatch(/mostly-bad\.jsonl:2: /);
    expect(mine[20]).toMatch(/30 more lines skipped \(first at line 22\)/);
    expect(report.entries).toBe(2);
  } finally {
    temp.cleanup();
  }
});
