import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { MoonError, errnoOf } from '../errors.js';
import { quoteExcerpt } from '../net/http.js';
import { ANTHROPIC_JSON_INSTRUCTION } from './anthropic.js';
import type { CompleteOptions, Provider, ProviderUsage } from './provider.js';
import { DEFAULT_LLM_TIMEOUT_MS, checkAnswerText, createAnswerError } from './remote.js';

/**
 * The `command` provider: any agent CLI that reads a prompt on stdin and prints its answer on stdout —
 * `claude -p --output-format json`, `codex exec`, a local script (seed 004's rlm-subcall agent stands behind
 * one). moon runs it without a shell (`distill.command`, a command line or an argv list), writes the prompt (the
 * system text first, and a JSON-only instruction when JSON is asked) and closes stdin.
 *
 * - **Answer**: stdout, trimmed. Claude Code's JSON result (`{"type":"result","result":…}`, or an array ending in
 *   one) is unwrapped: its `result` is the answer, `is_error` makes it an error, and its cost and token counts
 *   are reported through `onUsage`. Any other output — JSON or prose — is the answer as printed.
 * - **Failures**: a non-zero exit or a signal is an `io` error quoting the end of stderr; a program that cannot be
 *   started is `bad_config` naming `distill.command`; empty output is no answer.
 * - **Timeout**: `distill.timeout_ms` (or the call's `timeoutMs`); then the process group gets SIGTERM, and SIGKILL
 *   two seconds later, so an agent's own children go too.
 */
export interface CommandProviderOptions {
  /** The command line (split like a shell would, without one) or its argv. */
  command: string | readonly string[];
  /** A label for the model (distill.model); default the program's name. */
  model?: string | undefined;
  timeoutMs?: number | undefined;
  /** The environment the command runs in (its PATH, HOME and keys). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

const MAX_STDOUT_BYTES = 16 * 1024 * 1024;
const STDERR_TAIL_BYTES = 8 * 1024;
const KILL_GRACE_MS = 2_000;

export class CommandProvider implements Provider {
  readonly name = 'command' as const;
  readonly generative = true;
  readonly model: string;
  readonly argv: readonly string[];

  constructor(private readonly options: CommandProviderOptions) {
    this.argv = typeof options.command === 'string' ? parseCommandLine(options.command) : [...options.command];
    if (this.argv.length === 0 || this.argv[0] === '') {
      throw new MoonError('bad_config', 'distill.command is empty: name the agent CLI to run, e.g. "claude -p --output-format json"');
    }
    this.model = options.model ?? basename(this.argv[0]!);
  }

  async complete(prompt: string, options: CompleteOptions = {}): Promise<string> {
    const input = [options.system, options.json ? ANTHROPIC_JSON_INSTRUCTION : undefined, prompt].filter((part) => part !== undefined && part !== '').join('\n\n');
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
    const stdout = await this.run(input, timeoutMs);
    const { text, usage } = readCommandOutput(this.model, stdout);
    if (usage) options.onUsage?.(usage);
    return checkAnswerText('command', this.model, text, 'the command output', options.json === true);
  }

  private run(input: string, timeoutMs: number): Promise<string> {
    const [program, ...args] = this.argv as [string, ...string[]];
    const label = `command "${basename(program)}"`;
    return new Promise((resolve, reject) => {
      const env = Object.fromEntries(Object.entries(this.options.env ?? process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
      const group = process.platform !== 'win32';
      const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], env, detached: group, windowsHide: true });
      const out: Buffer[] = [];
      let outBytes = 0;
      let errTail = Buffer.alloc(0);
      let failure: MoonError | null = null;
      let settled = false;
      const kill = (signal: NodeJS.Signals): void => {
        try {
          if (group && child.pid !== undefined) process.kill(-child.pid, signal);
          else child.kill(signal);
        } catch {
          // gone already
        }
      };
      const stop = (error: MoonError): void => {
        failure ??= error;
        kill('SIGTERM');
        setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS).unref();
      };
      const timer = setTimeout(() => {
        stop(new MoonError('io', `${label} timed out after ${timeoutMs} ms`, { hint: 'raise distill.timeout_ms (MOON_DISTILL_TIMEOUT_MS), or ask for less' }));
      }, timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > MAX_STDOUT_BYTES) return stop(new MoonError('io', `${label} printed more than ${MAX_STDOUT_BYTES} bytes; no answer is that long`));
        out.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        errTail = Buffer.concat([errTail, chunk]);
        if (errTail.length > STDERR_TAIL_BYTES) errTail = errTail.subarray(errTail.length - STDERR_TAIL_BYTES);
      });
      // A command that exits without reading its input closes the pipe: not an error of its own.
      child.stdin.on('error', () => undefined);
      child.on('error', (error) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        const code = errnoOf(error);
        if (code === 'ENOENT' || code === 'EACCES') {
          reject(
            new MoonError('bad_config', `distill.command: cannot run "${program}" (${code === 'ENOENT' ? 'no such program' : 'permission denied'})`, {
              hint: 'check distill.command (MOON_DISTILL_COMMAND) and PATH',
            }),
          );
        } else reject(new MoonError('io', `${label} failed to start: ${error.message}`, { cause: error }));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        if (failure) return reject(failure);
        const stderr = errTail.toString('utf8').trim();
        const said = stderr === '' ? '' : `: ${quoteExcerpt(lastLines(stderr), 300)}`;
        if (signal) return reject(new MoonError('io', `${label} was stopped by ${signal}${said}`));
        if (code !== 0) return reject(new MoonError('io', `${label} exited with code ${code}${said}`));
        resolve(Buffer.concat(out).toString('utf8'));
      });
      child.stdin.end(input);
    });
  }
}

export function createCommandProvider(options: CommandProviderOptions): CommandProvider {
  return new CommandProvider(options);
}

/** stdout → the answer text, unwrapping Claude Code's JSON result. */
export function readCommandOutput(model: string, stdout: string): { text: string; usage: ProviderUsage | null } {
  const trimmed = stdout.trim();
  if (trimmed === '') throw createAnswerError('command', model, 'the command printed nothing');
  if (trimmed[0] !== '{' && trimmed[0] !== '[') return { text: trimmed, usage: null };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { text: trimmed, usage: null };
  }
  const envelope = findResultEnvelope(value);
  if (!envelope) return { text: trimmed, usage: null };
  const subtype = typeof envelope.subtype === 'string' ? envelope.subtype : '';
  if (envelope.is_error === true || subtype.startsWith('error')) {
    const said = typeof envelope.result === 'string' && envelope.result.trim() !== '' ? `: ${quoteExcerpt(envelope.result, 300)}` : '';
    throw new MoonError('io', `command model "${model}" reported an error (${subtype || 'is_error'})${said}`);
  }
  return { text: typeof envelope.result === 'string' ? envelope.result : '', usage: readUsage(envelope) };
}

