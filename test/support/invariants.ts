import { TEST_KEY } from './cli.js';
import type { FaultCase } from './fault-cases.js';

/**
 * The invariants every fault case must hold, as checks
 * that return what broke instead of throwing, so one run reports every broken case at once.
 */
export const EXIT_CODES = [0, 1, 2, 3, 4, 8, 129, 130, 143];

export interface Outcome {
  code: number;
  stdout: Buffer;
  stderr: string;
  elapsedMs: number;
  /** Every file under the run's home (config, sessions): path and text. */
  files: Array<{ path: string; text: string }>;
  /** The last turn of the saved session, when one was saved. */
  turn?: { answer: string; status: string; error?: string };
  /** What `sessions export` printed (markdown, json). */
  exports: string[];
  /** stdout (and stderr) went to a terminal. */
  tty: boolean;
}

export interface Violation {
  invariant: string;
  detail: string;
}

export const INVARIANTS = {
  table: 'the exit code is one of the README table',
  code: 'the exit code fits what the service did',
  prefix: 'stdout is a prefix of the content sent (equal when the answer completed)',
  lost: 'nothing received is lost (stdout holds every event that arrived)',
  stderr: 'stderr: at most one outcome line `medchat: …`, last, and no stack trace',
  key: 'no run of 8+ characters of the key anywhere (stdout, stderr, files, exports)',
  terminal: 'no ESC/C1/bidi control from the service reaches a terminal',
  session: 'the saved session holds what stdout got, with a status that agrees with the exit code',
  deadline: 'a stalled answer ends within --idle-timeout + 2 s',
  leftOpen: 'an answer left open after [DONE] ends without waiting for the idle timeout',
} as const;

const percentDecoded = (s: string) => s.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** Runs of 8 characters of `key` found in `text` (case-insensitive, also after %-decoding). */
export function keyLeaks(text: string, key = TEST_KEY): string[] {
  const hay = [text.toLowerCase(), percentDecoded(text).toLowerCase()];
  const found: string[] = [];
  for (let i = 0; i + 8 <= key.length; i++) {
    const run = key.slice(i, i + 8).toLowerCase();
    if (hay.some((h) => h.includes(run))) found.push(run);
  }
  return found;
}

/** Echoed keys are wrapped in « »: compare text with each such region (or a cut one at the end) as one token. */
export function maskRegions(s: string): string {
  return s.replace(/«[^»]*»/g, '«#»').replace(/«[^»]*$/, '«#');
}

const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

/** Controls a terminal would obey, as `U+001B at 12` descriptions. */
export function terminalControls(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FORBIDDEN)) {
    out.push(`U+${m[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()} at ${m.index}`);
    if (out.length >= 3) break;
  }
  return out;
}

