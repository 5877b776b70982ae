import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createElement } from 'react';
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { LINK_CLOSE } from '../../src/core/text/hyperlinks.js';
import { renderInline, renderMarkdown } from '../../src/ui/text/markdown.js';
import { CONTINUATION } from '../../src/ui/text/markdown-code.js';
import { stripAnsi, textWidth } from '../../src/core/text/width.js';
import { Prng, seedFromEnv } from '../support/prng.js';

const plain = (md: string, width = 60) => renderMarkdown(md, { width, colour: false }).split('\n');
const lines = (md: string, width = 60, hyperlinks = false) => renderMarkdown(md, { width, colour: true, hyperlinks }).split('\n');
/** The OSC 8 targets in `s`, in order (closing sequences left out). */
const targets = (s: string) => [...s.matchAll(/\x1b\]8;[^;\x07]*;([^\x07]*)\x07/g)].map((m) => m[1]).filter(Boolean);

test('***x*** is bold and italic, and no asterisk is left over', () => {
  const out = renderInline('a ***very*** important dose', true);
  assert.equal(out, 'a \x1b[1m\x1b[3mvery\x1b[23m\x1b[22m important dose');
  assert.equal(renderInline('___also___ this', false), 'also this');
  assert.equal(stripAnsi(renderInline('***bold italic** then italic*', true)), 'bold italic then italic');
  assert.equal(stripAnsi(renderInline('***italic bold* then bold**', true)), 'italic bold then bold');
  assert.equal(stripAnsi(renderInline('**bold** and *it* and _it_ and ~~gone~~', true)), 'bold and it and it and gone');
});

test('backslash escapes show the character and stop it from being markup', () => {
  assert.equal(renderInline('\\*not italic\\* \\_nor this\\_ \\# \\[x\\](y) \\`tick\\` a\\\\b', true), '*not italic* _nor this_ # [x](y) `tick` a\\b');
  assert.deepEqual(plain('\\# not a heading\n\n\\- not a list\n\n1\\. not numbered'), ['# not a heading', '', '- not a list', '', '1. not numbered']);
  // Inside a code span a backslash is just a backslash.
  assert.equal(renderInline('`a\\*b`', false), 'a\\*b');
});

test('HTML entities become their characters; ones that would be control characters stay as written', () => {
  assert.equal(renderInline('A &amp; B &lt;5&gt; &quot;q&quot; &#39;s&#39; 37&deg;C &plusmn;0.5 &#x2265;1 &#8804;2', false), 'A & B <5> "q" \'s\' 37°C ±0.5 ≥1 ≤2');
  assert.equal(renderInline('&#27;[2J &#x9b; &#8238; &madeup; &#0;', false), '&#27;[2J &#x9b; &#8238; &madeup; \ufffd');
  // A decoded character is text, not markup.
  assert.equal(renderInline('&#42;not italic&#42;', true), '*not italic*');
  assert.equal(renderInline('`&amp;` stays in code', false), '&amp; stays in code');
});

test('table columns follow the delimiter row: :-- left, :-: centre, --: right', () => {
  const out = plain('| Drug | Dose | mg |\n|:--|:-:|--:|\n| paracetamol | 1 g | 1000 |\n| ibuprofen | 400 mg | 400 |');
  assert.deepEqual(out, [
    '┌─────────────┬────────┬──────┐',
    '│ Drug        │  Dose  │   mg │',
    '├─────────────┼────────┼──────┤',
    '│ paracetamol │  1 g   │ 1000 │',
    '│ ibuprofen   │ 400 mg │  400 │',
    '└─────────────┴────────┴──────┘',
  ]);
  // A separator with one dash per column is a table too; a dashed line under prose with other cell counts is not.
  assert.match(plain('| a | b |\n|-|-|\n| 1 | 2 |').join('\n'), /│ 1   │ 2   │/);
  assert.doesNotMatch(plain('a | b | c\n---').join('\n'), /┌/);
});

test('a URL is never broken at a word boundary: it moves whole to a row of its own', () => {
  const url = 'https://www.nice.org.uk/guidance/ng143/chapter/Recommendations-assessment';
  const out = plain(`For the current advice on fever in the under-fives see ${url} and follow it.`, 80);
  assert.ok(out.some((l) => l.startsWith(url)), out.join('\n'));
  for (const l of out) assert.ok(textWidth(l) <= 80);
  // Underscores and asterisks in a URL are not emphasis.
  assert.equal(renderInline('see https://example.org/a_b_c/*x*/', true), 'see https://example.org/a_b_c/*x*/');
  // Sentence punctuation and an unbalanced ')' after it are not part of it.
  const linked = lines('(see https://en.wikipedia.org/wiki/Fever_(disambiguation)). Then', 80, true).join('\n');
  assert.deepEqual(targets(linked), ['https://en.wikipedia.org/wiki/Fever_(disambiguation)']);
  assert.equal(stripAnsi(linked), '(see https://en.wikipedia.org/wiki/Fever_(disambiguation)). Then');
});

