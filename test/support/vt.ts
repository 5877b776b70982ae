/**
 * A minimal terminal for tests of what medchat writes: the cursor moves, erases and newlines the
 * frame writer and Ink use, on a screen with no bottom (nothing scrolls away). Colour codes and
 * modes are ignored. `lines()` is what a user would see, trailing blanks trimmed.
 */
export class VirtualTerminal {
  private grid: string[][] = [[]];
  row = 0;
  col = 0;

  constructor(private readonly width = 80) {}

  write(data: string): void {
    let i = 0;
    while (i < data.length) {
      const ch = data[i]!;
      if (ch === '\x1b') {
        const m = /^\x1b\[([?0-9;]*)([A-Za-z])/.exec(data.slice(i, i + 24));
        if (!m) throw new Error(`unknown escape at ${JSON.stringify(data.slice(i, i + 12))}`);
        this.csi(m[1]!, m[2]!);
        i += m[0].length;
        continue;
      }
      i += ch.length;
      if (ch === '\n') {
        this.row++;
        this.col = 0; // a pty turns \n into \r\n
      } else if (ch === '\r') this.col = 0;
      else {
        if (this.col >= this.width) {
          this.row++;
          this.col = 0;
        }
        this.line()[this.col++] = ch;
      }
    }
  }

  private line(): string[] {
    while (this.grid.length <= this.row) this.grid.push([]);
    return this.grid[this.row]!;
  }

  private csi(params: string, cmd: string): void {
    if (params.startsWith('?') || cmd === 'm') return;
    const n = Number(params || '1');
    if (cmd === 'A') this.row = Math.max(0, this.row - n);
    else if (cmd === 'B') this.row += n;
    else if (cmd === 'G') this.col = n - 1;
    else if (cmd === 'K') {
      const l = this.line();
      if (params === '2') l.length = 0;
      else l.length = Math.min(l.length, this.col);
    } else if (cmd === 'J') {
      this.line().length = Math.min(this.line().length, this.col);
      this.grid.length = this.row + 1;
    } else if (cmd === 'H') {
      this.row = 0;
      this.col = 0;
    } else throw new Error(`unknown CSI ${params}${cmd}`);
  }

  lines(): string[] {
    const out = this.grid.map((l) => Array.from(l, (c) => c ?? ' ').join('').trimEnd());
    while (out.length && out.at(-1) === '') out.pop();
    return out;
  }
}
