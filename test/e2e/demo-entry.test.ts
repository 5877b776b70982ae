// `medchat demo` and `medchat` itself decide the same for the same arguments, stdin and terminals
// (src/cli/entry-decision.ts): the output's shape (--json, --jsonl), the question (-p or the words,
// never both; stdin first, then the prompt), what is refused and in which words, and when the chat
// screen opens. The demo against its stand-in service, medchat against the double: built binaries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { decideEntry, type EntryFlags, type Terminals } from '../../src/cli/entry-decision.js';
import { runCli, type CliResult } from '../support/cli.js';

describe('the demo and medchat make one entry decision', () => {
  let d: ServiceDouble;
  before(async () => (d = await startServiceDouble()));
  after(() => d.close());

  const both = (args: string[], stdin?: string): Promise<[demo: CliResult, real: CliResult]> =>
    Promise.all([runCli(['demo', '--fast', ...args], { stdin }), runCli(args, { baseUrl: d.url, stdin })]);

  it('--json: one JSON object with the same fields', async () => {
    const [demo, real] = await both(['-p', 'x', '--json']);
    assert.equal(demo.code, 0, demo.stderr);
    assert.equal(real.code, 0, real.stderr);
    assert.deepEqual(Object.keys(JSON.parse(demo.stdout)), Object.keys(JSON.parse(real.stdout)));
  });

  it('--jsonl: the same kinds of event, each with the same fields', async () => {
    const shape = (r: CliResult) => {
      assert.equal(r.code, 0, r.stderr);
      const kinds = new Map<string, string>();
      for (const line of r.stdout.trimEnd().split('\n')) {
        const e = JSON.parse(line) as Record<string, unknown>;
        kinds.set(String(e.type), Object.keys(e).join(','));
      }
      return [...kinds];
    };
    const [demo, real] = await both(['--jsonl', 'x']);
    assert.deepEqual(shape(demo), shape(real));
  });

  it('piped text and a prompt make one question, the piped text first', async () => {
    const [demo, real] = await both(['--json', 'summarise'], 'note from the ward\n');
    assert.equal(real.code, 0, real.stderr);
    const asked = JSON.parse(real.stdout).content.replace(/^You said: /, '');
    assert.equal(asked, 'note from the ward\n\nsummarise');
    // The demo quotes the question it got, its spaces folded.
    assert.match(JSON.parse(demo.stdout).content, new RegExp(`You asked: "${asked.replace(/\s+/g, ' ')}"`));
  });

  for (const [what, args, stdin] of [
    ['the prompt twice (-p and words)', ['-p', 'x', 'y']],
    ['--json with --jsonl', ['--json', '--jsonl', 'x']],
    ['an empty -p', ['-p', '  ']],
    ['nothing but blank piped text', [], ' \n\n'],
    ['a --reasoning that is neither show nor hide', ['--reasoning', 'loud', 'x']],
  ] as Array<[string, string[], string?]>) {
    it(`refused alike: ${what}`, async () => {
      const [demo, real] = await both(args, stdin);
      assert.equal(demo.code, 2, demo.stderr);
      assert.equal(real.code, 2, real.stderr);
      assert.equal(demo.stdout, '');
      // The same words; a flag refused by the parser points at each command's own --help.
      assert.equal(demo.stderr.replace('(see medchat demo --help)', '(see medchat --help)'), real.stderr);
    });
  }

  it('the chat screen opens only with no question, nothing piped or named, and a terminal on both ends', () => {
    const tty: Terminals = { stdin: true, stdout: true };
    const cases: Array<[string[], EntryFlags, Terminals, boolean]> = [
      [[], {}, tty, true],
      [['x'], {}, tty, false],
      [[], { prompt: 'x' }, tty, false],
      [[], {}, { stdin: false, stdout: true }, false],
      [[], {}, { stdin: true, stdout: false }, false],
      [[], { stdin: false }, tty, true],
      [[], { file: ['notes.txt'] }, tty, false],
    ];
    for (const [words, flags, terminals, opens] of cases) {
      assert.equal(decideEntry(words, flags, terminals).interactive, opens, `${JSON.stringify({ words, flags, terminals })}`);
    }
    const piped = decideEntry(['x'], { json: true }, { stdin: false, stdout: false });
    assert.deepEqual(piped, { prompt: 'x', output: 'json', files: [], stdinPiped: true, interactive: false, terminals: { stdin: false, stdout: false } });
    assert.equal(decideEntry(['x'], { file: ['-'] }, { stdin: false, stdout: false }).stdinPiped, false, '-f - reads stdin as a file');
  });
});
