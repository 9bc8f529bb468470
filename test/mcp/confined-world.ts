import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../../src/interfaces/mcp/server.js';
import { makeTempDir } from '../helpers/cli.js';
import { type TestHome, makeIndexedHome } from '../helpers/home.js';
import { buildSampleHistory } from '../rlm/history-builder.js';

/**
 * A caller's project and, beside it, a folder outside every allowed root holding things that would show in an
 * answer if they were ever read: a history index whose summary holds MARKER, a Puffin history whose prompt holds
 * it, and a secret file holding SECRET. Inside the project: symlinks that lead out, and (as controls proving the
 * markers are seen when read) copies of the outside index and history.
 */
export const MARKER = 'zanzibarquokka';
export const SECRET = 'outsidesecretvalue';

export interface ConfinedWorld {
  home: TestHome;
  project: string;
  outside: string;
  /** A real MCP server (createMcpServer) on the in-memory transport, its client reporting the project as its root. */
  connect(): Promise<McpLink>;
  cleanup(): Promise<void>;
}

export interface McpLink {
  client: Client;
  call(name: string, args: unknown): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function makeConfinedWorld(): Promise<ConfinedWorld> {
  const home = await makeIndexedHome({ zone: 'UTC' });
  const temp = makeTempDir('moon-confined-');
  const project = join(temp.path, 'project');
  const outside = join(temp.path, 'outside');
  mkdirSync(join(project, '.puffin'), { recursive: true });
  mkdirSync(join(project, 'control'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  const history = JSON.stringify(buildSampleHistory());

  // The project's own index, at the default place.
  writeFileSync(join(project, '.puffin', 'history.json'), history);
  await home.moon.memory.rlmIndex({ historyPath: join(project, '.puffin', 'history.json'), outputPath: join(project, '.puffin', 'history.index.json') });

  // Outside: an index built from a clean history, then the history given MARKER (only reading it shows it) ...
  writeFileSync(join(outside, 'history.json'), history);
  await home.moon.memory.rlmIndex({ historyPath: join(outside, 'history.json'), outputPath: join(outside, 'clean.index.json') });
  const marked = history.replace('Add a regression test.', `Add a regression test for ${MARKER}.`);
  if (marked === history) throw new Error('the sample history changed: the marker has nowhere to go');
  writeFileSync(join(outside, 'history.json'), marked);
  // ... and an index whose first segment's summary holds MARKER (reading the index shows it).
  const index = JSON.parse(readFileSync(join(outside, 'clean.index.json'), 'utf8')) as { segments: Array<{ summary: string }> };
  for (const segment of index.segments) segment.summary = `${segment.summary} ${MARKER}`;
  writeFileSync(join(outside, 'history.index.json'), JSON.stringify(index));
  writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
  writeFileSync(join(outside, 'secret.json'), `${SECRET} not json\n`);

  // Inside, leading out: symlinks, and an index whose history file is outside.
  symlinkSync(join(outside, 'history.index.json'), join(project, 'link-index.json'));
  symlinkSync(outside, join(project, 'link-dir'));
  symlinkSync(join(outside, 'secret.txt'), join(project, 'link-secret'));
  symlinkSync(join(outside, 'no-such-file.json'), join(project, 'dangling.json'));
  copyFileSync(join(outside, 'clean.index.json'), join(project, 'leaky.index.json'));

  // Controls, inside: the marked index and the marked history, read as they should be.
  copyFileSync(join(outside, 'history.index.json'), join(project, 'control', 'marked.index.json'));
  writeFileSync(join(project, 'control', 'history.json'), marked);
  const clean = JSON.parse(readFileSync(join(outside, 'clean.index.json'), 'utf8')) as { historyFile: string };
  clean.historyFile = join(project, 'control', 'history.json');
  writeFileSync(join(project, 'control', 'clean.index.json'), JSON.stringify(clean));
  // A file in the project that is not JSON: its parse error names it, never quotes it.
  writeFileSync(join(project, 'broken.json'), `${SECRET} is not json`);

  return {
    home,
    project,
    outside,
    connect: () => connectMcp(home, project),
    cleanup: async () => {
      await home.cleanup();
      temp.cleanup();
    },
  };
}

async function connectMcp(home: TestHome, project: string): Promise<McpLink> {
  const server = createMcpServer({ moon: () => home.moon, version: 'test', cwd: project, log: () => undefined });
  const client = new Client({ name: 'moon-test', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(project).href, name: 'project' }] }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    call: async (name, args) => (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** All the text of an answer: its text content and its structured content. */
export function answerText(result: CallToolResult): string {
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return `${text}\n${JSON.stringify(result.structuredContent ?? null)}`;
}