type Json = Record<string, unknown>;

/** Claude Code's `{"type":"result", …}`, alone or as the last result of a list of messages. */
function findResultEnvelope(value: unknown): Json | null {
  const isResult = (item: unknown): item is Json => typeof item === 'object' && item !== null && !Array.isArray(item) && (item as Json).type === 'result';
  if (isResult(value)) return value;
  if (Array.isArray(value)) {
    for (let index = value.length - 1; index >= 0; index -= 1) if (isResult(value[index])) return value[index] as Json;
  }
  return null;
}

function readUsage(envelope: Json): ProviderUsage | null {
  const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined);
  const usage = (typeof envelope.usage === 'object' && envelope.usage !== null ? envelope.usage : {}) as Json;
  const input = number(usage.input_tokens);
  const cached = (number(usage.cache_read_input_tokens) ?? 0) + (number(usage.cache_creation_input_tokens) ?? 0);
  const result: ProviderUsage = {};
  const cost = number(envelope.total_cost_usd) ?? number(envelope.cost_usd);
  if (cost !== undefined) result.costUsd = cost;
  if (input !== undefined) result.inputTokens = input + cached;
  const output = number(usage.output_tokens);
  if (output !== undefined) result.outputTokens = output;
  return Object.keys(result).length > 0 ? result : null;
}

function lastLines(text: string): string {
  return text.split('\n').slice(-3).join(' | ');
}

/**
 * A command line split into words the way a POSIX shell would, with nothing else a shell does: single quotes
 * keep everything, double quotes keep all but `\"` and `\\`, a backslash outside quotes escapes one character.
 * No variables, globs, pipes or redirections — to run those, name a script.
 */
export function parseCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index]!;
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === '\\' && (line[index + 1] === '"' || line[index + 1] === '\\')) word += line[++index];
      else word += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && index + 1 < line.length) {
      word += line[++index];
      inWord = true;
    } else if (/\s/u.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new MoonError('bad_config', `distill.command: unclosed ${quote === '"' ? 'double' : 'single'} quote in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  return words;
}
