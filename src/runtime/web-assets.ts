import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromBuild } from './build-paths.js';

/** The web view's files (web/, bundled by scripts/bundle-web.mjs into dist/web/), served by `moon serve` at `/`. */
export interface WebAsset {
  body: Uint8Array;
  type: string;
}

export const WEB_FILES: Record<string, string> = {
  '/': 'index.html',
  '/app.js': 'app.js',
  '/app.css': 'app.css',
};

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/**
 * The built files by the path they are served at, read once; an empty map when the build has none (a clone that
 * was not built: the API still answers). Under the TypeScript test runner the build root is src/, so the files
 * are looked for in dist/web/ beside it.
 */
export function readWebAssets(): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  const dir = [fromBuild('web/'), fromBuild('../dist/web/')].find((url) => existsSync(new URL('index.html', url)));
  if (!dir) return assets;
  for (const [path, file] of Object.entries(WEB_FILES)) {
    const url = new URL(file, dir);
    if (!existsSync(url)) continue;
    assets.set(path, { body: readFileSync(fileURLToPath(url)), type: TYPES[file.split('.').pop()!]! });
  }
  return assets;
}
