import { parseBlocks } from './blocks.js';

/**
 * An answer cut off mid-stream (Esc, a lost connection, the token limit) stops mid-sentence, often
 * inside inline markup: `**very impor`, `` `amoxic ``. Rendered as it is, its last paragraph shows
 * those markers raw while every finished paragraph above it is formatted. This closes what the last
 * block left open (an unclosed code span, then emphasis and strike, innermost first) and drops a
 * marker with nothing after it, so the cut paragraph renders like a finished one.
 *
 * Only for what is shown: the saved answer, /copy and exports keep the text exactly as it came.
 * A code block is left as it is (an unclosed fence already renders as code), and so is a table.
 */
export function closeCutMarkup(text: string): string {
  const t = text.trimEnd(); // (not /\s+$/: tried from every space of a long run, that was quadratic)
  const last = parseBlocks(t)
    .filter((b) => b.kind !== 'blank')
    .at(-1);
  if (!last || last.kind === 'code' || last.kind === 'table' || last.kind === 'rule') return t;
  // What pairs up: a paragraph's (and a quote's) lines are joined; list items and headings render line by line.
  const scope = last.kind === 'para' || last.kind === 'quote' ? last.lines.join('\n') : last.lines.at(-1)!;
  // A marker with nothing after it ("see **"): what it would have marked never came.
  return t.replace(/(^|\s)[*_~`]+$/, '$1').trimEnd() + closers(scope);
}

const WORD = /[\p{L}\p{N}_]/u;
const space = (c: string | undefined) => c === undefined || /\s/.test(c);

/** The markers that close what `s` leaves open, in the order to append them. */
function closers(s: string): string {
  // Escaped punctuation is text, not markup: keep its place, lose its meaning.
  let text = s.replace(/\\[!-/:-@[-`{-~]/g, 'xx');
  // Code spans: a run of backticks closed by the next run of the same length. One left open holds
  // the rest. (Runs are listed once and matched by length: searching the text again from each run,
  // and rebuilding it after each span, was quadratic on a text of many backticks.)
  let code = '';
  const runs: Array<{ start: number; end: number }> = [];
  for (let i = text.indexOf('`'); i >= 0; i = text.indexOf('`', i)) {
    let end = i + 1;
    while (text[end] === '`') end++;
    runs.push({ start: i, end });
    i = end;
  }
  const byLength = new Map<number, number[]>();
  runs.forEach((r, k) => {
    const list = byLength.get(r.end - r.start) ?? [];
    list.push(k);
    byLength.set(r.end - r.start, list);
  });
  const next = new Map<number, number>(); // per length: where in its list to look next
  const spans: Array<[number, number]> = [];
  for (let k = 0; k < runs.length; ) {
    const open = runs[k]!;
    const len = open.end - open.start;
    const list = byLength.get(len)!;
    let at = next.get(len) ?? 0;
    while (at < list.length && list[at]! <= k) at++;
    next.set(len, at);
    if (at >= list.length) {
      code = '`'.repeat(len);
      text = text.slice(0, open.start);
      break;
    }
    const close = runs[list[at]!]!;
    spans.push([open.start, close.end]);
    k = list[at]! + 1;
  }
  if (spans.length) {
    let masked = '';
    let last = 0;
    for (const [s, e] of spans) {
      if (s >= text.length) break;
      masked += text.slice(last, s) + 'x'.repeat(e - s);
      last = e;
    }
    text = masked + text.slice(last);
  }
  // Emphasis and strike, as the renderer pairs them (see ui/text/markdown-inline.ts).
  const open: string[] = [];
  for (const m of text.matchAll(/\*+|_+|~{2,}/g)) {
    const run = m[0];
    const before = text[m.index - 1];
    const after = text[m.index + run.length];
    const single = run.length === 1;
    let canOpen = !space(after);
    let canClose = !space(before);
    if (run[0] === '_' || (single && run === '*')) canOpen &&= before === undefined || !WORD.test(before);
    if (run[0] === '_') canClose &&= after === undefined || !WORD.test(after);
    const at = canClose ? open.lastIndexOf(run) : -1;
    if (at >= 0) open.length = at;
    else if (canOpen) open.push(run);
  }
  return code + open.reverse().join('');
}
