// What the `bench/*.mjs` scripts of "Fast at any size" share: their flags, a scratch folder removed on exit, and
// an index of a corpus to measure against.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BENCH_DIR = import.meta.dirname;
export const REPO = join(BENCH_DIR, '..');

/** `--name value` from the command line, or the fallback. */
export function readFlag(name, fallback) {
  const args = process.argv.slice(2);
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
}

/** A scratch folder, removed when the process exits. */
export function makeWorkDir(prefix) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  process.on('exit', () => rmSync(work, { recursive: true, force: true }));
  return work;
}

/** `--home` when given, else a fresh index of `corpus` built by this build's `moon index` under `work`. */
export function ensureIndexedHome(corpus, work) {
  const given = readFlag('home', null);
  if (given) return given;
  const home = join(work, 'home');
  console.error(`indexing ${corpus} …`);
  execFileSync(process.execPath, [join(REPO, 'bin', 'moon.js'), 'index', corpus, '--home', home, '--json'], {
    env: { PATH: process.env.PATH, MOON_RESIDENTIAL_TIMEZONE: 'UTC' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return home;
}
