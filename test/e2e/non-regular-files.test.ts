// Every command that reads a path (retexture's --image too, which also takes a pipe), against every kind of input that is not a small regular text
// file: a link to /dev/zero, /dev/zero itself, a FIFO nothing writes to, a FIFO something writes
// to endlessly, a folder, a (sparse) file far over every bound, a file holding a NUL byte; and
// endless or binary stdin for `batch -`. Each run must end by itself within 10 s with one
// `medchat:` line naming the file (exit 2; `sessions list` lists the file as unusable, exit 0), no
// stack trace, peak memory under 200 MB, nothing sent, and no temporary copy left behind. The
// built binary against the service double.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { tempHome } from '../support/cli.js';
import { stderrProblems } from '../support/invariants.js';
import { Prng, seedFromEnv } from '../support/prng.js';
import { canWatchMemory, mb, runWatched, type WatchedRun } from '../support/rss.js';

const LIMIT_KB = 200 * 1024;
/** A run that reads without bound is stopped here (on the old code, 1.5-6 GB), or at the time limit (a FIFO hang). */
const KILL_KB = 400 * 1024;
const TIME_LIMIT_MS = 10_000;
const SEED = seedFromEnv();
const SESSION_ID = '20260101-000000-a1b2';
const hasMkfifo = spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).status === 0;

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

/** What is put where the command reads. */
type Kind = 'link to /dev/zero' | '/dev/zero' | 'FIFO, no writer' | 'FIFO, endless writer' | 'folder' | 'too big (sparse)' | 'NUL byte';
const KINDS: Kind[] = ['link to /dev/zero', '/dev/zero', 'FIFO, no writer', 'FIFO, endless writer', 'folder', 'too big (sparse)', 'NUL byte'];

interface Reader {
  name: string;
  /** Where the command reads, in a home (a path of the user's choice, or one medchat keeps). */
  at: (home: string) => string;
  /** True when the user names the path (so /dev/zero itself can be given). */
  named: boolean;
  args: (file: string, home: string) => string[];
  /** Text that is right for this reader, but for the NUL byte put into it. */
  text: string;
  /** `sessions list` lists an unusable file instead of refusing it. */
  lists?: boolean;
}

const READERS: Reader[] = [
  { name: 'privacy check', at: (h) => path.join(h, 'note.txt'), named: true, args: (f) => ['privacy', 'check', f], text: 'Chest pain since Monday.\n' },
  { name: 'roles show', at: (h) => path.join(h, 'config', 'roles', 'ward.md'), named: false, args: () => ['roles', 'show', 'ward'], text: '---\ndescription: ward\n---\nSummarise the note.\n' },
  { name: '-r (a role file)', at: (h) => path.join(h, 'config', 'roles', 'ward.md'), named: false, args: () => ['-r', 'ward', 'q'], text: '---\ndescription: ward\n---\nSummarise the note.\n' },
  { name: 'sessions list', at: (h) => path.join(h, 'data', 'sessions', `${SESSION_ID}.json`), named: false, args: () => ['sessions', 'list'], text: '{"format":"medchat-session"}\n', lists: true },
  { name: '-c (a session file)', at: (h) => path.join(h, 'data', 'sessions', `${SESSION_ID}.json`), named: false, args: () => ['-c', 'q'], text: '{"format":"medchat-session"}\n' },
  { name: 'config.json (any command)', at: (h) => path.join(h, 'config', 'config.json'), named: false, args: () => ['q'], text: '{"model":"m"}\n' },
  { name: '--schema', at: (h) => path.join(h, 'schema.json'), named: true, args: (f) => ['--schema', f, 'q'], text: '{"type":"object"}\n' },
  { name: '-f', at: (h) => path.join(h, 'note.txt'), named: true, args: (f) => ['-f', f, 'q'], text: 'Chest pain since Monday.\n' },
  { name: 'retexture --image', at: (h) => path.join(h, 'scan.png'), named: true, args: (f) => ['retexture', '--image', f, 'make it blue'], text: '\x89PNG\r\n\x1a\n0000\n' },
  { name: 'batch FILE', at: (h) => path.join(h, 'questions.txt'), named: true, args: (f, h) => ['batch', '--lines', f, '-o', path.join(h, 'answers.jsonl')], text: 'first question\nsecond question\n' },
];

