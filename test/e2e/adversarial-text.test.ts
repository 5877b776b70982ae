// Adversarial text against the built binary (issue 21 items 8, 9, 10): long runs of one kind of
// character through the privacy scan and the token count, an answer of 250 KB of `{` and one nested
// 5,000 deep under --schema, a -f file of 400,000 runs of backticks, a schema pattern that would
// backtrack for ever. Each ends within a bound with its documented exit code and one medchat: line
// (never "unexpected error"), and SIGTERM during each slow-ish phase ends the run with 143.
// The text families are picked with a seeded PRNG: replay with MEDCHAT_SEED=<seed>.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { runCli, tempHome, type CliResult } from '../support/cli.js';
import { Prng, seedFromEnv } from '../support/prng.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const seed = seedFromEnv();
const prng = new Prng(seed);
/** Runs of one kind of character, and alternations, as the hostile user sent them. */
const FAMILIES = ['1', 'a', 'A', '.', '@', '-', ' ', '\t', '省', 'a@', '1.', '1 ', 'Aa ', 'A.', '1-', 'Tel ', 'age ', '(wife) ', ', MD '];
const picked = Array.from({ length: 3 }, () => prng.pick(FAMILIES));
console.log(`# adversarial-text: seed ${seed}, families ${JSON.stringify(picked)} (MEDCHAT_SEED=${seed} to replay)`);

/** `unit` repeated to `size` characters, then what makes every detector run (a digit, an @, a colon, a capital, a bracket, Chinese). */
const family = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size) + '\nMr Smith: 1 a@b.co (DOB) 王 患者';
const dna = (size: number) => Array.from({ length: size }, () => prng.pick(['A', 'C', 'G', 'T'])).join('');

function assertOneLine(r: CliResult, what: string): void {
  assert.doesNotMatch(r.stderr, /unexpected error|Maximum call stack|RangeError|\n\s+at .+:\d+:\d+/, `${what}: ${r.stderr.slice(0, 400)}`);
}

/** A generous bound for "ends at all": the quadratic scans took 13 s to minutes on these inputs. */
const ENDS_WITHIN_MS = 25_000;

test('medchat privacy check: 300 KB runs of one kind of character end within the bound with the usual outcome (exit 11, found)', async () => {
  for (const unit of picked) {
    const t0 = Date.now();
    const r = await runCli(['privacy', 'check', '-'], { home: tempHome(), stdin: family(unit, 300_000), timeoutMs: ENDS_WITHIN_MS });
    console.log(`# privacy check, ${JSON.stringify(unit)} x 300 KB: exit ${r.code} in ${Date.now() - t0} ms`);
    assert.equal(r.code, 11, `${JSON.stringify(unit)}: ${r.stderr}`);
    assertOneLine(r, JSON.stringify(unit));
    assert.match(r.stdout, /EMAIL\s+a@b\.co/);
  }
  // 43,000 findings, one a line: each one's line and column (counted from the start for each, that took 7.5 s).
  const t0 = Date.now();
  const many = await runCli(['privacy', 'check', '-'], { home: tempHome(), stdin: 'a@b.co\n'.repeat(43_000), timeoutMs: ENDS_WITHIN_MS });
  assert.equal(many.code, 11, many.stderr);
  assert.equal(many.stdout.split('\n').filter((l) => /^\d+:1 +EMAIL/.test(l)).length, 43_000);
  assert.match(many.stdout, /^43000:1 +EMAIL +a@b\.co$/m);
  assert.ok(Date.now() - t0 < 5000, `43,000 findings listed in ${Date.now() - t0} ms`);
});

test('-f with 400,000 runs of backticks: a one-line outcome (too big for the window, exit 2), never a stack overflow', async () => {
  const h = tempHome();
  const file = path.join(h, 'ticks.md');
  fs.writeFileSync(file, '`a'.repeat(400_000));
  const r = await runCli(['-f', file, 'what is this?'], { baseUrl: double.url, home: h, timeoutMs: ENDS_WITHIN_MS });
  assertOneLine(r, '-f backticks');
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /too big for the context window/);
});

