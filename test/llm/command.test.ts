import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { failure } from '../helpers/moon-error.js';
import { createProvider } from '../../src/llm/index.js';
import { CommandProvider, parseCommandLine, readCommandOutput } from '../../src/llm/command.js';
import { isProcessAlive } from '../../src/lock/pid-lock.js';

const STUB = new URL('../fixtures/rlm/stub-agent.mjs', import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), 'moon-command-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function stub(mode: string, extra: Record<string, string> = {}, timeoutMs = 20_000): CommandProvider {
  return new CommandProvider({ command: [process.execPath, STUB], timeoutMs, env: { PATH: process.env.PATH, STUB_MODE: mode, ...extra } });
}

describe('the command provider against a stub agent CLI', () => {
  it('writes the prompt on stdin (system text and the JSON instruction first) and returns stdout, trimmed', async () => {
    const provider = stub('echo');
    expect([provider.name, provider.generative]).toEqual(['command', true]);
    const answer = await provider.complete('Summarise this.', { system: 'You summarise.', json: false });
    expect(answer).toBe(`received ${'You summarise.\n\nSummarise this.'.length} characters: You summarise.\n\nSummarise this.`);
    const json = await provider.complete('Give JSON.', { json: true });
    expect(json).toContain('Answer with one JSON object and nothing else');
  });

  it("unwraps Claude Code's JSON result and reports its cost and tokens", async () => {
    const usage: unknown[] = [];
    const answer = await stub('claude').complete('[prompt p1 · x]', { json: true, onUsage: (reported) => usage.push(reported) });
    expect(JSON.parse(answer)).toMatchObject({ summary: 'Stub summary of p1.', importanceScore: 0.7 });
    expect(usage).toEqual([{ costUsd: 0.0123, inputTokens: 1000, outputTokens: 60 }]);
    expect(await stub('claude-list').complete('x')).toBe('listed answer');
    expect(await stub('json').complete('[prompt p9 · x]', { json: true })).toContain('Stub summary of p9.');
  });

  it('fails with the exit code and the end of stderr, or the agent’s own error', async () => {
    const exit = await failure(stub('fail').complete('x'));
    expect(exit.code).toBe('io');
    expect(exit.message).toMatch(/^command "node" exited with code 3: .*authentication failed: not logged in/);
    const claude = await failure(stub('claude-error').complete('x'));
    expect(claude.message).toBe('command model "node" reported an error (error_max_turns): "ran out of turns"');
    const empty = await failure(stub('empty').complete('x'));
    expect(empty.message).toContain('the command printed nothing');
  });

  it('stops a command that runs past the timeout, its process included', async () => {
    const pidFile = join(home, 'stub.pid');
    const started = Date.now();
    const error = await failure(stub('sleep', { STUB_PID_FILE: pidFile }, 400).complete('x'));
    expect(error.message).toBe('command "node" timed out after 400 ms');
    expect(error.hint).toMatch(/distill\.timeout_ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('passes an invalid JSON answer through for the caller to recover', async () => {
    expect(await stub('invalid').complete('x', { json: true })).toBe('{"summary": "A cut answer about the stub", "topics": ["stu');
  });

  it('names distill.command when the program cannot be run', async () => {
    const error = await failure(new CommandProvider({ command: 'moon-no-such-agent-cli -p', env: { PATH: process.env.PATH } }).complete('x'));
    expect(error.code).toBe('bad_config');
    expect(error.message).toBe('distill.command: cannot run "moon-no-such-agent-cli" (no such program)');
  });

  it('splits a command line like a shell would, without one', () => {
    expect(parseCommandLine('claude -p --output-format json')).toEqual(['claude', '-p', '--output-format', 'json']);
    expect(parseCommandLine(`run "a b" 'c "d"' e\\ f "g\\"h" ''`)).toEqual(['run', 'a b', 'c "d"', 'e f', 'g"h', '']);
    expect(() => parseCommandLine('run "open')).toThrow(/unclosed double quote/);
    expect(readCommandOutput('m', '  plain text \n')).toEqual({ text: 'plain text', usage: null });
    expect(readCommandOutput('m', '{"summary": "x"}')).toEqual({ text: '{"summary": "x"}', usage: null });
  });

  it('is built by createProvider from distill.command, which the config requires for this provider', () => {
    const config = loadConfig({ home, env: { MOON_DISTILL_PROVIDER: 'command', MOON_DISTILL_COMMAND: 'claude -p --output-format json', MOON_DISTILL_TIMEOUT_MS: '90000' } });
    expect(config.distill.command).toBe('claude -p --output-format json');
    const provider = createProvider(config.distill, {}) as CommandProvider;
    expect(provider.argv).toEqual(['claude', '-p', '--output-format', 'json']);
    expect(provider.model).toBe('claude');
    expect(createProvider({ provider: 'command', command: ['codex', 'exec'], model: 'gpt-5' }, {}).model).toBe('gpt-5');
    expect(() => loadConfig({ home, env: { MOON_DISTILL_PROVIDER: 'command' } })).toThrow('MOON_DISTILL_PROVIDER: distill.command is required when distill.provider = "command"');
    expect(() => createProvider({ provider: 'command' }, {})).toThrow('distill.command is required');
  });
});
