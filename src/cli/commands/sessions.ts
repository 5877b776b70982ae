/**
 * `medchat sessions list|show|export|rm|path`. Only commander is touched here; the store and
 * exports load inside each action so `--version` stays fast.
 */
import type { Command } from 'commander';

export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description('saved conversations: list, show, export, delete');
  sessions
    .command('list')
    .description('list saved conversations, newest first')
    .option('--json', 'one JSON array: id, title, created_at, updated_at, turns, file')
    .action(async (o: { json?: boolean }) => {
      const { sessionsList } = await import('./sessions-actions.js');
      process.exitCode = await sessionsList(o);
    });
  sessions
    .command('show <id>')
    .description('print a conversation (id, a unique prefix of one, or "latest")')
    .option('--reasoning', 'include the model\'s reasoning')
    .action(async (id: string, o: { reasoning?: boolean }) => {
      const { sessionsShow } = await import('./sessions-actions.js');
      process.exitCode = await sessionsShow(id, o);
    });
  sessions
    .command('export <id>')
    .description('export a conversation as Markdown or JSON (to stdout, or a file with -o)')
    .option('-f, --format <format>', 'md or json (default: from the -o file name, else md)')
    .option('-o, --output <file>', 'write to this file (created 0600) instead of stdout')
    .option('--reasoning', 'include the model\'s reasoning')
    .action(async (id: string, o: { format?: string; output?: string; reasoning?: boolean }) => {
      const { sessionsExport } = await import('./sessions-actions.js');
      process.exitCode = await sessionsExport(id, o);
    });
  sessions
    .command('rm [ids...]')
    .description('delete conversations (--all: every saved conversation)')
    .option('--all', 'delete every saved conversation')
    .action(async (ids: string[], o: { all?: boolean }) => {
      const { sessionsRm } = await import('./sessions-actions.js');
      process.exitCode = await sessionsRm(ids, o);
    });
  sessions
    .command('path')
    .description('print the folder sessions are saved in')
    .action(async () => {
      const { sessionsPath } = await import('./sessions-actions.js');
      process.exitCode = await sessionsPath();
    });
  for (const cmd of sessions.commands) cmd.exitOverride();
  sessions.exitOverride();
}