const STACK = [/^\s+at\s+\S.*(\(|:\d+:\d+)/m, /node:internal/, /^\s*(Uncaught\s+)?[A-Z]\w*Error(\s\[\w+\])?:/m, /^\s*\^{3,}\s*$/m, /^.{200,}(function\s*\w*\(|=>\s*\{|\)\{)/m];
const NOT_OUTCOME = [/^medchat: warning:/, /retrying/i];

/** Outcome lines (`medchat: …` that are not warnings or retry notices) and stack-trace traces. */
export function stderrProblems(stderr: string, code: number): string[] {
  const problems: string[] = [];
  const lines = stderr.split('\n').map((l) => l.replace(/\r$/, ''));
  const outcome = lines.filter((l) => l.startsWith('medchat: ') && !NOT_OUTCOME.some((re) => re.test(l)));
  if (code === 0 && outcome.length > 0) problems.push(`exit 0 with an error line: ${JSON.stringify(outcome[0])}`);
  if (code !== 0 && outcome.length !== 1) problems.push(`exit ${code} with ${outcome.length} outcome lines: ${JSON.stringify(outcome.slice(0, 3))}`);
  if (code !== 0 && outcome.length === 1) {
    const last = lines.filter((l) => l.trim() !== '').pop();
    if (last !== outcome[0]) problems.push(`the outcome line is not last: ${JSON.stringify(last)}`);
  }
  problems.push(...stackTraces(stderr));
  return problems;
}

function statusAgrees(code: number, status: string): boolean {
  if (code === 0) return status === 'complete';
  if (code === 4) return status === 'incomplete';
  if (code === 1 || code === 2 || code === 3) return status === 'failed' || status === 'incomplete';
  if (code === 129 || code === 130 || code === 143) return status === 'interrupted';
  return status !== 'pending' && status !== 'streaming';
}

const short = (s: string, n = 120) => JSON.stringify(s.length > n ? s.slice(0, n) + '…' : s);

/** Plain words of the answer, in order (what a terminal must still show after sanitising). */
const words = (s: string) => s.split(/\s+/).map((w) => w.replace(/[.,:;!?]+$/, '')).filter((w) => /^[A-Za-z]{3,}$/.test(w));

/** Check one run against every invariant. */
export function checkOutcome(c: FaultCase, o: Outcome, opts: { idleMs: number; slackMs: number }): Violation[] {
  const v: Violation[] = [];
  const add = (k: keyof typeof INVARIANTS, detail: string) => v.push({ invariant: k, detail });
  const stdout = o.stdout.toString('utf8');

  if (!EXIT_CODES.includes(o.code)) add('table', `exit ${o.code}`);
  else if (!c.codes.includes(o.code)) add('code', `exit ${o.code}, expected one of ${c.codes.join('/')}; stderr ${short(o.stderr.trim(), 200)}`);

  const sent = maskRegions(c.content);
  if (!o.tty) {
    const got = maskRegions(stdout);
    if (!sent.startsWith(got)) add('prefix', `stdout ${short(got)} is not a prefix of ${short(sent)}`);
    else if (o.code === 0 && got !== sent) add('prefix', `exit 0 but stdout ${short(got)} != content ${short(sent)}`);
    else if (c.deliveredSure && !got.startsWith(maskRegions(c.delivered))) add('lost', `stdout ${short(got)} lacks part of what arrived: ${short(maskRegions(c.delivered))}`);
  } else {
    const shown = stdout;
    let at = 0;
    if (o.code === 0) {
      for (const w of words(c.content.replace(/«[^»]*»/g, ' '))) {
        const i = shown.indexOf(w, at);
        if (i < 0) {
          add('prefix', `the terminal does not show the word ${short(w)} of the answer: ${short(shown)}`);
          break;
        }
        at = i + w.length;
      }
    }
    const controls = terminalControls(stdout + o.stderr);
    if (controls.length) add('terminal', `${controls.join(', ')} in ${short(stdout + o.stderr, 160)}`);
  }

  for (const p of stderrProblems(o.stderr, o.code)) add('stderr', p);

  const places: Array<[string, string]> = [['stdout', stdout], ['stderr', o.stderr], ...o.files.map((f) => [f.path, f.text] as [string, string]), ...o.exports.map((e, i) => [`export ${i}`, e] as [string, string])];
  for (const [where, text] of places) {
    const runs = keyLeaks(text);
    if (runs.length) add('key', `${where} holds ${JSON.stringify(runs[0])}…`);
  }

  if (o.turn) {
    if (!o.tty && maskRegions(o.turn.answer) !== maskRegions(stdout)) add('session', `saved answer ${short(maskRegions(o.turn.answer))} != stdout ${short(maskRegions(stdout))}`);
    if (o.tty && !sent.startsWith(maskRegions(o.turn.answer))) add('session', `saved answer ${short(o.turn.answer)} is not a prefix of the content`);
    if (!statusAgrees(o.code, o.turn.status)) add('session', `exit ${o.code} but the saved status is ${o.turn.status}`);
  } else if (o.code !== 2) {
    add('session', 'no saved turn');
  }

  if (c.waits && o.elapsedMs > opts.idleMs + opts.slackMs) add('deadline', `took ${o.elapsedMs} ms`);
  if (c.doneLeftOpen && o.elapsedMs >= opts.idleMs) add('leftOpen', `took ${o.elapsedMs} ms (idle timeout ${opts.idleMs} ms)`);
  return v;
}

/**
 * The invariants the newer commands (batch, --schema, roles, -f, privacy check, sessions, -c) share
 * with the fault harness above, as checks that return what broke (empty: all held). Used by
 * test/e2e/signals-newer.test.ts, test/e2e/privacy-forgery.test.ts and test/core/file-writes-newer.test.ts.
 */
export const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM' | 'SIGHUP', number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** Stack traces or printed source in stderr (whatever the exit code). */
export function stackTraces(stderr: string): string[] {
  return STACK.filter((re) => re.test(stderr)).map((re) => `stack trace or source (${re}): ${short(stderr.slice(0, 300), 300)}`);
}

/**
 * A run stopped by `signal` ended as the README's table says: exit 130/143/129. A process the
 * signal reached before medchat took it over (Node's default: killed by it) ends the same way
 * for a shell ($? is 128 + the signal's number), so that counts too and is reported apart by
 * `signalEnd`.
 */
export function signalProblems(r: { code: number | null; signal: NodeJS.Signals | null }, signal: keyof typeof SIGNAL_EXIT): string[] {
  if (r.code === SIGNAL_EXIT[signal]) return [];
  if (r.code === null && r.signal === signal) return [];
  return [`${signal}: expected exit ${SIGNAL_EXIT[signal]}, got ${r.code === null ? `killed by ${r.signal}` : `exit ${r.code}`}`];
}

/** How the run ended, for case counts: 'handled' (exit 128+n) or 'default' (killed by the signal before medchat took it over). */
export function signalEnd(r: { code: number | null; signal: NodeJS.Signals | null }): 'handled' | 'default' | 'other' {
  if (r.code === 129 || r.code === 130 || r.code === 143) return 'handled';
  return r.code === null && r.signal ? 'default' : 'other';
}

/** Every place a run may print or write, checked for a run of 8 characters of the key. */
export function keyProblems(places: Record<string, string>, key = TEST_KEY): string[] {
  return Object.entries(places).flatMap(([where, text]) => {
    const runs = keyLeaks(text, key);
    return runs.length ? [`${where} holds ${JSON.stringify(runs[0])}…`] : [];
  });
}

/**
 * Answers as medchat batch writes them (a file, or stdout): JSON lines, each a whole object with an
 * id, the text ending in a line break (no torn line), no id answered twice. Returns the lines and
 * what broke.
 */
export function answerLinesProblems(text: string): { lines: Array<{ id: string | number; content?: string; error?: unknown } & Record<string, unknown>>; problems: string[] } {
  const problems: string[] = [];
  const lines: Array<{ id: string | number; content?: string; error?: unknown } & Record<string, unknown>> = [];
  if (text === '') return { lines, problems };
  if (!text.endsWith('\n')) problems.push(`the answers end in a torn line: ${short(text.slice(text.lastIndexOf('\n') + 1))}`);
  const seen = new Set<string>();
  text
    .split('\n')
    .slice(0, -1)
    .forEach((l, i) => {
      if (l.trim() === '') return;
      let v: unknown;
      try {
        v = JSON.parse(l);
      } catch {
        problems.push(`line ${i + 1} is not JSON: ${short(l)}`);
        return;
      }
      const rec = v as { id?: unknown; error?: unknown };
      if (!v || typeof v !== 'object' || (typeof rec.id !== 'string' && typeof rec.id !== 'number')) {
        problems.push(`line ${i + 1} is not an answer line: ${short(l)}`);
        return;
      }
      const key = String(rec.id);
      if (!rec.error && seen.has(key)) problems.push(`id ${key} answered twice`);
      if (!rec.error) seen.add(key);
      lines.push(v as (typeof lines)[number]);
    });
  return { lines, problems };
}

/** What the service sent before the run stopped is kept: `kept` (stdout, a saved answer) starts with `received`, and is a prefix of `content`. */
export function keptProblems(kept: string, received: string, content: string, where = 'stdout'): string[] {
  const problems: string[] = [];
  if (!content.startsWith(kept)) problems.push(`${where} ${short(kept)} is not a prefix of what the service sent ${short(content)}`);
  if (!kept.startsWith(received)) problems.push(`${where} ${short(kept)} lost part of what had arrived: ${short(received)}`);
  return problems;
}

/** No terminal control from the service in text bound for a terminal (also used on piped output: it is what a terminal would get). */
export function controlProblems(text: string, where = 'output'): string[] {
  const found = terminalControls(text);
  return found.length ? [`${where}: ${found.join(', ')}`] : [];
}

/**
 * Redact mode showed `typed` back (the service echoed what it got): exactly as typed, except that a
 * placeholder-like separator may have become a non-breaking hyphen (medchat's escape of a forgery
 * typed after its own placeholder was made, which looks the same), and letter case. Anything else, such as a value
 * put back where the user wrote a placeholder-like text, is a problem.
 */
export function restoredProblems(shownText: string, typedText: string, where = 'the answer'): string[] {
  // Case aside: one identifier written twice ("Device", then "DEVICE") is one placeholder and comes back as first written.
  const shown = shownText.toLowerCase();
  const typed = typedText.toLowerCase();
  if (shown === typed) return [];
  let i = 0;
  if (shown.length === typed.length) {
    while (i < shown.length && (shown[i] === typed[i] || (shown[i] === '\u2011' && '-_ '.includes(typed[i]!)))) i++;
    if (i === shown.length) return [];
  } else {
    while (i < shown.length && shown[i] === typed[i]) i++;
  }
  return [`${where} is not the text as typed from offset ${i}: shown ${short(shownText.slice(Math.max(0, i - 30), i + 60))}, typed ${short(typedText.slice(Math.max(0, i - 30), i + 60))}`];
}
