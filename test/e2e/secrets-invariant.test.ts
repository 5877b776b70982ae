// The secrets invariant, over seeded generated cases against the double: whatever the service
// echoes (the key whole, cut, re-cased, URL-encoded; in a 401 body of any length around the
// 200-character cut, in an answer or its reasoning split across chunks at any point, in an error
// object mid-stream written in pieces, in a 429 retry notice), no run of
// 8 or more characters of the key appears in stdout, stderr, --json, --jsonl, the session file or its export.
// MEDCHAT_SEED=<n> replays a run; MEDCHAT_SECRET_CASES=<n> sets how many cases.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { filesUnder, runCli, tempHome } from '../support/cli.js';
import { keyRunIn, runSeed } from '../support/key-runs.js';
import { seededRandom } from '../support/prng.js';

let double: ServiceDouble;
const homes: string[] = [];
before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  await double.close();
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5 });
});

const CASES = Number(process.env.MEDCHAT_SECRET_CASES) || 60;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+=_-';

/** One generated case: a key, what the service sends back, and how medchat is asked. */
function generate(rnd: () => number) {
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  let key = 'sk-';
  for (let i = int(17, 50); i > 0; i--) key += pick([...ALPHABET]);
  const echo = pick([
    () => key,
    () => key.toLowerCase(),
    () => key.toUpperCase(),
    () => encodeURIComponent(key),
    () => encodeURIComponent(key).toLowerCase(),
    () => key.slice(0, int(8, key.length)),
    () => key.slice(-int(8, key.length)),
    () => `Bearer ${key}`,
  ])();
  const mode = pick(['text', '--json', '--jsonl'] as const);
  const where = pick(['401', 'content', 'reasoning', 'both', 'stream-error', '429'] as const);
  const prose = (n: number) => 'The INR target is 2-3 for most indications. '.repeat(Math.ceil(n / 44) + 1).slice(0, n);
  return { key, echo, mode, where, prose, int };
}

const pick4 = (c: number) => (c % 8 === 0 ? 'md' : 'json');

/** Split `text` into 1..n chunks at random points (any point, even inside the key). */
function split(text: string, rnd: () => number): string[] {
  const parts: string[] = [];
  let at = 0;
  while (at < text.length) {
    const n = 1 + Math.floor(rnd() * Math.min(24, text.length));
    parts.push(text.slice(at, at + n));
    at += n;
  }
  return parts;
}

test(`echoed keys never show a run of 8 characters anywhere (${CASES} seeded cases)`, { timeout: 240_000 }, async () => {
  const seed = runSeed();
  const rnd = seededRandom(seed);
  let ran = 0;
  for (let c = 0; c < CASES; c++) {
    const { key, echo, mode, where, prose, int } = generate(rnd);
    const home = tempHome();
    homes.push(home);
    const why = `seed ${seed} (replay with MEDCHAT_SEED=${seed}), case ${c}: ${where} ${mode} key ${JSON.stringify(key)} echo ${JSON.stringify(echo)}`;
    let expectCode = 0;
    if (where === '401') {
      // Around the 200-character cut: the echo may straddle it at any point.
      const message = `${prose(int(120, 260))} Incorrect API key provided: ${echo}. You can find your key at https://example.invalid/keys?k=${encodeURIComponent(echo)}`;
      double.chat.enqueue({ status: 401, body: JSON.stringify({ error: { message, type: 'invalid_request_error' } }) });
      expectCode = 3;
    } else if (where === 'stream-error') {
      // Some answer, then an error object quoting the key, written in pieces split at any byte.
      const body =
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `Partial ${echo.slice(0, int(0, echo.length))}` } }] })}\n\n` +
        `data: ${JSON.stringify({ error: { message: `${prose(int(0, 220))} rejected key ${echo}` } })}\n\n`;
      double.chat.enqueue({ raw: { parts: split(body, rnd) } });
      expectCode = 1;
    } else if (where === '429') {
      // A rate limit quoting the key (shown as the retry notice), then an answer.
      double.chat.enqueue(
        { status: 429, headers: { 'retry-after': '0' }, body: JSON.stringify({ error: { message: `${prose(int(100, 220))} Rate limit for key ${echo}` } }) },
        { content: split(`Done, ${echo}.`, rnd) },
      );
    } else {
      const answer = `${prose(int(0, 80))}your key ${echo} was seen${rnd() < 0.5 ? '' : ` and again ${echo}`}.`;
      const content = where === 'reasoning' ? split(prose(40), rnd) : split(answer, rnd);
      const reasoning = where === 'content' ? ['Checking.'] : split(`I saw ${echo} in the request`, rnd);
      double.chat.enqueue({ content, reasoning });
    }
    const args = ['What is the INR target?', ...(mode === 'text' ? [] : [mode])];
    const r = await runCli(args, { home, env: { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: key } });
    assert.equal(r.code, expectCode, `${why}\n${r.stderr}`);
    assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${key}`, why);
    const shown: Array<[string, string]> = [
      ['stdout', r.stdout],
      ['stderr', r.stderr],
    ];
    if (c % 4 === 0) {
      const ex = await runCli(['sessions', 'export', 'latest', '--format', pick4(c)], { home });
      assert.equal(ex.code, 0, `${why}\n${ex.stderr}`);
      shown.push(['export', ex.stdout], ['export stderr', ex.stderr]);
    }
    for (const [name, text] of shown) {
      const run = keyRunIn(key, text);
      assert.equal(run, undefined, `${why}\n${name} shows ${JSON.stringify(run)}:\n${text.slice(0, 600)}`);
    }
    const files = filesUnder(path.join(home, 'data'));
    assert.ok(files.length > 0, `${why}: the session is saved`);
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      const run = keyRunIn(key, text);
      assert.equal(run, undefined, `${why}\n${f} holds ${JSON.stringify(run)}`);
    }
    if (mode === 'text' && (where === 'content' || where === 'reasoning' || where === 'both')) {
      // What was shown is what was saved.
      const session = JSON.parse(fs.readFileSync(files.find((f) => f.endsWith('.json'))!, 'utf8'));
      assert.equal(session.turns.at(-1).answer, r.stdout, why);
    }
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 });
    ran++;
  }
  process.stdout.write(`# secrets invariant: ${ran} seeded cases (seed ${seed})\n`);
});
