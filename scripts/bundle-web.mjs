#!/usr/bin/env node
// The web view (web/, Preact) bundled into dist/web/: one ES module (app.js), its stylesheet and the page, served by
// `moon serve` at `/` (src/runtime/web-assets.ts). Everything it needs is in these files: no CDN, no network.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const web = fileURLToPath(new URL('../web/', import.meta.url));
const out = fileURLToPath(new URL('../dist/web/', import.meta.url));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  input: `${web}main.tsx`,
  platform: 'browser',
  output: { dir: out, format: 'esm', entryFileNames: 'app.js', minify: true, sourcemap: false },
  logLevel: 'warn',
});
copyFileSync(`${web}styles.css`, `${out}app.css`);
copyFileSync(`${web}index.html`, `${out}index.html`);
