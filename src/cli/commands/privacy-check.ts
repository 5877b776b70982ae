import fs from 'node:fs';
import { usageError } from '../../core/errors.js';
import { ExitCode } from '../../core/exit-codes.js';
import { PrivacyGuard } from '../../core/privacy/guard.js';
import { countByKind, describeCounts } from '../../core/privacy/kinds.js';
import { findingLines, lineCol } from '../../core/privacy/report.js';
import { jsonForTerminal, sanitizeForTerminal, sanitizeLine } from '../../core/text/sanitize.js';
import { MIN_STDIN_BYTES, readStdinText } from '../../core/io/stdin.js';
import { isTty } from '../../core/io/terminal.js';

/** The largest file `privacy check` reads (notes are kilobytes; a larger file is likely not a note). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

async function readInput(file: string | undefined): Promise<{ text: string; name: string }> {
  if (file === undefined || file === '-') {
    if (isTty(process.stdin)) throw usageError('nothing to check: name a file, or pipe text in (e.g. medchat privacy check < note.txt)');
    return { text: await readStdinText(process.stdin, Math.max(MIN_STDIN_BYTES, MAX_FILE_BYTES)), name: '-' };
  }
  let bytes: Buffer;
  try {
    const st = fs.statSync(file);
    if (st.isDirectory()) throw usageError(`${file} is a folder; name a text file`);
    if (st.size > MAX_FILE_BYTES) throw usageError(`${file} is larger than 16 MB; check a smaller part of it`);
    bytes = fs.readFileSync(file);
  } catch (err) {
    if ((err as { exitCode?: number }).exitCode !== undefined) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(code === 'ENOENT' ? `no such file: ${file}` : `cannot read ${file} (${code ?? 'error'})`);
  }
  if (bytes.includes(0)) throw usageError(`${file} holds binary data; privacy check reads text only`);
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, ''), name: file };
  } catch {
    throw usageError(`${file} is not valid UTF-8 text; convert it first (for example with iconv -t utf-8)`);
  }
}

export async function privacyCheck(file: string | undefined, o: { json?: boolean; redacted?: boolean }): Promise<number> {
  if (o.json && o.redacted) throw usageError('choose one of --json and --redacted');
  const { text, name } = await readInput(file);
  const guard = new PrivacyGuard();
  const findings = guard.inspect(text);
  const counts = countByKind(findings);
  const tty = isTty(process.stdout);
  const out = (s: string) => process.stdout.write(tty ? sanitizeForTerminal(s) : s);
  if (o.json) {
    out(
      jsonForTerminal(
        {
          file: name,
          found: findings.length,
          counts,
          findings: findings.map((f) => {
            const { line, col } = lineCol(text, f.start);
            return { kind: f.kind, text: f.text, start: f.start, end: f.end, line, column: col };
          }),
        },
        tty ? 2 : undefined,
      ) + '\n',
    );
  } else if (o.redacted) {
    out(guard.prepare(text, 'redact').text);
  } else {
    for (const line of findingLines(text, findings)) out(line + '\n');
  }
  if (!o.json) {
    const where = name === '-' ? 'stdin' : name;
    process.stderr.write(
      sanitizeLine(findings.length ? `medchat: privacy: ${where}: ${findings.length} found: ${describeCounts(counts)}` : `medchat: privacy: ${where}: nothing found`) + '\n',
    );
  }
  return findings.length ? ExitCode.privacyFound : ExitCode.ok;
}