test('with hyperlinks, links are OSC 8 to the checked target, closed on every row, and the text shown is unchanged', () => {
  const md = 'Read [the NHS page](https://www.nhs.uk/conditions/fever-in-children/) or <https://nice.org.uk/x?a=1&amp;b=2>, and https://example.org/a_(b).';
  const withLinks = lines(md, 100, true).join('\n');
  const without = lines(md, 100, false).join('\n');
  assert.equal(stripAnsi(withLinks), stripAnsi(without));
  assert.deepEqual(targets(withLinks), [
    'https://www.nhs.uk/conditions/fever-in-children/',
    'https://www.nhs.uk/conditions/fever-in-children/',
    'https://nice.org.uk/x?a=1&b=2',
    'https://example.org/a_(b)',
  ]);
  // Every opened link is closed on the same row.
  for (const row of lines(md, 40, true)) {
    const opens = targets(row).length;
    const closes = row.split(LINK_CLOSE).length - 1;
    assert.equal(opens, closes, JSON.stringify(row));
  }
  // No hyperlinks asked for, or no colour: no OSC at all.
  assert.doesNotMatch(without, /\x1b\]/);
  assert.doesNotMatch(renderMarkdown(md, { width: 100, colour: false, hyperlinks: true }), /\x1b/);
});

test('a link longer than the screen is cut into rows that each link to the whole URL', () => {
  const url = `https://pubmed.ncbi.nlm.nih.gov/?term=${'fever+children+paracetamol+'.repeat(4)}end`;
  const rows = lines(`See ${url} now`, 40, true);
  const linkRows = rows.filter((r) => targets(r).length > 0);
  assert.ok(linkRows.length >= 3, rows.join('\n'));
  for (const r of linkRows) assert.deepEqual(targets(r), [url]);
  // It starts a row of its own and fills each row to the edge: no character lost or added.
  assert.equal(stripAnsi(rows[0]!).trimEnd(), 'See');
  assert.equal(rows.slice(1).map(stripAnsi).join(''), `${url} now`);
  for (const r of rows) assert.ok(textWidth(r) <= 40);
});

test('unsafe link targets are shown but never made links', () => {
  for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', 'https://nhs.uk@evil.example/', 'data:text/html,x']) {
    const out = lines(`[click](${bad})`, 80, true).join('\n');
    assert.equal(targets(out).length, 0, bad);
    assert.match(stripAnsi(out), /click/);
  }
});

test('Ink passes the OSC 8 links through to the terminal intact', () => {
  const md = 'See [NICE](https://www.nice.org.uk/guidance/ng143) today.';
  const ui = render(createElement(Text, null, renderMarkdown(md, { width: 60, colour: true, hyperlinks: true })));
  const frame = ui.lastFrame() ?? '';
  ui.unmount();
  assert.deepEqual(targets(frame), ['https://www.nice.org.uk/guidance/ng143', 'https://www.nice.org.uk/guidance/ng143']);
  assert.equal(stripAnsi(frame), 'See NICE (https://www.nice.org.uk/guidance/ng143) today.');
});

test('a long code line is cut at the edge with a ↪ on each row that continues it, no character lost', () => {
  const code = `const url = "https://example.org/${'segment/'.repeat(12)}"; // the whole thing`;
  const out = plain('```js\n' + code + '\nshort();\n```', 40);
  assert.equal(out[0], '  js');
  const rows = out.slice(1, -1);
  assert.ok(rows.length >= 3, out.join('\n'));
  assert.ok(rows[0]!.startsWith('  const url'));
  for (const r of rows.slice(1)) assert.ok(r.startsWith(`${CONTINUATION} `), r);
  for (const r of out) assert.ok(textWidth(r) <= 40, r);
  assert.equal(rows.map((r) => r.slice(2)).join(''), code);
  assert.equal(out.at(-1), '  short();');
  // In colour the marker is dim and the highlighting carries on over the cut.
  const coloured = lines('```js\nlet s = "' + 'x'.repeat(60) + '";\n```', 40);
  assert.match(coloured[2]!, /^\x1b\[2m↪\x1b\[22m \x1b\[32mx/);
});

test('code lines keep their spaces when cut, and wide characters are never split', () => {
  const seed = seedFromEnv();
  console.log(`code cutting: MEDCHAT_SEED=${seed}`);
  const prng = new Prng(seed);
  const pool = ['a', ' ', '  ', '界', '=', '"', '😀', 'é', '\t'];
  for (let i = 0; i < 200; i++) {
    const width = prng.int(20, 60);
    let code = 'x';
    for (let n = prng.int(0, 120); n > 0; n--) code += prng.pick(pool);
    const rows = plain('```\n' + code + '\n```', width);
    const where = `MEDCHAT_SEED=${seed}, case ${i}, width ${width}: ${JSON.stringify(code)}`;
    for (const r of rows) assert.ok(textWidth(r) <= width, `${JSON.stringify(r)} too wide; ${where}`);
    assert.equal(rows.map((r) => r.slice(2)).join(''), code.replace(/\t/g, '    '), where);
  }
});

test('a fenced block inside a numbered list item is drawn as code, not as list text', () => {
  const out = plain('1. Install it:\n   ```bash\n   npm install medchat\n   ```\n2. Run it.');
  assert.deepEqual(out, ['1. Install it:', '  bash', '  npm install medchat', '2. Run it.']);
});
