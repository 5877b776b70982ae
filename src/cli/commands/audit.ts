/**
 * `medchat audit verify|show|export [FILE]`: the audit log (core/audit) read back. Only commander
 * is touched here; the reader loads inside the actions. FILE defaults to this user's log (the
 * data folder's, or the one in the policy's audit folder): an administrator names another's.
 */
import type { Command } from 'commander';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';
import { cliAuditText } from '../../core/i18n/messages/cli-audit.js';

interface ShowFlags {
  since?: string;
  json?: boolean;
}

export function registerAudit(program: Command): void {
  const audit = program.command('audit').description(cliHelpText.audit);
  audit
    .command('verify [file]')
    .description(cliHelpText.auditVerify)
    .action(async (file?: string) => {
      process.exitCode = await verifyCommand(file);
    });
  audit
    .command('show [file]')
    .description(cliHelpText.auditShow)
    .option('--since <when>', cliHelpText.auditSince)
    .option('--json', cliHelpText.auditShowJson)
    .action(async (file: string | undefined, o: ShowFlags) => {
      process.exitCode = await showCommand(file, o, false);
    });
  audit
    .command('export [file]')
    .description(cliHelpText.auditExport)
    .option('--since <when>', cliHelpText.auditSince)
    .action(async (file: string | undefined, o: ShowFlags) => {
      process.exitCode = await showCommand(file, o, true);
    });
}

async function logFile(file: string | undefined): Promise<string> {
  if (file !== undefined) return file;
  const { auditFile } = await import('../../core/audit/log.js');
  return auditFile().file;
}

async function verifyCommand(file: string | undefined): Promise<number> {
  const { verifyLog, logExists } = await import('../../core/audit/read.js');
  const { usageError, MedchatError } = await import('../../core/errors.js');
  const { ExitCode } = await import('../../core/exit-codes.js');
  const { sanitizeLine } = await import('../../core/text/sanitize.js');
  const target = await logFile(file);
  const shown = sanitizeLine(target);
  if (!logExists(target)) throw usageError(cliAuditText.noLog(shown));
  const r = await verifyLog(target);
  for (const p of r.problems) process.stdout.write(`${p}\n`);
  if (r.problemCount > r.problems.length) process.stdout.write(`${cliAuditText.andMore(r.problemCount - r.problems.length)}\n`);
  if (r.problemCount) {
    throw new MedchatError(cliAuditText.tampered(shown, r.problemCount, r.lines), ExitCode.auditBroken, 'audit-broken');
  }
  process.stdout.write(`${cliAuditText.intact(shown, r.lines, r.head ?? undefined)}\n`);
  return ExitCode.ok;
}

async function showCommand(file: string | undefined, o: ShowFlags, asStored: boolean): Promise<number> {
  const { linesSince, parseSince, logExists } = await import('../../core/audit/read.js');
  const { sanitizeLine, jsonForTerminal } = await import('../../core/text/sanitize.js');
  const { OutputWriter } = await import('../../core/io/output.js');
  const { isTty } = await import('../../core/io/terminal.js');
  const since = o.since !== undefined ? parseSince(o.since) : undefined;
  const target = await logFile(file);
  if (!logExists(target)) {
    process.stderr.write(`${cliAuditText.noLogYet(sanitizeLine(target))}\n`);
    return 0;
  }
  const out = new OutputWriter(process.stdout);
  const tty = isTty(process.stdout);
  let rows = 0;
  if (!asStored && !o.json) await out.write(`${HEADER}\n`);
  for await (const { text, record } of linesSince(target, since)) {
    rows++;
    if (asStored) await out.write(tty ? sanitizeLine(text) + '\n' : `${text}\n`);
    else if (o.json) await out.write(jsonForTerminal(record) + '\n');
    else await out.write(sanitizeLine(tableRow(record)) + '\n');
    if (out.closed) break;
  }
  await out.flush();
  if (!rows && !asStored && !o.json) process.stderr.write(`${cliAuditText.noLines(o.since ? sanitizeLine(o.since) : undefined)}\n`);
  return out.failure ? 1 : 0;
}

const COLUMNS: Array<[title: string, width: number]> = [
  ['time', 19],
  ['mode', 10],
  ['outcome', 14],
  ['exit', 4],
  ['model', 22],
  ['in', 7],
  ['out', 7],
  ['privacy', 7],
];
const HEADER = COLUMNS.map(([t, w]) => t.padEnd(w)).join(' ') + ' identifiers';

function tableRow(r: import('../../core/audit/record.js').AuditRecord): string {
  const time = new Date(r.time);
  const local = Number.isNaN(time.getTime()) ? String(r.time) : `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())} ${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}`;
  const ids = Object.entries(r.identifiers ?? {})
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const cells = [local, r.mode, r.outcome, String(r.exit_code), r.model ?? '', num(r.tokens_in), num(r.tokens_out), r.privacy ?? ''];
  const sent = ids ? `${ids}${r.redacted ? cliAuditText.sentRedacted : cliAuditText.sentAsTyped}` : '';
  return cells.map((c, i) => String(c).padEnd(COLUMNS[i]![1])).join(' ') + ' ' + sent;
}

const pad = (n: number) => String(n).padStart(2, '0');
const num = (n: number | undefined) => (n === undefined ? '' : String(n));
