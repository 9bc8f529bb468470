import type { Command } from 'commander';
import { describeConfig } from '../../../config.js';
import type { CliContext } from '../context.js';
import { printJson } from '../output.js';

export function registerConfig(program: Command, context: CliContext): void {
  program
    .command('config')
    .description('show the effective configuration (moon.toml → MOON_* env → flags)')
    .option('--show', 'print the merged configuration')
    .option('--json', 'print as JSON')
    .action((options: { show?: boolean; json?: boolean }) => {
      const config = describeConfig(context.config());
      if (options.json || !options.show) return printJson(context.io, config);
      const lines: string[] = [];
      const walk = (value: unknown, prefix: string): void => {
        if (value && typeof value === 'object' && !Array.isArray(value)) {
          for (const [key, inner] of Object.entries(value)) walk(inner, prefix ? `${prefix}.${key}` : key);
        } else lines.push(`${prefix} = ${JSON.stringify(value)}`);
      };
      walk(config, '');
      context.io.out(lines.join('\n'));
    });
}
