// `-f/--file`: text files sent as labelled, fenced blocks before the question; anything that
// cannot be sent is refused before sending. Runs the built binary (npm run build first).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { filesUnder, runCli, tempHome } from '../support/cli.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
/** A fresh home, removed when the file ends (test/support/temp.ts). */
const home = tempHome;
const userMessage = () => (double.chat.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>).at(-1)!;

test('-f twice: each file as a labelled fenced block, in order, before the question', async () => {
  const h = home();
  fs.writeFileSync(path.join(h, 'admission.txt'), 'Admitted 3 May with pneumonia.\n');
  fs.writeFileSync(path.join(h, 'labs.csv'), 'test,value\nCRP,180\n');
  double.chat.enqueue({ content: ['Course: improving.'] });
  const r = await runCli(['-f', path.join(h, 'admission.txt'), '--file', path.join(h, 'labs.csv'), 'summarise the course'], { baseUrl: double.url, home: h });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'Course: improving.');
  assert.deepEqual(userMessage(), {
    role: 'user',
    content: `File: ${path.join(h, 'admission.txt')}\n\`\`\`\nAdmitted 3 May with pneumonia.\n\`\`\`\n\nFile: ${path.join(h, 'labs.csv')}\n\`\`\`\ntest,value\nCRP,180\n\`\`\`\n\nsummarise the course`,
  });
});

test('-f - reads stdin as a file called stdin; a file with Markdown fences gets a longer fence', async () => {
  const h = home();
  fs.writeFileSync(path.join(h, 'readme.md'), 'Run:\n```sh\nmake\n```\n');
  await runCli(['-f', '-', '-f', path.join(h, 'readme.md'), 'q'], { baseUrl: double.url, home: h, stdin: 'from the pipe' });
  assert.equal(userMessage().content, `File: stdin\n\`\`\`\nfrom the pipe\n\`\`\`\n\nFile: ${path.join(h, 'readme.md')}\n\`\`\`\`\nRun:\n\`\`\`sh\nmake\n\`\`\`\n\`\`\`\`\n\nq`);
  // Piped text without -f - goes after the files, as the note the question is about.
  fs.writeFileSync(path.join(h, 'a.txt'), 'A');
  await runCli(['-f', path.join(h, 'a.txt'), 'q'], { baseUrl: double.url, home: h, stdin: 'piped' });
  assert.equal(userMessage().content, `File: ${path.join(h, 'a.txt')}\n\`\`\`\nA\n\`\`\`\n\npiped\n\nq`);
});

test('files with a role and no question: the role says what to do', async () => {
  const h = home();
  fs.writeFileSync(path.join(h, 'notes.txt'), 'Cough 3 days, T 38.2.');
  const r = await runCli(['-r', 'soap', '-f', path.join(h, 'notes.txt')], { baseUrl: double.url, home: h });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(userMessage().content, `File: ${path.join(h, 'notes.txt')}\n\`\`\`\nCough 3 days, T 38.2.\n\`\`\``);
});

test('refused before sending, one line, exit 2, nothing saved: a missing file, a binary file, a file too big for the window', async () => {
  const h = home();
  fs.writeFileSync(path.join(h, 'scan.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
  fs.writeFileSync(path.join(h, 'history.txt'), 'The patient reports intermittent chest pain on exertion. '.repeat(400));
  assert.equal((await runCli(['config', 'set', 'context-window', '2048'], { home: h })).code, 0);
  const before = double.chat.requests.length;
  const cases: Array<[string[], RegExp]> = [
    [['-f', 'missing.txt', 'q'], /^medchat: -f missing\.txt: no such file\n$/],
    [['-f', path.join(h, 'scan.png'), 'q'], /^medchat: -f .*scan\.png: looks binary \(a NUL byte at byte 8 of 10\); medchat reads text only/],
    [
      ['-f', path.join(h, 'history.txt'), '--max-tokens', '1024', 'q'],
      /^medchat: the files are too big for the context window: .*history\.txt [\d.]+k? tokens; with the question that is about [\d.]+k tokens, but the 2k window leaves 1k for the prompt after 1k for the answer/,
    ],
    [['-f', '-', '-f', '-', 'q'], /stdin can be read only once/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runCli(args, { baseUrl: double.url, home: h, stdin: 'x' });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, 'one line');
    assert.equal(r.stdout, '');
  }
  assert.equal(double.chat.requests.length, before, 'nothing was sent');
  assert.deepEqual(filesUnder(path.join(h, 'data')), [], 'no session was saved');
});

test('-f /proc/self/status (a file whose size says 0) sends what it holds, not an empty block', { skip: !fs.existsSync('/proc/self/status') && 'needs /proc (Linux)' }, async () => {
  const h = home();
  double.chat.enqueue({ content: ['ok'] });
  const r = await runCli(['-f', '/proc/self/status', 'what is this'], { baseUrl: double.url, home: h });
  assert.equal(r.code, 0, r.stderr);
  const content = userMessage().content;
  assert.match(content, /^File: \/proc\/self\/status\n```\nName:\s+\S+\n[\s\S]*VmRSS:[\s\S]*\n```\n\nwhat is this$/);
});
