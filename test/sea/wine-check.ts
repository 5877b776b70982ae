// The Windows single executable (release/medchat-win-x64.exe, `npm run package`) under Wine, beside the Linux one:
// the same commands against the same loopback stand-in, compared answer by answer and exit code by exit code, and
// the Windows one's files where Windows keeps them (%APPDATA% for config, %LOCALAPPDATA% for data).
//   node --import tsx test/sea/wine-check.ts            (needs `wine`: Debian's wine64; .ci/run installs it)
// Wine's version is set to Windows 10 in a prefix of its own under the temp folder, removed at the end. Every output
// goes to a file: Wine cannot hand a Unix pipe to a Windows console program. Every wait is bounded.
// What Wine cannot stand in for (a real Windows console, Windows' file locking) is said in the README, not checked here.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceDouble } from '../../src/stand-in/index.js';
import { REPO, TEST_KEY } from '../support/cli.js';

const LINUX = path.join(REPO, 'release', 'medchat-linux-x64');
const WINDOWS = path.join(REPO, 'release', 'medchat-win-x64.exe');
for (const f of [LINUX, WINDOWS]) if (!fs.existsSync(f)) throw new Error(`${f} is missing: run npm run package first`);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-wine-'));
const prefix = path.join(work, 'prefix');
const wineEnv = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' }; // no Mono/Gecko prompts

function wine(args: string[], timeoutMs: number) {
  const r = spawnSync('wine', args, { env: wineEnv, stdio: 'ignore', timeout: timeoutMs });
  if (r.error) throw new Error(`wine ${args.join(' ')}: ${r.error.message}`);
  return r.status;
}

