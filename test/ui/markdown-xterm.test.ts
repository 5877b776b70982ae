import assert from 'node:assert/strict';
import { test } from 'node:test';
import xterm from '@xterm/headless';
import { renderMarkdown } from '../../src/ui/text/markdown.js';
import { stripAnsi } from '../../src/core/text/width.js';

// Rendered Markdown written to a real terminal emulator (xterm.js, headless): links and the code
// continuation mark must look on screen exactly as the plain text does, and the links must be
// links there, each piece of a cut one pointing at the whole URL.
interface Cell {
  getChars(): string;
}
interface LinkCore {
  _oscLinkService?: { getLinkData(id: number): { uri: string } | undefined };
}

async function show(text: string, cols: number): Promise<{ rows: string[]; linkAt(y: number, x: number): string | undefined }> {
  const term = new xterm.Terminal({ cols, rows: 40, allowProposedApi: true });
  await new Promise<void>((r) => term.write(text.replace(/\n/g, '\r\n'), r));
  const b = term.buffer.active;
  const rows: string[] = [];
  // (Trailing spaces left: the wrapper may leave one before a colour code at the end of a row.)
  for (let y = 0; y < b.length; y++) rows.push(b.getLine(y)!.translateToString(true).trimEnd());
  while (rows.length && rows.at(-1) === '') rows.pop();
  const core = (term as unknown as { _core: LinkCore })._core;
  return {
    rows,
    linkAt(y, x) {
      const cell = b.getLine(y)?.getCell(x) as (Cell & { extended?: { urlId?: number } }) | undefined;
      const id = cell?.extended?.urlId;
      return id ? core._oscLinkService?.getLinkData(id)?.uri : undefined;
    },
  };
}

const MD = [
  'See [NICE NG143](https://www.nice.org.uk/guidance/ng143) and the search https://pubmed.ncbi.nlm.nih.gov/?term=' + 'fever+child+'.repeat(8) + 'x today.',
  '',
  '| Drug | mg |',
  '|:--|--:|',
  '| [paracetamol](https://bnf.nice.org.uk/drugs/paracetamol/) | 500 |',
  '',
  '```sh',
  `curl 'https://example.org/${'long/'.repeat(12)}'`,
  '```',
].join('\n');

test('on a real terminal emulator, links add nothing visible, move nothing, and every piece of a cut link opens the whole URL', async () => {
  const cols = 40;
  const linked = renderMarkdown(MD, { width: cols, colour: true, hyperlinks: true });
  const plain = renderMarkdown(MD, { width: cols, colour: true, hyperlinks: false });
  assert.match(linked, /\x1b\]8;/);
  const screen = await show(linked, cols);
  assert.deepEqual(screen.rows, (await show(plain, cols)).rows);
  assert.deepEqual(screen.rows, stripAnsi(plain).split('\n').map((l) => l.trimEnd()));
  // The long search URL: every one of its characters on screen links to the whole URL.
  const url = 'https://pubmed.ncbi.nlm.nih.gov/?term=' + 'fever+child+'.repeat(8) + 'x';
  const first = screen.rows.findIndex((r) => r.startsWith('https://pubmed'));
  assert.ok(first > 0, screen.rows.join('\n'));
  let seen = '';
  for (let y = first; seen.length < url.length; y++) {
    for (let x = 0; x < screen.rows[y]!.length && seen.length < url.length; x++) {
      assert.equal(screen.linkAt(y, x), url, `row ${y} column ${x}`);
      seen += screen.rows[y]![x];
    }
  }
  assert.equal(seen, url);
  // The word after it is not part of the link; a link in a table cell is one too.
  const tableRow = screen.rows.findIndex((r) => r.includes('paracetamol'));
  assert.equal(screen.linkAt(tableRow, screen.rows[tableRow]!.indexOf('paracetamol')), 'https://bnf.nice.org.uk/drugs/paracetamol/');
  assert.equal(screen.linkAt(tableRow, screen.rows[tableRow]!.indexOf('500')), undefined);
  // The cut code line: its rows after the first start with the continuation mark, no link.
  const code = screen.rows.filter((r) => r.startsWith('↪ '));
  assert.ok(code.length >= 1, screen.rows.join('\n'));
});
