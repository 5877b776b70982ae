/**
 * `medchat roles list|show|edit|path`. Only commander is touched here; the role store loads
 * inside each action so `--version` stays fast.
 */
import type { Command } from 'commander';

export function registerRoles(program: Command): void {
  const roles = program.command('roles').description('named clinical presets (system prompt + settings): list, show, edit');
  roles
    .command('list')
    .description('list the roles: built-in and yours')
    .option('--json', 'one JSON array: name, source, description, file, settings')
    .action(async (o: { json?: boolean }) => {
      const { rolesList } = await import('./roles-actions.js');
      process.exitCode = rolesList(o);
    });
  roles
    .command('show <name>')
    .description('print a role file: front matter (settings) and system prompt')
    .action(async (name: string) => {
      const { rolesShow } = await import('./roles-actions.js');
      process.exitCode = rolesShow(name);
    });
  roles
    .command('edit <name>')
    .description("edit a role in $VISUAL/$EDITOR (a built-in is copied to your roles folder first; a new name starts from a template); without a terminal, prints the file's path")
    .action(async (name: string) => {
      const { rolesEdit } = await import('./roles-actions.js');
      process.exitCode = rolesEdit(name);
    });
  roles
    .command('path')
    .description('print the folder your roles are kept in')
    .action(async () => {
      const { rolesPath } = await import('./roles-actions.js');
      process.exitCode = rolesPath();
    });
  for (const cmd of roles.commands) cmd.exitOverride();
  roles.exitOverride();
}
