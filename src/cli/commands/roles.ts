/**
 * `medchat roles list|show|edit|path`. Only commander is touched here; the role store loads
 * inside each action so `--version` stays fast.
 */
import type { Command } from 'commander';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

export function registerRoles(program: Command): void {
  const roles = program.command('roles').description(cliHelpText.roles);
  roles
    .command('list')
    .description(cliHelpText.rolesList)
    .option('--json', cliHelpText.rolesListJson)
    .action(async (o: { json?: boolean }) => {
      const { rolesList } = await import('./roles-actions.js');
      process.exitCode = rolesList(o);
    });
  roles
    .command('show <name>')
    .description(cliHelpText.rolesShow)
    .action(async (name: string) => {
      const { rolesShow } = await import('./roles-actions.js');
      process.exitCode = rolesShow(name);
    });
  roles
    .command('edit <name>')
    .description(cliHelpText.rolesEdit)
    .action(async (name: string) => {
      const { rolesEdit } = await import('./roles-actions.js');
      process.exitCode = rolesEdit(name);
    });
  roles
    .command('path')
    .description(cliHelpText.rolesPath)
    .action(async () => {
      const { rolesPath } = await import('./roles-actions.js');
      process.exitCode = rolesPath();
    });
  for (const cmd of roles.commands) cmd.exitOverride();
  roles.exitOverride();
}
