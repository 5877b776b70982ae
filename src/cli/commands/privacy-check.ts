import { usageError } from '../../core/errors.js';
import { ExitCode } from '../../core/exit-codes.js';
import { PrivacyGuard } from '../../core/privacy/guard.js';
import { countByKind, describeCounts } from '../../core/privacy/kinds.js';
import { findingLines, lineCol } from '../../core/privacy/report.js';
import { jsonForTerminal, sanitizeForTerminal, sanitizeLine } from '../../core/text/sanitize.js';
import { MAX_INPUT_BYTES, readStdinText } from '../../core/io/stdin.js';
import { isTty } from '../../core/io/terminal.js';
import { readTextFileBounded } from '../../core/io/bounded-read.js';
import { cliText } from '../../core/i18n/messages/cli.js';

/** The largest file `privacy check` reads (notes are kilobytes; a larger file is likely not a note). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;

async function readInput(file: string | undefined): Promise<{ text: string; name: string }> {
  if (file === undefined || file === '-') {
    if (isTty(process.stdin)) throw usageError(cliText.nothingToCheck);
    return { text: await readStdinText(process.stdin, Math.max(MAX_INPUT_BYTES, MAX_FILE_BYTES)), name: '-' };
  }
  const text = readTextFileBounded(file, { maxBytes: MAX_FILE_BYTES, what: file, tooBigHint: cliText.checkSmallerPart });
  return { text, name: file };
}

export async function privacyCheck(file: string | undefined, o: { json?: boolean; redacted?: boolean }): Promise<number> {
  if (o.json && o.redacted) throw usageError(cliText.jsonOrRedacted);
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
    const where = name === '-' ? cliText.stdinName : name;
    process.stderr.write(
      sanitizeLine(findings.length ? cliText.privacyFound(where, findings.length, describeCounts(counts)) : cliText.privacyNothing(where)) + '\n',
    );
  }
  return findings.length ? ExitCode.privacyFound : ExitCode.ok;
}
