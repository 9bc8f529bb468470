// Types for harness.mjs (plain JS, no build step), so the TypeScript tests can import it under `strict`.
export const BIN: string;
export const DIST: string;
export const DOC: string;
export const CONTROLLED_ENV: string[];
export const PG_PLACEHOLDER: string;
export const PG_TWINS: Record<string, string>;
export type Env = Record<string, string | undefined>;
export interface Config {
  name: string;
  env: Record<string, string>;
  pgTwinOf?: string;
  fullEnv: Env;
  key: string;
}
export interface MoonRun {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}
export function baseEnvironment(): Env;
export function indexKey(env: Env): string;
export function runMoon(args: string[], env: Env, options?: { stdoutFile?: string }): MoonRun;
export function indexHome(folder: string, home: string, env: Env): { ms: number; report: Record<string, any>; stderr: string };
export function recallBatch(
  batchFile: string,
  home: string,
  env: Env,
  expected: number,
): { results: Record<string, any>[]; ms: number; status: number | null; stderr: string; bytes: number };
export function indexedIds(home: string): Set<string> | null;
export function storeBytes(home: string, env: Env): number | null;
export function yieldToSignals(): Promise<void>;
export function buildConfigs(
  options: { embed: string; configs: { name: string; env: Record<string, string> }[]; postgres: boolean; only: string[] | null },
  base: Env,
  usage: (message: string) => Error,
): Config[];
export function envForHome(config: Config, home: string, databases: Map<string, string>): Env;
export function describeEnv(env: Record<string, string>): string;
export interface Machine {
  cpu: string;
  cores: number;
  ramGB: number;
  node: string;
  os: string;
}
export function machineInfo(): Machine;
export function machineLine(machine: Machine): string;
/** A docs section's opening lines: heading, when and where measured, how long `part` took, the command. */
export function renderSectionHead(heading: string, context: { startedAt: Date; machine: Machine; totalMs: number; command: string }, part: string): string[];
export function shellQuote(arg: string): string;
export function writeDocsSection(path: string, heading: string, section: string, options?: { after?: string | null }): void;
