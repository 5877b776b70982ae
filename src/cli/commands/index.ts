/**
 * Subcommands besides `config` register here, one line each. Each `register*` function lives
 * in its own file and imports its heavy parts lazily inside its action.
 */
import type { Command } from 'commander';
import { registerSessions } from './sessions.js';
import { registerRetexture } from './retexture.js';
import { registerTask } from './task.js';
import { registerDemo } from './demo.js';
import { registerCompletion } from './completion.js';
import { registerPrivacy } from './privacy.js';
import { registerRoles } from './roles.js';
import { registerBatch } from './batch.js';
import { registerPolicy } from './policy.js';

export function registerSubcommands(program: Command): void {
  registerRetexture(program);
  registerTask(program);
  registerSessions(program);
  registerDemo(program);
  registerCompletion(program);
  registerPrivacy(program);
  registerRoles(program);
  registerBatch(program);
  registerPolicy(program);
}
