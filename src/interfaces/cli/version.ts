import { readFileSync } from 'node:fs';

/** The version of the installed package: dist/interfaces/cli/ (and src/interfaces/cli/) sit three levels below it. */
export function readVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
