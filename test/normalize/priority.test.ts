import { describe, expect, test } from 'vitest';
import type { Priority } from '../../src/model.js';
import { classifyPriority, isMutatingCommand } from '../../src/normalize/priority.js';

describe('classifyPriority: tools by name (seed 000 §3.5)', () => {
  const table: [string | null, string, Priority][] = [
    ['Write', 'src/app.ts', 'high'],
    ['Edit', 'src/app.ts', 'high'],
    ['MultiEdit', 'src/app.ts', 'high'],
    ['NotebookEdit', 'analysis.ipynb', 'high'],
    ['write', 'notes.md', 'high'],
    ['edit', 'notes.md', 'high'],
    ['apply_patch', 'src/app.ts', 'high'],
    ['write_to_file', '.env', 'high'],
    ['str_replace', 'src/app.ts', 'high'],
    ['Read', 'src/app.ts', 'normal'],
    ['read', 'src/app.ts', 'normal'],
    ['read_file', 'wrangler.toml', 'normal'],
    ['Glob', '**/*.ts', 'normal'],
    ['Grep', 'TODO', 'normal'],
    ['LS', '/repo', 'normal'],
    ['ls', '/repo', 'normal'],
    ['WebSearch', 'vitest 4 release notes', 'normal'],
    ['WebFetch', 'https://example.com', 'normal'],
    ['web_search', 'cloudflare wrangler', 'normal'],
    ['TodoWrite', 'plan', 'normal'],
    ['update_plan', 'plan', 'normal'],
    ['write_stdin', '', 'normal'],
    ['str_replace_based_edit_tool', 'command: view\npath: src/a.ts', 'normal'],
    ['str_replace_based_edit_tool', 'command: str_replace\npath: src/a.ts', 'high'],
    [null, 'anything', 'normal'],
  ];
  test.each(table)('%s %j → %s', (tool, subject, expected) => {
    expect(classifyPriority(tool, subject)).toBe(expected);
  });
});

describe('classifyPriority: config and gateway tools', () => {
  const table: [string, string, Priority][] = [
    ['gateway', 'action: config.patch\nraw: {"agents":{}}', 'high'],
    ['gateway', 'action: config.apply', 'high'],
    ['gateway', 'action: restart', 'high'],
    ['gateway', 'action: config.get\npath: update.channel', 'normal'],
    ['gateway', 'action: config.schema', 'normal'],
    ['config', 'set model=gpt-5', 'high'],
    ['get_config', 'key: model', 'normal'],
    ['patch_config', 'model', 'high'],
  ];
  test.each(table)('%s %j → %s', (tool, subject, expected) => {
    expect(classifyPriority(tool, subject)).toBe(expected);
  });
});

describe('classifyPriority: unknown tools', () => {
  const table: [string, Priority][] = [
    ['mcp__github__create_issue', 'high'],
    ['mcp__github__get_issue', 'normal'],
    ['deployApp', 'high'],
    ['delete_branch', 'high'],
    ['update_record', 'high'],
    ['Task', 'high'],
    ['memory_search', 'normal'],
    ['process', 'normal'],
  ];
  test.each(table)('%s → %s', (tool, expected) => {
    expect(classifyPriority(tool, 'x')).toBe(expected);
  });
});

describe('classifyPriority: hand-offs are events, task boards are bookkeeping', () => {
  // Tool names and inputs as they appear in test/fixtures/claude-code/real-worktrees-session-with-subagents and
  // test/fixtures/codex/synthetic-spawn-agent-subagent.jsonl.
  const table: [string, string, Priority][] = [
    ['Agent', 'description: Research Claude Code plan mode subagent_type: general-purpose name: alice isolation: worktree', 'high'],
    ['Task', 'description: Explore the repo subagent_type: Explore', 'high'],
    ['spawn_agent', 'message: Review the diff', 'high'],
    ['TaskCreate', 'subject: Research plan mode (alice) description: Teammate alice researches', 'normal'],
    ['TaskUpdate', 'taskId: 1 status: in_progress owner: alice', 'normal'],
    ['TaskList', 'TaskList', 'normal'],
    ['TaskGet', 'taskId: 3', 'normal'],
    ['TodoWrite', 'todos: [{"content":"Run tests","status":"pending"}]', 'normal'],
    ['TodoRead', '', 'normal'],
    ['ToolSearch', 'query: select:TaskCreate,SendMessage,TaskList,TaskGet max_results: 4', 'normal'],
  ];
  test.each(table)('%s %j → %s', (tool, subject, expected) => {
    expect(classifyPriority(tool, subject)).toBe(expected);
  });
});

