// Peak memory and time of reading a large Puffin history (seed 004: files over 50 MB are streamed):
// `node bench/puffin-parse.mjs [--mb 60]` after `npm run build`. Generates a history of the real schema in a temp
// folder, then, each in a fresh process: the streaming reader (readPuffinHistoryFile), a whole parse
// (JSON.parse + parsePuffinHistory) for comparison, and `moon index` of the folder holding it.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, readOption, repo } from './lib/setup.mjs';

const args = process.argv.slice(2);
const mode = readOption(args, '--child', null);

if (mode !== null) {
  const path = readOption(args, '--path', '');
  const started = performance.now();
  let prompts;
  if (mode === 'stream') {
    const { readPuffinHistoryFile } = await import(join(repo, 'dist', 'sources', 'puffin-read.js'));
    prompts = (await readPuffinHistoryFile(path)).totalPrompts;
  } else {
    const { readFileSync } = await import('node:fs');
    const { parsePuffinHistory } = await import(join(repo, 'dist', 'sources', 'puffin-history.js'));
    prompts = parsePuffinHistory(JSON.parse(readFileSync(path, 'utf8'))).totalPrompts;
  }
  const ms = performance.now() - started;
  console.log(JSON.stringify({ mode, prompts, ms: Math.round(ms), peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));
  process.exit(0);
}

const mb = Number(readOption(args, '--mb', '60'));
const dir = mkdtempSync(join(tmpdir(), 'moon-puffin-bench-'));
try {
  const path = join(dir, 'work', 'proj', '.puffin', 'history.json');
  mkdirSync(join(dir, 'work', 'proj', '.puffin'), { recursive: true });
  const prompts = writeHistory(path, mb * 1024 * 1024);
  console.log(`history: ${(statSync(path).size / 1024 / 1024).toFixed(1)} MB, ${prompts} prompts`);
  for (const child of ['stream', 'whole']) {
    const run = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', child, '--path', path], { encoding: 'utf8' });
    process.stdout.write(run.stdout || run.stderr);
  }
  const index = spawnSync('/usr/bin/time', ['-f', '%M %e', process.execPath, bin, 'index', join(dir, 'work'), '--json'], {
    encoding: 'utf8',
    env: { ...process.env, MOON_HOME: join(dir, 'home') },
    maxBuffer: 64 * 1024 * 1024,
  });
  const [kb, seconds] = index.stderr.trim().split('\n').pop().split(' ');
  const report = JSON.parse(index.stdout);
  console.log(JSON.stringify({ mode: 'moon index', sessions: report.documents.sessions_written, entries: report.entries, seconds: Number(seconds), peakRssMb: Math.round(Number(kb) / 1024) }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Threads of three prompts with replies, written piece by piece as `JSON.stringify(history, null, 2)` lays them out. */
function writeHistory(path, targetBytes) {
  const fd = openSync(path, 'w');
  let bytes = 0;
  let count = 0;
  const write = (text) => (bytes += writeSync(fd, text));
  try {
    write('{\n  "branches": {\n    "main": {\n      "id": "main",\n      "name": "Main",\n      "prompts": [');
    while (bytes < targetBytes) {
      const inThread = count % 3;
      const root = count - inThread;
      const prompt = {
        id: `p${count}`,
        parentId: inThread === 0 ? null : `p${root + inThread - 1}`,
        content: `Prompt ${count}: fix the "parser" in src/p${count % 13}.ts — café ☕. ${'words '.repeat(60)}`,
        title: null,
        timestamp: 1_765_000_000_000 + count * 1000,
        response: { content: `Answer ${count}: done. ${'reply text '.repeat(40)}`, sessionId: `s${count}`, cost: 0.01, turns: 2, duration: 3000, filesModified: [], timestamp: 1_765_000_000_500 + count * 1000 },
        children: inThread === 2 ? [] : [`p${count + 1}`],
      };
      const text = JSON.stringify(prompt, null, 2).split('\n').map((line) => `        ${line}`).join('\n');
      write(`${count === 0 ? '' : ','}\n${text}`);
      count += 1;
    }
    write('\n      ]\n    }\n  },\n  "activeBranch": "main",\n  "activePromptId": null,\n  "updatedAt": "2026-01-19T10:00:00.000Z"\n}');
  } finally {
    closeSync(fd);
  }
  return count;
}
