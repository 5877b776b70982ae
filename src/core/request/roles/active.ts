/**
 * A role switched on in a running conversation (the chat screen's `-r` and `/role`): what it
 * sets, and what it replaced, so `/role off` (or another role) starts again from there.
 */
import { makePlanner } from '../request-plan.js';
import type { Settings } from '../../config/settings.js';
import type { Role } from './role.js';

export interface RoleSettings {
  system?: string;
  thinking: boolean;
  maxTokens: number;
  temperature?: number;
}

export interface ActiveRole {
  name: string;
  /** The system prompt and settings before any role: what `/role off` goes back to. */
  base: RoleSettings;
}

export function currentRoleSettings(settings: Settings, system: string | undefined): RoleSettings {
  return { system, thinking: settings.thinking, maxTokens: settings.maxTokens, temperature: settings.temperature };
}

/**
 * What `role` sets on top of `base`, through the same request plan one-shot and batch use: the
 * role's system prompt first, then the user's own (`-s`), then a schema instruction when the role
 * has a schema; its thinking, max tokens and temperature where it sets them.
 */
export async function roleSettings(role: Role, base: RoleSettings, settings: Settings): Promise<RoleSettings> {
  const planner = await makePlanner({
    settings: { ...settings, thinking: base.thinking, maxTokens: base.maxTokens, temperature: base.temperature },
    role,
    system: base.system,
  });
  return { system: planner.system, thinking: planner.settings.thinking, maxTokens: planner.settings.maxTokens, temperature: planner.settings.temperature };
}
