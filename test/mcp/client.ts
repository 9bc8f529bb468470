import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from '../helpers/cli.js';

/** A real MCP client talking to `node bin/moon.js mcp` (the built CLI) over stdio. */
export interface McpSession {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** Problems the client met reading the server's stdout (anything that is not a protocol message). */
  protocolErrors: string[];
  /** Milliseconds from spawning the server to the end of the handshake. */
  initializeMs: number;
  /** Change the roots the client reports, and tell the server. */
  setRoots(roots: string[]): Promise<void>;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface McpSessionOptions {
  home: string;
  /** The server's working directory. */
  cwd: string;
  /** file:// URIs the client reports as its roots; null: the client has no roots capability. */
  roots?: string[] | null;
  env?: Record<string, string>;
}

export async function startMcp(options: McpSessionOptions): Promise<McpSession> {
  let roots = options.roots ?? null;
  const client = new Client({ name: 'moon-test', version: '1.0.0' }, { capabilities: roots === null ? {} : { roots: { listChanged: true } } });
  if (roots !== null) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: (roots ?? []).map((uri) => ({ uri, name: uri })) }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', MOON_HOME: options.home, MOON_RESIDENTIAL_TIMEZONE: 'UTC', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const protocolErrors: string[] = [];
  const started = performance.now();
  await client.connect(transport);
  const initializeMs = performance.now() - started;
  transport.onerror = (error) => protocolErrors.push(error.message);
  return {
    client,
    stderr: () => stderr,
    protocolErrors,
    initializeMs,
    async setRoots(next) {
      roots = next;
      await client.sendRootsListChanged();
    },
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

/** The text of a tool result (its one text content). */
export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** Every string inside a value (structured content), keys included. */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsIn(inner)]);
  return [];
}
