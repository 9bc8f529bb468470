#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const dist = new URL('../dist/', import.meta.url);
// A clone before `npm run build` (or after `git clean`): say so at once, not a module-not-found stack.
if (!existsSync(new URL('interfaces/cli/main.js', dist)) || !existsSync(new URL('hook/entry.cjs', dist))) {
  process.stderr.write(`moon is not built: run \`npm run build\` in ${fileURLToPath(new URL('..', dist))}\n`);
  process.exit(1);
}
// An agent's hook (`[--home D] hook <event>`) goes straight to the hooks plane: it loads what its event needs and
// never the CLI (src/interfaces/hook/entry.ts, bundled into dist/hook/ by scripts/bundle-hook.mjs). Anything else,
// or a hook line the entry leaves alone, is the CLI's.
if (args.includes('hook')) {
  const { parseHookArgv, runHookEntry } = createRequire(import.meta.url)('../dist/hook/entry.cjs');
  const hook = parseHookArgv(args);
  if (hook !== null) process.exitCode = await runHookEntry(hook);
}
if (process.exitCode === undefined) {
  const { runCli } = await import('../dist/interfaces/cli/main.js');
  process.exitCode = await runCli(args);
}