test('--schema: an answer of 250 KB of "{" reaches exit 9 within the bound; one nested 5,000 deep is reported as too deep (exit 9, raw answer kept)', async () => {
  const braces = '{'.repeat(250_000);
  double.chat.enqueue({ content: [braces] }, { content: [braces] });
  const t0 = Date.now();
  const r = await runCli(['--schema', 'name', 'which drug?'], { baseUrl: double.url, home: tempHome(), timeoutMs: ENDS_WITHIN_MS });
  console.log(`# 250 KB of "{": exit ${r.code} in ${Date.now() - t0} ms`);
  assert.equal(r.code, 9, r.stderr);
  assertOneLine(r, 'braces');
  assert.match(r.stderr, /holds no JSON value/);

  const h = tempHome();
  const schemaFile = path.join(h, 'tree.schema.json');
  fs.writeFileSync(
    schemaFile,
    JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: { n: { anyOf: [{ type: 'integer' }, { type: 'object', properties: { a: { $ref: '#/$defs/n' } } }] } }, $ref: '#/$defs/n' }),
  );
  const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  double.chat.enqueue({ content: [deep] }, { content: [deep] });
  const d = await runCli(['--schema', schemaFile, '--json', 'the tree'], { baseUrl: double.url, home: h, timeoutMs: ENDS_WITHIN_MS });
  assertOneLine(d, 'deep');
  assert.equal(d.code, 9, d.stderr);
  assert.match(d.stderr, /nested deeper than 256 levels/);
  const out = JSON.parse(d.stdout) as { content: string; valid: boolean };
  assert.equal(out.valid, false);
  assert.equal(out.content, deep, 'the raw answer is kept whole');
});

test('batch --schema: an answer nested 5,000 deep fails its line with the raw answer kept in it, not an unexpected error', async () => {
  const h = tempHome();
  const input = path.join(h, 'questions.txt');
  fs.writeFileSync(input, 'the tree?\n');
  const schemaFile = path.join(h, 'tree.schema.json');
  fs.writeFileSync(schemaFile, JSON.stringify({ $defs: { n: { anyOf: [{ type: 'integer' }, { type: 'object', properties: { a: { $ref: '#/$defs/n' } } }] } }, $ref: '#/$defs/n' }));
  const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  double.chat.enqueue({ content: [deep] }, { content: [deep] });
  const r = await runCli(['batch', input, '--lines', '--schema', schemaFile], { baseUrl: double.url, home: h, timeoutMs: ENDS_WITHIN_MS });
  assertOneLine(r, 'batch deep');
  assert.equal(r.code, 10, r.stderr);
  const line = JSON.parse(r.stdout.trim()) as { content: string; valid: boolean; schema_errors: string[] };
  assert.equal(line.content, deep, 'the line keeps the answer');
  assert.equal(line.valid, false);
  assert.match(line.schema_errors.join('\n'), /nested deeper than 256 levels/);
});

test('--schema: a pattern that backtracks for ever (^(a+)+$) is refused when the schema is loaded: exit 2, one line naming it, nothing sent', async () => {
  const h = tempHome();
  const schemaFile = path.join(h, 'p.schema.json');
  fs.writeFileSync(schemaFile, JSON.stringify({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } }));
  const before = double.chat.arrivals.length;
  const r = await runCli(['--schema', schemaFile, 'the code?'], { baseUrl: double.url, home: h, timeoutMs: ENDS_WITHIN_MS });
  assert.equal(r.code, 2, r.stderr);
  assertOneLine(r, 'pattern');
  assert.match(r.stderr, /^medchat: --schema .*"\^\(a\+\)\+\$".*repeat/m);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.equal(double.chat.arrivals.length, before, 'nothing was sent');
});

/**
 * SIGTERM while a phase works on adversarial input: sent as soon as the request reaches the service
 * (the phase is over; the request is held unanswered) or after 3 s (when the quadratic code was still
 * in the phase, deaf to signals). Either way the run must end with 143 soon after.
 */
async function sigtermDuring(args: string[], stdin: string | undefined, requestsBefore: number): Promise<void> {
  const held = double.chat.arrivals.length + requestsBefore;
  double.chat.holdAfter(held);
  let sentAt = 0;
  try {
    const r = await runCli(args, {
      baseUrl: double.url,
      home: tempHome(),
      stdin,
      timeoutMs: 60_000,
      onSpawn: (child) => {
        const start = Date.now();
        const poll = setInterval(() => {
          if (double.chat.arrivals.length > held || Date.now() - start > 3000) {
            clearInterval(poll);
            sentAt = Date.now();
            child.kill('SIGTERM');
          }
        }, 20);
      },
    });
    const answeredIn = Date.now() - sentAt;
    console.log(`# SIGTERM (${args.join(' ').slice(0, 40)}): exit ${r.code} ${answeredIn} ms after the signal`);
    assert.equal(r.code, 143, r.stderr);
    assertOneLine(r, 'SIGTERM');
    assert.ok(answeredIn < 5_000, `SIGTERM answered ${answeredIn} ms after it was sent`);
  } finally {
    double.chat.release();
  }
}

test('SIGTERM during the privacy scan of 150 KB of digits (the issue\'s case; it fits the window): 143', async () => {
  await sigtermDuring(['summarise'], family('1', 150_000), 0);
});

test('SIGTERM during the token count of 200 KB of DNA on one line: 143', async () => {
  await sigtermDuring(['annotate'], dna(200_000), 0);
});

test('SIGTERM during the schema check of 250 KB of "{": 143', async () => {
  double.chat.enqueue({ content: ['{'.repeat(250_000)] });
  await sigtermDuring(['--schema', 'name', 'which drug?'], undefined, 1);
});
