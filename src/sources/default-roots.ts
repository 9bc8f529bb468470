import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Default transcript locations (Claude Code, Codex, OpenClaw), kept only when they exist. */
export function defaultSourceRoots(home = homedir()): string[] {
  return [join(home, '.claude', 'projects'), join(home, '.codex', 'sessions'), join(home, '.openclaw', 'agents')].filter(
    (path) => existsSync(path),
  );
}
