#!/usr/bin/env node
// After `tsc`: the hook entry (dist/interfaces/hook/entry.js) and everything it imports, bundled into a few CommonJS
// files in dist/hook/. An agent runs a hook as a new process on every session start and every turn; loading ~110
// ES modules one by one cost each run ~80–100 ms of resolution, linking and builtin facades, and CommonJS loads the
// same code ~30–45 ms faster again (docs/benchmarks.md). Dynamic imports stay chunks of their own, so each event
// still loads only what it needs. Packages are not bundled (native bindings, optional models, no second copy of a
// library): they load from node_modules as before. bin/moon.js requires dist/hook/entry.cjs.
//
// dist/hook/modules.json lists the compiled modules inside each chunk, so a test can tell what a hook loaded.
import { rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const repo = fileURLToPath(new URL('..', import.meta.url));
const out = fileURLToPath(new URL('../dist/hook/', import.meta.url));
const builtins = new Set(builtinModules);
rmSync(out, { recursive: true, force: true });
const result = await build({
  input: fileURLToPath(new URL('../dist/interfaces/hook/entry.js', import.meta.url)),
  platform: 'node',
  // A bare specifier is a package or a builtin: loaded as it is, never copied in.
  external: (id) => id.startsWith('node:') || builtins.has(id) || !(id.startsWith('.') || id.startsWith('/')),
  output: { dir: out, format: 'cjs', entryFileNames: 'entry.cjs', chunkFileNames: '[name]-[hash].cjs', sourcemap: false, minify: false },
  logLevel: 'warn',
});
const chunks = Object.fromEntries(
  result.output
    .filter((item) => item.type === 'chunk')
    .map((chunk) => [chunk.fileName, chunk.moduleIds.map((id) => relative(repo, id).split('\\').join('/')).sort()]),
);
writeFileSync(new URL('../dist/hook/modules.json', import.meta.url), `${JSON.stringify(chunks, null, 1)}\n`);
