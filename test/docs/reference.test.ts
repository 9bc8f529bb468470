import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, type Option } from 'commander';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createHttpApp } from '../../src/interfaces/http/app.js';
import { buildOpenApi } from '../../src/interfaces/http/openapi.js';
import { registerProgram } from '../../src/interfaces/cli/main.js';
import type { CliContext } from '../../src/interfaces/cli/context.js';
import { type Moon, createMoon } from '../../src/moon.js';
import { REPO, makeTempDir } from '../helpers/cli.js';

/**
 * The reference cannot drift from the code: every command, subcommand and flag the CLI registers is documented in
 * docs/cli.md, every route the HTTP app serves is in its route table with its parameters, and every `moon …`
 * command line the docs show names a command that exists with flags it takes. Names come from the code (the
 * commander tree, the Hono app, the OpenAPI document), so a rename fails here until the docs follow it.
 */
const DOCS = ['README.md', 'docs/cli.md', 'docs/agents/claude-code.md', 'docs/agents/codex.md', 'docs/agents/openclaw.md', 'docs/formats.md', 'docs/day-with-moon.md'];
const read = (file: string): string => readFileSync(join(REPO, file), 'utf8');
const cliDoc = read('docs/cli.md');

/** The CLI's command tree, registered and never run: its actions would throw. */
function buildTree(): Command {
  const refuse = (): never => {
    throw new Error('the command tree is only enumerated here');
  };
  const context: CliContext = { io: { out: refuse, err: refuse, isTTY: false, readStdin: refuse }, config: refuse, moon: refuse, setExitCode: refuse, env: {} };
  return registerProgram(new Command('moon'), context);
}

const visible = (command: Command): Command[] => command.commands.filter((sub) => !(sub as unknown as { _hidden?: boolean })._hidden);
const flags = (command: Command): string[] => command.options.filter((option: Option) => !option.hidden && option.long).map((option) => option.long!);

/** Every command as its path of names, parents first. */
function walk(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return visible(command).flatMap((sub) => [{ path: [...path, sub.name()], command: sub }, ...walk(sub, [...path, sub.name()])]);
}

/** docs/cli.md's `## moon NAME …` sections, by top-level command name: heading and text up to the next `## `. */
function sections(): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of cliDoc.split(/^(?=## )/m)) {
    const name = /^## moon ([a-z][a-z-]*)/.exec(part)?.[1];
    if (name) found.set(name, `${found.get(name) ?? ''}${part}`);
  }
  return found;
}

const mentions = (text: string, word: string): boolean => new RegExp(`(^|[^\\w-])${word.replace(/[-]/g, '\\-')}(?![\\w-])`).test(text);

describe('docs/cli.md documents the CLI the code registers', () => {
  const tree = buildTree();
  const commands = walk(tree);
  const bySection = sections();

  test('the tree is read from the code', () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.every(({ command }) => command.name().length > 0)).toBe(true);
  });

  test('every command has its section, every subcommand is named in its command\'s section', () => {
    const missing = commands.filter(({ path }) => {
      const section = bySection.get(path[0]!);
      return section === undefined || !path.slice(1).every((name) => mentions(section, name));
    });
    expect(missing.map(({ path }) => `moon ${path.join(' ')}`)).toEqual([]);
  });

  test('every flag of every command is in its command\'s section; the global ones are in the doc', () => {
    const missing = commands.flatMap(({ path, command }) => flags(command).filter((flag) => !mentions(bySection.get(path[0]!) ?? '', flag)).map((flag) => `moon ${path.join(' ')} ${flag}`));
    expect(missing).toEqual([]);
    expect(flags(tree).filter((flag) => !mentions(cliDoc, flag))).toEqual([]);
  });

  test('no section documents a command that is gone', () => {
    const names = new Set(visible(tree).map((command) => command.name()));
    expect([...bySection.keys()].filter((name) => !names.has(name))).toEqual([]);
  });
});

