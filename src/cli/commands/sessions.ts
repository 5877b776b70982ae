/**
 * `medchat sessions list|show|export|search|rm|purge|path`. Only commander is touched here; the store and
 * exports load inside each action so `--version` stays fast.
 */
import type { Command } from 'commander';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description(cliHelpText.sessions);
  // retention-days: conversations older than that go first, with one line saying so (not before purge, which says what it deletes itself).
  sessions.hook('preAction', async (_sessions, action) => {
    if (action.name() === 'purge' || action.name() === 'path') return;
    const { sweepExpiredSessions } = await import('./sessions-actions.js');
    sweepExpiredSessions();
  });
  sessions
    .command('list')
    .description(cliHelpText.sessionsList)
    .option('--json', cliHelpText.sessionsListJson)
    .action(async (o: { json?: boolean }) => {
      const { sessionsList } = await import('./sessions-actions.js');
      process.exitCode = await sessionsList(o);
    });
  sessions
    .command('show <id>')
    .description(cliHelpText.sessionsShow)
    .option('--reasoning', cliHelpText.sessionsReasoning)
    .action(async (id: string, o: { reasoning?: boolean }) => {
      const { sessionsShow } = await import('./sessions-actions.js');
      process.exitCode = await sessionsShow(id, o);
    });
  sessions
    .command('export <id>')
    .description(cliHelpText.sessionsExport)
    .option('-f, --format <format>', cliHelpText.sessionsExportFormat)
    .option('-o, --output <file>', cliHelpText.sessionsExportOutput)
    .option('--reasoning', cliHelpText.sessionsReasoning)
    .action(async (id: string, o: { format?: string; output?: string; reasoning?: boolean }) => {
      const { sessionsExport } = await import('./sessions-actions.js');
      process.exitCode = await sessionsExport(id, o);
    });
  sessions
    .command('search <words...>')
    .description(cliHelpText.sessionsSearch)
    .option('--since <age|date>', cliHelpText.sessionsSearchSince)
    .option('--role <name>', cliHelpText.sessionsSearchRole)
    .option('--reasoning', cliHelpText.sessionsSearchReasoning)
    .option('--limit <n>', cliHelpText.sessionsSearchLimit)
    .option('--json', cliHelpText.sessionsSearchJson)
    .action(async (words: string[], o: { since?: string; role?: string; reasoning?: boolean; limit?: string; json?: boolean }) => {
      const { sessionsSearch } = await import('./sessions-actions.js');
      process.exitCode = await sessionsSearch(words, o);
    });
  sessions
    .command('purge')
    .description(cliHelpText.sessionsPurge)
    .option('--older-than <age|date>', cliHelpText.sessionsPurgeOlderThan)
    .option('--dry-run', cliHelpText.sessionsPurgeDryRun)
    .action(async (o: { olderThan?: string; dryRun?: boolean }) => {
      const { sessionsPurge } = await import('./sessions-actions.js');
      process.exitCode = await sessionsPurge(o);
    });
  sessions
    .command('rm [ids...]')
    .description(cliHelpText.sessionsRm)
    .option('--all', cliHelpText.sessionsRmAll)
    .action(async (ids: string[], o: { all?: boolean }) => {
      const { sessionsRm } = await import('./sessions-actions.js');
      process.exitCode = await sessionsRm(ids, o);
    });
  sessions
    .command('path')
    .description(cliHelpText.sessionsPath)
    .action(async () => {
      const { sessionsPath } = await import('./sessions-actions.js');
      process.exitCode = await sessionsPath();
    });
  for (const cmd of sessions.commands) cmd.exitOverride();
  sessions.exitOverride();
}
