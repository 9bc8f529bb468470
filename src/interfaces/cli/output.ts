/** stdout is for results; everything else (progress, warnings, logs) goes to stderr. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  isTTY: boolean;
  readStdin: () => Promise<string>;
}

export function createProcessIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    isTTY: Boolean(process.stderr.isTTY),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

export function printJson(io: CliIO, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/** A one-line progress bar on stderr, drawn only on a terminal; `format` writes the counts (bytes, …). */
export function createProgress(io: CliIO, label: string, format: (count: number) => string = String): ((done: number, total: number) => void) & { finish(): void } {
  let last = 0;
  const draw = (done: number, total: number): void => {
    if (!io.isTTY) return;
    const now = Date.now();
    if (done !== total && now - last < 100) return;
    last = now;
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${format(done)}/${format(total)}\u001b[K`);
  };
  return Object.assign(draw, {
    finish() {
      if (io.isTTY) process.stderr.write('\n');
    },
  });
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}
