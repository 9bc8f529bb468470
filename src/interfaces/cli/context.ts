import type { MoonConfig } from '../../config.js';
import type { Moon } from '../../moon.js';
import type { CliIO } from './output.js';

export interface CliContext {
  io: CliIO;
  config: () => MoonConfig;
  moon: () => Moon;
  setExitCode: (code: number) => void;
  /** The environment the CLI runs in (the process's, or a test's). */
  env: NodeJS.ProcessEnv;
}