interface Run {
  requests?: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One medchat command, stdin and stdout on files (as a Windows console program under Wine needs), in `cwd`. */
async function run(exe: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, stdinText = ''): Promise<Run> {
  const n = fs.readdirSync(cwd).filter((f) => f.startsWith('out-')).length;
  const files = { in: path.join(cwd, `in-${n}.txt`), out: path.join(cwd, `out-${n}.txt`), err: path.join(cwd, `err-${n}.txt`) };
  fs.writeFileSync(files.in, stdinText);
  const fds = [fs.openSync(files.in, 'r'), fs.openSync(files.out, 'w'), fs.openSync(files.err, 'w')];
  const [cmd, ...argv] = exe === WINDOWS ? ['wine', exe, ...args] : [exe, ...args];
  // Not spawnSync: the stand-in answering it runs in this process.
  const child = spawn(cmd!, argv, { cwd, env, stdio: fds });
  for (const fd of fds) fs.closeSync(fd);
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(exe)} ${args.join(' ')}: did not end within 120 s`));
    }, 120_000);
    child.on('error', reject);
    child.on('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  return { code, stdout: fs.readFileSync(files.out, 'utf8'), stderr: fs.readFileSync(files.err, 'utf8') };
}

const started = Date.now();
const double = await startServiceDouble({ contextWindow: 131072 });
try {
  // A Windows 10 prefix of our own.
  assert.equal(wine(['wineboot', '-i'], 240_000), 0, 'wineboot -i');
  assert.equal(wine(['winecfg', '-v', 'win10'], 60_000), 0, 'winecfg -v win10');
  const user = fs.readdirSync(path.join(prefix, 'drive_c', 'users')).find((u) => u !== 'Public')!;
  const appData = path.join(prefix, 'drive_c', 'users', user, 'AppData');
  console.log(`wine: prefix ready in ${((Date.now() - started) / 1000).toFixed(1)} s (user ${user})`);

  // The same service and key for both; no MEDCHAT_*_DIR: each finds its own platform's folders.
  const service = { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY, MEDCHAT_RETRIES: '1', MEDCHAT_LANG: 'en', NO_COLOR: '1' };
  const linuxHome = path.join(work, 'linux-home');
  fs.mkdirSync(linuxHome);
  const linuxEnv = { PATH: '/usr/bin:/bin', HOME: linuxHome, LANG: 'C.UTF-8', ...service };
  const windowsEnv = { ...wineEnv, ...service };

  const questions = ['{"id":"a","prompt":"first question"}', '{"id":"b","prompt":"second question"}'];
  const steps: { name: string; args: string[]; stdin?: string; before?: (dir: string) => void }[] = [
    { name: '--version', args: ['--version'] },
    { name: 'one-shot', args: ['What is a normal adult heart rate?'] },
    { name: '-c (continues the last conversation)', args: ['-c', 'And at rest?'] },
    { name: 'batch', args: ['batch', 'questions.jsonl', '-o', 'answers.jsonl'], before: (d) => fs.writeFileSync(path.join(d, 'questions.jsonl'), questions.join('\n') + '\n') },
    {
      name: 'batch resumed (one question added: only it is asked)',
      args: ['batch', 'questions.jsonl', '-o', 'answers.jsonl'],
      before: (d) => fs.appendFileSync(path.join(d, 'questions.jsonl'), '{"id":"c","prompt":"third question"}\n'),
    },
    { name: 'config set', args: ['config', 'set', 'model', 'wine-check-model'] },
    { name: 'config list', args: ['config', 'list'] },
    { name: 'sessions export', args: ['sessions', 'export', 'latest'] },
    { name: 'privacy check', args: ['privacy', 'check', '-'], stdin: 'Patient John Smith, born 1970-03-04, phone 020 7946 0018, john.smith@example.org\n' },
    { name: 'bad input (unknown option)', args: ['--no-such-option'] },
  ];

  const results: Record<'linux' | 'windows', Run[]> = { linux: [], windows: [] };
  for (const [name, exe, env] of [['linux', LINUX, linuxEnv], ['windows', WINDOWS, windowsEnv]] as const) {
    const dir = path.join(work, name);
    fs.mkdirSync(dir);
    const asked = () => double.chat.requests.length;
    for (const step of steps) {
      step.before?.(dir);
      const before = asked();
      const t = Date.now();
      const r = await run(exe, step.args, dir, env, step.stdin);
      r.requests = asked() - before;
      results[name].push(r);
      console.log(`${name}: ${step.name}: exit ${r.code} in ${Date.now() - t} ms, ${asked() - before} request(s)`);
    }
    const answers = fs.readFileSync(path.join(dir, 'answers.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).id).sort();
    assert.deepEqual(answers, ['a', 'b', 'c'], `${name}: the batch answered each question once`);
  }

  // Windows and Linux agree: the same exit codes; the same answers on stdout (times and ids aside).
  const same = (text: string) =>
    text
      .replace(/\r\n/g, '\n')
      .replace(/\d{4}-\d{2}-\d{2}[T ][\d:.]+Z?/g, '<time>')
      .replace(/\b[0-9a-f]{8,}(-[0-9a-f]{4,})*\b/g, '<id>')
      .replace(/\b\d{1,2}:\d{2}\b/g, '<time>')
      .replace(/[A-Z]:\\[^\s]*|\/[^\s]*medchat[^\s]*/g, '<path>'); // the paths config list shows differ by platform
  steps.forEach((step, i) => {
    const l = results.linux[i]!;
    const w = results.windows[i]!;
    assert.equal(w.code, l.code, `${step.name}: exit code (Windows ${w.code}, Linux ${l.code})\nWindows stderr: ${w.stderr}`);
    assert.equal(same(w.stdout), same(l.stdout), `${step.name}: stdout`);
    assert.equal(w.requests, l.requests, `${step.name}: requests sent to the service`);
  });
  assert.match(results.windows[0]!.stdout, /^\d+\.\d+\.\d+\n$/, '--version prints the version');
  assert.ok(results.windows[1]!.stdout.length > 0, 'the one-shot answered on stdout');
  assert.equal(results.windows[4]!.requests, 1, 'the resumed batch asked only the new question');
  if (process.env.MEDCHAT_WINE_SHOW) for (const [i, step] of steps.entries()) console.log(`--- ${step.name}\n${results.windows[i]!.stdout}${results.windows[i]!.stderr}`);

  // Where Windows keeps them: the session under %LOCALAPPDATA%\medchat\Data\sessions, the config under %APPDATA%.
  const sessions = path.join(appData, 'Local', 'medchat', 'Data', 'sessions');
  assert.ok(fs.existsSync(sessions) && fs.readdirSync(sessions).length > 0, `a session saved under ${sessions}`);
  const config = path.join(appData, 'Roaming', 'medchat', 'Config');
  assert.ok(fs.existsSync(config) && fs.readdirSync(config).length > 0, `config saved under ${config}`);
  assert.match(fs.readFileSync(path.join(config, fs.readdirSync(config).find((f) => f.endsWith('.json')) ?? ''), 'utf8'), /wine-check-model/, 'config set wrote the model to %APPDATA%');
  console.log(`wine check: ${steps.length} commands agree on Linux and Windows (Wine), session under %LOCALAPPDATA%, config under %APPDATA%; ${((Date.now() - started) / 1000).toFixed(1)} s`);
} finally {
  await double.close();
  spawnSync('wineserver', ['-k'], { env: wineEnv, stdio: 'ignore', timeout: 30_000 });
  fs.rmSync(work, { recursive: true, force: true });
}
