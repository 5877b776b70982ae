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
  const t = text.replace(/\s+$/, '');
  const last = parseBlocks(t)
    .filter((b) => b.kind !== 'blank')
    .at(-1);
  if (!last || last.kind === 'code' || last.kind === 'table' || last.kind === 'rule') return t;
  // What pairs up: a paragraph's (and a quote's) lines are joined; list items and headings render line by line.
  const scope = last.kind === 'para' || last.kind === 'quote' ? last.lines.join('\n') : last.lines.at(-1)!;
  // A marker with nothing after it ("see **"): what it would have marked never came.
  return t.replace(/(^|\s)[*_~`]+$/, '$1').replace(/\s+$/, '') + closers(scope);
}

const WORD = /[\p{L}\p{N}_]/u;
const space = (c: string | undefined) => c === undefined || /\s/.test(c);

/** The markers that close what `s` leaves open, in the order to append them. */
function closers(s: string): string {
  // Escaped punctuation is text, not markup: keep its place, lose its meaning.
  let text = s.replace(/\\[!-/:-@[-`{-~]/g, 'xx');
  // Code spans: a run of backticks closed by a run of the same length. One left open holds the rest.
  let code = '';
  for (let i = 0; i < text.length; ) {
    if (text[i] !== '`') {
      i++;
      continue;
    }
    const run = /^`+/.exec(text.slice(i))![0];
    const close = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
    close.lastIndex = i + run.length;
    const m = close.exec(text);
    if (!m) {
      code = run;
      text = text.slice(0, i);
      break;
    }
    const end = m.index + run.length;
    text = text.slice(0, i) + 'x'.repeat(end - i) + text.slice(end);
    i = end;
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