interface Planted {
  file: string;
  writer?: ChildProcess;
}

function plant(reader: Reader, kind: Kind, home: string, rng: Prng): Planted {
  if (kind === '/dev/zero') return { file: '/dev/zero' };
  const file = reader.at(home);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  switch (kind) {
    case 'link to /dev/zero':
      fs.symlinkSync('/dev/zero', file);
      return { file };
    case 'FIFO, no writer':
      mkfifo(file);
      return { file };
    case 'FIFO, endless writer': {
      mkfifo(file);
      // The writer's open waits for a reader, then `yes` writes for ever (until the reader goes).
      const writer = spawn('sh', ['-c', 'exec yes "ordinary line of text" > "$1"', 'writer', file], { stdio: 'ignore' });
      return { file, writer };
    }
    case 'folder':
      fs.mkdirSync(file);
      return { file };
    case 'too big (sparse)': {
      // Over every bound (the largest, 16 MB, is privacy check's and a session's); sparse, so it costs no disk.
      fs.writeFileSync(file, '');
      fs.truncateSync(file, rng.int(40, 2048) * 1024 * 1024);
      return { file };
    }
    case 'NUL byte': {
      const at = rng.int(1, reader.text.length - 1);
      fs.writeFileSync(file, reader.text.slice(0, at) + '\0' + reader.text.slice(at));
      return { file };
    }
  }
}

function mkfifo(file: string): void {
  const r = spawnSync('mkfifo', [file]);
  assert.equal(r.status, 0, `mkfifo ${file}: ${r.stderr}`);
}

function describeRun(r: WatchedRun): string {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''} after ${r.elapsedMs} ms, peak ${mb(r.peakRssKb)} (VmHWM ${mb(r.hwmKb)}); stdout ${JSON.stringify(r.stdout.slice(0, 200))}; stderr ${JSON.stringify(r.stderr.slice(-400))}`;
}

/** The checks every case shares. */
function assertRefusedWell(r: WatchedRun, opts: { names: string; lists: boolean; home: string }): void {
  const said = describeRun(r);
  assert.ok(!r.killed, `medchat had to be killed (${r.killed === 'memory' ? `over ${mb(KILL_KB)}` : `still running after ${TIME_LIMIT_MS / 1000} s`}): ${said}`);
  assert.ok(r.peakRssKb < LIMIT_KB && (r.hwmKb === 0 || r.hwmKb < LIMIT_KB), `peak memory over ${mb(LIMIT_KB)}: ${said}`);
  assert.deepEqual(stderrProblems(r.stderr, r.code ?? -1), [], said);
  if (opts.lists) {
    assert.equal(r.code, 0, said);
    assert.match(r.stdout, new RegExp(`^${SESSION_ID} .*\\((not a file|too big to read: [^)]*|damaged file)\\)$`, 'm'), `listed as unusable: ${said}`);
  } else {
    assert.equal(r.code, 2, said);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line: ${said}`);
    assert.match(lines[0]!, /^medchat: /, said);
    assert.ok(lines[0]!.includes(opts.names), `the line names ${opts.names}: ${said}`);
  }
  const tmp = path.join(opts.home, 'tmp');
  assert.deepEqual(fs.readdirSync(tmp), [], `nothing left in the temporary folder: ${said}`);
}

