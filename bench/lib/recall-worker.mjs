// One client of bench/exact-top-k.mjs --clients: opens a build's library on the given home and answers the query
// list `rounds` times, each round in an order of its own; posts each recall's time (ms).
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

const { dir, env, queries, rounds, seed, now, strategy, scope } = workerData;
const { createMoon, loadConfig } = await import(pathToFileURL(join(dir, 'dist', 'index.js')).href);
const moon = createMoon(loadConfig({ env }));
const recall = (query) => (moon.history ?? moon).recall({ query, now, strategy, ...scope });
let state = seed >>> 0;
const next = () => ((state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32);
await recall(queries[0]); // the connection and the first statements, before the clock
parentPort.postMessage({ ready: true });
await new Promise((resolve) => parentPort.once('message', resolve));
const times = [];
for (let round = 0; round < rounds; round += 1) {
  const order = queries.map((query) => [next(), query]).sort((a, b) => a[0] - b[0]).map(([, query]) => query);
  for (const query of order) {
    const started = performance.now();
    await recall(query);
    times.push(performance.now() - started);
  }
}
await moon.close();
parentPort.postMessage({ times });
