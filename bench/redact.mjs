#!/usr/bin/env node
// Redaction throughput: MB/s of moon's redactor (built, dist/) on transcript text and on hostile input.
//
//   npm run build && node bench/redact.mjs [--corpus DIR ...] [--secretlint DIR]
//
// Text: every string value of every record of the test fixtures and of the generated 10k corpus (generated into
// bench/corpora/ when missing) — ids, timestamps and short fields included, as ingest sees them. "dense" plants
// one token of a known format in every tenth string. Hostile inputs are 1 MB lines built to make a careless
// pattern backtrack. Times are CPU seconds of this process (the machine is shared), best of three.
// --secretlint DIR measures secretlint's recommended preset on the same strings: DIR is a folder where
// `npm i @secretlint/core @secretlint/secretlint-rule-preset-recommend` was run (it is not a moon dependency).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..');
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const corpora = args.flatMap((arg, index) => (args[index - 1] === '--corpus' ? [arg] : []));
if (corpora.length === 0) {
  const generated = join(here, 'corpora', '10k');
  if (!existsSync(generated)) execFileSync(process.execPath, [join(here, 'generate-corpus.mjs'), '10k'], { stdio: 'ignore' });
  corpora.push(join(repo, 'test', 'fixtures'), generated);
}

const { createRedactor } = await import(pathToFileURL(join(repo, 'dist', 'normalize', 'redact.js')).href);
const redact = createRedactor({ enabled: true });

function jsonlFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonlFiles(path) : path.endsWith('.jsonl') ? [path] : [];
  });
}
function collectStrings(value, out) {
  if (typeof value === 'string') {
    if (value !== '') out.push(value);
  } else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) collectStrings(item, out);
}
const texts = [];
for (const dir of corpora) {
  for (const file of jsonlFiles(dir)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        collectStrings(JSON.parse(line), texts);
      } catch {
        // malformed fixture lines are part of the fixtures; they hold no strings to measure
      }
    }
  }
}
const megabytes = (list) => list.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1e6;

let seed = 1;
const pick = (alphabet, length) => {
  let out = '';
  for (let index = 0; index < length; index++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    out += alphabet[seed % alphabet.length];
  }
  return out;
};
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const plants = [
  () => 'gh' + 'p_' + pick(ALNUM, 36),
  () => 'np' + 'm_' + pick(ALNUM, 36),
  () => 'gl' + 'pat-' + pick(ALNUM, 20),
  () => 'sk-' + 'proj-' + pick(ALNUM, 80),
  () => `postgres://app:${pick(ALNUM, 16)}@db:5432/app`,
  () => `the password is ${pick(ALNUM, 10)}`,
];
const dense = texts.map((text, index) => (index % 10 === 0 ? `${text} ${plants[index % plants.length]()}` : text));

function cpuSeconds(run) {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const started = process.cpuUsage();
    run();
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1e6);
  }
  return best;
}
const rate = (mb, seconds) => `${(mb / seconds).toFixed(1)} MB/s`;

const textMb = megabytes(texts);
console.log(`corpus: ${texts.length} strings, ${textMb.toFixed(1)} MB (${corpora.map((dir) => dir.replace(`${repo}/`, '')).join(', ')})`);
console.log(`moon  transcript text: ${rate(textMb, cpuSeconds(() => texts.forEach((text) => redact(text))))}`);
const joinedText = texts.join('\n');
console.log(`moon  one joined document: ${rate(textMb, cpuSeconds(() => redact(joinedText)))}`);
console.log(`moon  dense (1 token in 10 strings): ${rate(megabytes(dense), cpuSeconds(() => dense.forEach((text) => redact(text))))}`);

const size = 1_000_000;
const fill = (unit) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
const hostile = ['a', ' ', 'sk-', 'sk-ant-', '_ghp_a', 'key=a', 'password is ', '"secret": "', '-----BEGIN PRIVATE KEY-----A', 'eyJaaaaaaaaaa.', 'x://u:', 'AC0', 'Bearer ', 'glpat-…', 'a-us'];
let worst = { unit: '', seconds: 0 };
let total = 0;
for (const unit of hostile) {
  const input = fill(unit);
  const seconds = cpuSeconds(() => redact(input));
  total += seconds;
  if (seconds > worst.seconds) worst = { unit, seconds };
}
console.log(`moon  hostile 1 MB lines (${hostile.length}): ${rate(hostile.length, total)} overall, slowest ${JSON.stringify(worst.unit)} ${rate(1, worst.seconds)}`);

const secretlintDir = option('--secretlint');
if (secretlintDir) {
  const require = createRequire(join(resolve(secretlintDir), 'package.json'));
  const { lintSource } = await import(pathToFileURL(require.resolve('@secretlint/core')).href);
  const { creator } = await import(pathToFileURL(require.resolve('@secretlint/secretlint-rule-preset-recommend')).href);
  const config = { rules: [{ id: creator.meta.id, rule: creator }] };
  const lint = (content) =>
    lintSource({ source: { content, filePath: '/m.txt', ext: '.txt', contentType: 'text' }, options: { config, noPhysicFilePath: true } });
  const sample = texts.slice(0, 20_000);
  let started = process.cpuUsage();
  for (const text of sample) await lint(text);
  let used = process.cpuUsage(started);
  console.log(`secretlint per string (first ${sample.length}): ${rate(megabytes(sample), (used.user + used.system) / 1e6)}`);
  const joined = texts.join('\n');
  started = process.cpuUsage();
  await lint(joined);
  used = process.cpuUsage(started);
  console.log(`secretlint one joined document: ${rate(textMb, (used.user + used.system) / 1e6)}`);
  const hostileInput = fill('sk-ant-');
  started = process.cpuUsage();
  await lint(hostileInput);
  used = process.cpuUsage(started);
  console.log(`secretlint hostile "sk-ant-" 1 MB: ${rate(1, (used.user + used.system) / 1e6)}`);
}