describe('classifyPriority: migrations, deploys and installs are high', () => {
  const high = [
    'npx prisma migrate dev --name init',
    'prisma migrate deploy',
    'alembic upgrade head',
    'bin/rails db:migrate',
    'rake db:migrate',
    'npx knex migrate:latest',
    'npx sequelize-cli db:migrate',
    'python manage.py migrate',
    'diesel migration run',
    'npm run migrate',
    'psql "$DATABASE_URL" -f migrations/001_init.sql',
    'npx wrangler deploy',
    'vercel --prod',
    'vercel',
    'fly deploy',
    'kubectl apply -f k8s/',
    'terraform apply',
    'helm upgrade --install web ./chart',
    'docker push ghcr.io/acme/web:1.2',
    'pulumi up --yes',
    'npm install zod',
    'pnpm add -D vitest',
    'yarn add react',
    'pip install -r requirements.txt',
    'cargo add serde --features derive',
    'cargo install ripgrep',
    'sudo apt-get install -y sqlite3',
    'brew install jq',
    'git commit -m "merge round 1"',
    'git push origin master',
    'git merge --no-ff alice/research-plan-mode bob/research-teammates carol/research-beads -m "merge round 1"',
    'git rebase main',
    'git tag v1.2.0',
  ];
  const normal = [
    'psql "$DATABASE_URL" -c "select count(*) from users"',
    'ls migrations',
    'cat migrations/001_init.sql',
    'grep -rn migrate docs',
    'vercel ls',
    'git log --oneline -5',
    'npx vitest run test/migrations.test.ts',
  ];
  test.each(high)('high: %s', (command) => {
    expect(classifyPriority('Bash', command)).toBe('high');
  });
  test.each(normal)('normal: %s', (command) => {
    expect(classifyPriority('Bash', command)).toBe('normal');
  });
});

describe('classifyPriority: shell tools decide by the command', () => {
  const high = [
    'git commit -m "fix: retry"',
    'git push origin main',
    'git checkout -b feature/x',
    'git reset --hard HEAD~1',
    'git merge main',
    'git rebase -i HEAD~3',
    'git -C ../other commit -am wip',
    'git stash',
    'git branch -D old',
    'git config user.name Moon',
    'rm -rf dist',
    'mv a.ts b.ts',
    'cp .env.example .env',
    'mkdir -p src/normalize',
    'chmod +x bin/moon.js',
    'npm install zod',
    'npm i -D vitest',
    'pnpm add hono',
    'yarn',
    'pip install requests',
    'python3 -m pip install -r requirements.txt',
    'uv pip install ruff',
    "sed -i 's/a/b/' file.txt",
    "perl -pi -e 's/a/b/' file.txt",
    'echo hello > out.txt',
    'cat notes.md >> log.txt',
    "cat > notes.md <<'EOF'\nhello\nEOF",
    'docker run --rm -it node:20',
    'docker compose up -d',
    'kubectl apply -f deploy.yaml',
    'helm upgrade app ./chart',
    'terraform apply -auto-approve',
    'npx wrangler deploy',
    'npm run deploy',
    'gh pr create --fill',
    'find . -name "*.tmp" -delete',
    'find . -name "*.log" -exec rm {} \\;',
    'ls | xargs rm',
    'sudo systemctl restart nginx',
    'tar -xzf release.tgz',
    'curl -X POST https://api.example.com/items -d @body.json',
    'curl -o install.sh https://example.com/install.sh',
    'cd repo && npm ci',
    'npm test && git push',
    'git status; rm -f tmp.txt',
    "bash -lc 'git commit -am wip'",
    'FOO=1 npm install',
    'go mod tidy',
    'cargo add serde',
    'openclaw config set agents.defaults.model gpt-5',
    'kill 1234',
    '(cd web && npm install)',
  ];
  const normal = [
    'git status',
    'git log --oneline -5',
    'git diff HEAD~1',
    'git show abc1234',
    'git branch',
    'git branch -a',
    'git tag -l "v1*"',
    'git stash list',
    'git config --get user.name',
    'git -C ../other --no-pager log',
    'ls -la',
    'cat package.json',
    'grep -rn "TODO" src',
    'rg "deploy" docs',
    'grep deploy notes.md',
    'find . -name "*.ts"',
    'npm test',
    'npm run build',
    'npx vitest run',
    'node scripts/demo.mjs',
    'echo "a > b"',
    "awk '$1 > 3' data.txt",
    'npm test 2>&1 | tail -20',
    'ls > /dev/null 2>&1',
    'cmd 2>/dev/null',
    "python3 - <<'EOF'\nif x > 3:\n    print('rm -rf /')\nEOF",
    'docker ps -a',
    'docker logs web',
    'docker compose logs -f',
    'kubectl get pods',
    'gh pr view 12',
    'gh pr list',
    'tar -tzf release.tgz',
    'curl -s https://example.com/health',
    "sed -n '1,20p' src/app.ts",
    'uv pip list',
    'go mod graph',
    'openclaw config get agents',
    'openclaw gateway status',
    "echo 'x && rm y'",
    '',
  ];

  test.each(high)('high: %s', (command) => {
    expect(classifyPriority('Bash', command)).toBe('high');
  });
  test.each(normal)('normal: %j', (command) => {
    expect(classifyPriority('Bash', command)).toBe('normal');
  });

  test('every shell tool name uses the command rule', () => {
    for (const tool of ['Bash', 'bash', 'shell', 'exec_command', 'exec', 'run_command', 'local_shell']) {
      expect(classifyPriority(tool, 'git push')).toBe('high');
      expect(classifyPriority(tool, 'git status')).toBe('normal');
    }
  });

  test('isMutatingCommand stays fast on a huge command', () => {
    const command = `${'echo x | grep y && '.repeat(50_000)}ls`;
    const started = performance.now();
    expect(isMutatingCommand(command)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
