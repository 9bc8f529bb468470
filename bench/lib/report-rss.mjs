// Loaded with `node --import` before a command: at exit, writes the process's peak resident set size (bytes) and
// its CPU time to the file named by MOON_BENCH_RSS_FILE, so a benchmark can read what a child process used.
import { writeFileSync } from 'node:fs';

const target = process.env.MOON_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ maxRssBytes: usage.maxRSS * 1024, userMs: Math.round(usage.userCPUTime / 1000), systemMs: Math.round(usage.systemCPUTime / 1000) }));
  });
}
