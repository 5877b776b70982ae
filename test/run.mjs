// Runs every test file under test/ with Node's own test runner (TypeScript through tsx).
// `node test/run.mjs [filter]` runs only the files whose path contains `filter`.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'support' && name !== 'fixtures') walk(full);
    } else if (/\.test\.tsx?$/.test(name) && (!filter || full.includes(filter))) {
      files.push(path.relative(process.cwd(), full));
    }
  }
})(root);

if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
