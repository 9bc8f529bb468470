#!/usr/bin/env node
// What ranking sessions by their fields costs a recall (issue 34): the same build and index, recall with the session
// fields off (MOON_RECALL_SESSION_FIELDS=none) and on (the default, or FIELDS=...), interleaved query by query so
// machine noise hits both, in-process through the library.
//
//   node bin/moon.js index bench/corpora/100k --home /tmp/h100k     # once (node bench/generate-corpus.mjs 100k)
//   node bench/session-fields.mjs /tmp/h100k [--reps 5]
import { createMoon, loadConfig } from '../dist/index.js';
import { QUERIES } from './queries.mjs';

const home = process.argv[2];
if (!home) {
  console.error('usage: node bench/session-fields.mjs HOME [--reps N]   (FIELDS=title,files,errors to choose the fields)');
  process.exit(2);
}
const repsAt = process.argv.indexOf('--reps');
const reps = repsAt > 0 ? Number(process.argv[repsAt + 1]) : 5;
const open = (fields) =>
  createMoon(loadConfig({ env: { PATH: process.env.PATH, MOON_HOME: home, MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...(fields ? { MOON_RECALL_SESSION_FIELDS: fields } : {}) } }));
const off = open('none');
const on = open(process.env.FIELDS);
const now = '2026-11-26T00:00:00Z';
const times = { off: [], on: [] };
for (let rep = 0; rep < reps; rep++) {
  for (const { query } of QUERIES) {
    for (const [name, moon] of [['off', off], ['on', on]]) {
      const start = performance.now();
      await moon.history.recall({ query, now });
      times[name].push(performance.now() - start);
    }
  }
}
const pct = (list, p) => [...list].sort((a, b) => a - b)[Math.floor(p * (list.length - 1))];
console.log(`| fields | recalls | p50 (ms) | p95 (ms) |\n|---|---:|---:|---:|`);
for (const name of ['off', 'on']) console.log(`| ${name === 'off' ? 'none' : (process.env.FIELDS ?? 'default')} | ${times[name].length} | ${pct(times[name], 0.5).toFixed(2)} | ${pct(times[name], 0.95).toFixed(2)} |`);
console.log(`on/off: p50 ${(pct(times.on, 0.5) / pct(times.off, 0.5)).toFixed(3)}, p95 ${(pct(times.on, 0.95) / pct(times.off, 0.95)).toFixed(3)}`);
await off.close?.();
await on.close?.();
