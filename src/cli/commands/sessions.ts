/**
 * `medchat sessions list|show|export|search|rm|purge|path`. Only commander is touched here; the store and
 * exports load inside each action so `--version` stays fast.
 */
import type { Command } from 'commander';

export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description('saved conversations: list, show, export, search, delete');
  // retention-days: conversations older than that go first, with one line saying so (not before purge, which says what it deletes itself).
  sessions.hook('preAction', async (_sessions, action) => {
    if (action.name() === 'purge' || action.name() === 'path') return;
    const { sweepExpiredSessions } = await import('./sessions-actions.js');
    sweepExpiredSessions();
  });
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
    .command('search <words...>')
    .description('find conversations holding every word (case and accents ignored), newest first, with the matching line and its turn')
    .option('--since <age|date>', 'only conversations saved since then: 12h, 7d, 2w or a date (2026-01-01)')
    .option('--role <name>', 'only conversations started with this role')
    .option('--reasoning', "search the model's reasoning too")
    .option('--limit <n>', 'at most this many conversations (default 20; 0: all)')
    .option('--json', 'one JSON array: id, title, last_activity, role, turns, matching_lines, lines (turn, part, text)')
    .action(async (words: string[], o: { since?: string; role?: string; reasoning?: boolean; limit?: string; json?: boolean }) => {
      const { sessionsSearch } = await import('./sessions-actions.js');
      process.exitCode = await sessionsSearch(words, o);
    });
  sessions
    .command('purge')
    .description('delete conversations older than an age or a date (--dry-run: only list them)')
    .option('--older-than <age|date>', '30d, 12h, 2w or a date (2026-01-01); default: config retention-days')
    .option('--dry-run', 'list what would be deleted; delete nothing')
    .action(async (o: { olderThan?: string; dryRun?: boolean }) => {
      const { sessionsPurge } = await import('./sessions-actions.js');
      process.exitCode = await sessionsPurge(o);
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