/** `moon …` command lines the docs show: in code spans and in shell code blocks (`moon`, `npx moon`, `./bin/moon.js`). */
function documentedCommandLines(text: string): string[] {
  const lines: string[] = [];
  for (const span of text.matchAll(/`([^`\n]+)`/g)) lines.push(span[1]!);
  for (const block of text.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) lines.push(...block[1]!.split('\n'));
  return lines.flatMap((line) =>
    line
      .replace(/\s+#.*$/, '')
      .split(/&&|;|\|\||\|/)
      .map((part) => part.trim())
      .map((part) => /^(?:\S+=\S+\s+)*(?:npx moon|\.\/bin\/moon\.js|moon)\s+(.*)$/.exec(part)?.[1])
      .filter((rest): rest is string => rest !== undefined),
  );
}

describe('every `moon …` line the docs show names a command that exists, with flags it takes', () => {
  const tree = buildTree();
  const global = new Set(flags(tree));

  test.each(DOCS)('%s', (file) => {
    const wrong: string[] = [];
    const lines = documentedCommandLines(read(file));
    for (const rest of lines) {
      const words = rest.split(/\s+/).filter((word) => word.length > 0);
      let command = tree;
      const path: Command[] = [];
      let index = 0;
      // Global flags (and their values) may come first: `moon --home DIR index`.
      while (words[index]?.startsWith('--')) {
        const flag = words[index]!.split('=')[0]!;
        if (!global.has(flag) && flag !== '--help') wrong.push(`${rest}: ${flag} is no global flag`);
        index += tree.options.find((option) => option.long === flag)?.required && !words[index]!.includes('=') ? 2 : 1;
      }
      for (; index < words.length; index += 1) {
        const sub = visible(command).find((candidate) => candidate.name() === words[index] || candidate.aliases().includes(words[index]!));
        if (!sub) break;
        path.push(sub);
        command = sub;
      }
      if (path.length === 0) {
        // A placeholder (`moon …`, `moon COMMAND`) names no command; a lowercase word there must be one.
        const first = words[index];
        if (first && /^[a-z][a-z-]+$/.test(first)) wrong.push(`${rest}: no command "${first}"`);
        continue;
      }
      const known = new Set([...global, ...path.flatMap((node) => flags(node)), ...walk(command).flatMap(({ command: sub }) => flags(sub)), '--help']);
      for (const word of words.slice(index)) {
        const flag = /^(--[a-z][a-z0-9-]*)/.exec(word)?.[1];
        if (flag && !known.has(flag)) wrong.push(`moon ${path.map((node) => node.name()).join(' ')}: no flag ${flag} (in \`${rest}\`)`);
      }
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

describe('the HTTP routes in docs/cli.md are the routes the app serves', () => {
  let temp: { path: string; cleanup: () => void };
  let moon: Moon;
  beforeAll(() => {
    temp = makeTempDir('moon-docs-routes-');
    moon = createMoon(loadConfig({ env: { MOON_HOME: join(temp.path, 'home') } }), () => Date.now());
  });
  afterAll(async () => {
    await moon?.close();
    temp?.cleanup();
  });

  /** `METHOD /path` → the route table row of docs/cli.md. */
  function documentedRoutes(): Map<string, { route: string; what: string }> {
    const rows = new Map<string, { route: string; what: string }>();
    for (const match of cliDoc.matchAll(/^\| `((?:GET|POST|PUT|DELETE|PATCH) [^`]+)` \| (.*) \|$/gm)) {
      const route = match[1]!;
      rows.set(route.replace(/[?[].*$/, ''), { route, what: match[2]! });
    }
    return rows;
  }

  const served = (): string[] =>
    [...new Set(createHttpApp(moon, { version: 'test' }).routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path}`))].sort();

  test('every route served is documented, and every documented route is served', () => {
    const routes = served();
    expect(routes.length).toBeGreaterThan(5);
    expect([...documentedRoutes().keys()].sort()).toEqual(routes);
  });

  test('the OpenAPI document describes the routes served', () => {
    const api = buildOpenApi('test') as { paths: Record<string, Record<string, unknown>> };
    const described = Object.entries(api.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`));
    expect(described.sort()).toEqual(served().filter((route) => route !== 'GET /openapi.json'));
  });

  test('each route\'s parameters, as OpenAPI names them, are the ones its row documents', () => {
    type Operation = { parameters?: { name: string; in: string; deprecated?: boolean }[]; requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, { deprecated?: boolean }> } } } } };
    const api = buildOpenApi('test') as { paths: Record<string, Record<string, Operation>> };
    const rows = documentedRoutes();
    const wrong: string[] = [];
    for (const [path, methods] of Object.entries(api.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
        const row = rows.get(key);
        if (!row) continue;
        const properties = operation.requestBody?.content['application/json'].schema.properties ?? {};
        const taken = [
          ...(operation.parameters ?? []).filter((parameter) => parameter.in !== 'path').map((parameter) => ({ name: parameter.name, deprecated: Boolean(parameter.deprecated) })),
          ...Object.entries(properties).map(([name, schema]) => ({ name, deprecated: Boolean(schema.deprecated) })),
        ];
        const names = new Set(taken.map((parameter) => parameter.name));
        // Named as parameters: `?a=…&b=` in the route, `{a, b?, …}` as a body.
        const declared = [...[...row.route.matchAll(/[?&](\w+)=/g)].map((match) => match[1]!), ...[...row.what.matchAll(/^`\{([^}]*)\}`/g)].flatMap((match) => match[1]!.split(',').map((name) => name.trim().replace(/\?$/, '')).filter((name) => /^\w+$/.test(name)))];
        for (const name of declared) if (!names.has(name)) wrong.push(`${key}: documents ${name}, which it does not take`);
        const words = new Set([...declared, ...[...row.what.matchAll(/`(\w+)`/g)].map((match) => match[1]!), ...[...row.what.matchAll(/"(\w+)":/g)].map((match) => match[1]!)]);
        for (const parameter of taken) if (!parameter.deprecated && !words.has(parameter.name)) wrong.push(`${key}: takes ${parameter.name}, which its row does not name`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