test('every path read refuses what is not a small regular text file, at once, in bounded memory, sending nothing', { skip: (!canWatchMemory && 'needs /proc (Linux)') || (!hasMkfifo && 'needs mkfifo'), timeout: 600_000 }, async () => {
  const rng = new Prng(SEED);
  const cases: Array<{ reader: Reader; kind: Kind; rng: Prng }> = [];
  for (const reader of READERS) for (const kind of KINDS) if (kind !== '/dev/zero' || reader.named) cases.push({ reader, kind, rng: rng.fork(cases.length) });
  const failures: string[] = [];
  const counts = new Map<string, number>();
  const runOne = async ({ reader, kind, rng: caseRng }: (typeof cases)[number]) => {
    const home = tempHome();
    fs.mkdirSync(path.join(home, 'tmp'));
    const planted = plant(reader, kind, home, caseRng);
    try {
      const r = await runWatched(reader.args(planted.file, home), {
        baseUrl: double.url,
        home,
        env: { NO_COLOR: '1', TMPDIR: path.join(home, 'tmp') },
        timeoutMs: TIME_LIMIT_MS,
        killAboveKb: KILL_KB,
      });
      assertRefusedWell(r, { names: path.basename(planted.file), lists: Boolean(reader.lists), home });
      counts.set(reader.name, (counts.get(reader.name) ?? 0) + 1);
    } catch (err) {
      failures.push(`${reader.name} × ${kind}: ${(err as Error).message}`);
    } finally {
      planted.writer?.kill('SIGKILL');
    }
  };
  // Two at a time: the machine may have two cores, and each run is watched every 50 ms.
  const queue = [...cases];
  await Promise.all([0, 1].map(async () => {
    for (let c = queue.shift(); c; c = queue.shift()) await runOne(c);
  }));
  console.log(`# non-regular inputs: ${cases.length} cases (${READERS.length} readers × ${KINDS.length} kinds, /dev/zero itself only where the user names the path), seed ${SEED} (replay with MEDCHAT_SEED=${SEED}); ${failures.length} failed`);
  for (const f of failures) console.log(`# failed: ${f.slice(0, 400)}`);
  assert.equal(double.server.requests.length, 0, 'nothing was sent to the service');
  assert.deepEqual(failures, []);
});

test('batch -: endless text, endless zeros and a NUL byte on stdin stop at once or at the bound, with one line and the copy removed', { skip: !canWatchMemory && 'needs /proc (Linux)', timeout: 120_000 }, async () => {
  const feeds: Array<{ name: string; chunk: Buffer; once?: boolean }> = [
    { name: 'endless text (yes)', chunk: Buffer.from('ordinary question\n'.repeat(4096)) },
    { name: 'endless zeros (< /dev/zero)', chunk: Buffer.alloc(64 * 1024) },
    { name: 'a NUL byte in line 2', chunk: Buffer.from('first question\nsec\0ond\n'), once: true },
  ];
  for (const feed of feeds) {
    const home = tempHome();
    fs.mkdirSync(path.join(home, 'tmp'));
    const r = await runWatched(['batch', '--lines', '-', '-o', path.join(home, 'answers.jsonl')], {
      baseUrl: double.url,
      home,
      env: { NO_COLOR: '1', TMPDIR: path.join(home, 'tmp') },
      timeoutMs: 30_000, // 256 MB through a pipe on a busy machine
      killAboveKb: KILL_KB,
      feedStdin: (stdin) => {
        stdin.on('error', () => {});
        if (feed.once) return void stdin.end(feed.chunk);
        const write = () => {
          while (stdin.write(feed.chunk));
        };
        stdin.on('drain', write);
        write();
      },
    });
    assert.doesNotThrow(() => assertRefusedWell(r, { names: 'stdin', lists: false, home }), feed.name);
    assert.match(r.stderr, feed.name.startsWith('endless text') ? /larger than 256 MB/ : /looks binary \(a NUL byte at byte \d+\)/, feed.name);
  }
  console.log(`# batch - stdin cases: ${feeds.length}`);
  assert.equal(double.server.requests.length, 0, 'nothing was sent to the service');
});
