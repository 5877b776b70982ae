import { TEST_KEY } from './cli.js';
import type { Prng } from './prng.js';

/**
 * The text of generated answers for the fault harness: ASCII, CJK, emoji, markdown, escape
 * sequences and C1/bidi controls, and the API key echoed in the forms services echo it
 * (wrapped in « » so a check can tell it apart), split into deltas the way servers split them.
 */
export type Finish = 'stop' | 'length' | 'content_filter' | null;

const ASCII = [
  'The normal adult resting heart rate is 60 to 100 beats per minute. ',
  'Amoxicillin 500 mg three times daily for 5 days. ',
  'Penicillin allergy: anaphylaxis in 2019. ',
  'Check electrolytes, then repeat the ECG. ',
  'BP 120/80 mmHg, SpO2 98% on room air. ',
  'Yes.',
  ' ',
  '\n',
];
const CJK = ['成人静息心率正常范围为每分钟60至100次。', '青霉素过敏（过敏性休克）。', '血压 120/80 mmHg，', '日本語の説明：安静時心拍数。', '한국어 요약 '];
const EMOJI = ['❤️', '🫀', '👩‍⚕️', '🇬🇧', '💊 ', 'é', 'ü', '👍🏽', '∑ ≤ ≥ °C', '\u00a0'];
const MARKDOWN = ['\n\n## Summary\n\n', '- **Allergy:** penicillin\n', '| HR | BP |\n|---|---|\n| 72 | 120/80 |\n', '```\nx = 1\n```\n', '> note\n', '*italic* and `code` ', '1. first\n2. second\n'];
const CONTROLS = [
  '\x1b[2J\x1b[H',
  '\x1b]52;c;cm0gLXJmIH4=\x07',
  '\x1b]0;pwned\x07',
  '\u009b31m',
  '\u202e',
  '\u2066',
  '\u2069',
  '\x1b[31m',
  '\x07',
  '\x1b]8;;http://evil.example\x07link\x1b]8;;\x07',
  '\r',
  '\x1b[?1049h',
];
const REASONING = ['The user asks about heart rate. ', 'Consider age and medication. ', 'Beta blockers lower it. ', '先考虑年龄。', 'So the range is 60-100.'];

/** Forms in which a service echoes the key. */
const SECRET_FORMS = [TEST_KEY, TEST_KEY.toLowerCase(), TEST_KEY.replace(/-/g, '%2D'), encodeURIComponent(TEST_KEY), TEST_KEY.toUpperCase(), TEST_KEY.slice(3, 14)];

export const secretText = (r: Prng) => `«${r.pick(SECRET_FORMS)}»`;

function text(r: Prng, opts: { controls: number; secret: number; empty: number }): { text: string; secret: boolean } {
  if (r.chance(opts.empty)) return { text: '', secret: false };
  const flavour = r.pick(['ascii', 'cjk', 'emoji', 'markdown', 'mixed'] as const);
  const pool = { ascii: ASCII, cjk: CJK, emoji: EMOJI, markdown: MARKDOWN, mixed: [...ASCII, ...CJK, ...EMOJI, ...MARKDOWN] }[flavour];
  const parts: string[] = [];
  let secret = false;
  for (let i = r.int(1, 8); i > 0; i--) parts.push(r.pick(pool));
  if (r.chance(opts.controls)) parts.splice(r.int(0, parts.length), 0, r.pick(CONTROLS));
  if (r.chance(opts.secret)) {
    parts.splice(r.int(0, parts.length), 0, secretText(r));
    secret = true;
  }
  return { text: parts.join(''), secret };
}

/** Split text into deltas at code point boundaries (a JSON string never holds half a surrogate pair); one boundary inside any « » key. */
export function deltas(r: Prng, t: string, maxPieces: number): string[] {
  const cps = Array.from(t);
  if (cps.length === 0) return [];
  const cuts = new Set<number>();
  for (let k = r.int(0, Math.min(maxPieces, cps.length) - 1); k > 0; k--) cuts.add(r.int(1, cps.length - 1));
  const open = cps.indexOf('«');
  if (open >= 0) cuts.add(Math.min(cps.length - 1, open + r.int(2, 10)));
  const sorted = [...cuts].filter((c) => c > 0 && c < cps.length).sort((a, b) => a - b);
  const out: string[] = [];
  let last = 0;
  for (const c of sorted) {
    out.push(cps.slice(last, c).join(''));
    last = c;
  }
  out.push(cps.slice(last).join(''));
  return out.filter(Boolean);
}

export interface Answer {
  content: string;
  reasoning: string;
  finish: Finish;
  secret: boolean;
}

export function answer(r: Prng): Answer {
  const c = text(r, { controls: 0.25, secret: 0.2, empty: 0.05 });
  const withReasoning = r.chance(0.5);
  const rs = withReasoning ? text(r, { controls: 0.1, secret: 0.1, empty: 0 }) : { text: '', secret: false };
  const reasoning = withReasoning ? r.pick(REASONING) + rs.text : '';
  const finish = r.weighted<Finish>([[70, 'stop'], [10, 'length'], [7, 'content_filter'], [13, null]]);
  return { content: c.text, reasoning, finish, secret: c.secret || rs.secret };
}

