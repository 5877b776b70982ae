/**
 * Where roles come from: the user's `<config dir>/roles/NAME.md`, then the built-ins. A user file
 * with a built-in's name replaces it (that is what `roles edit soap` makes).
 */
import fs from 'node:fs';
import path from 'node:path';
import { usageError } from '../../errors.js';
import { FileReadError, readTextFileBounded } from '../../io/bounded-read.js';
import { configDir } from '../../config/paths.js';
import { BUILTIN_ROLES } from './builtins.js';
import { ROLE_NAME, RoleFileError, parseRole, type Role } from './role.js';
import { requestText } from '../../i18n/messages/request.js';

export function rolesDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'roles');
}

/** A role file is a few KB; a big file here is a mistake. */
const MAX_ROLE_BYTES = 256 * 1024;

/**
 * A role file's text: a regular file (a link to one is fine) under 256 KB, UTF-8 without a NUL
 * byte, as -f takes; anything else is a FileReadError naming the file (read by io/bounded-read.ts).
 */
export function readRoleFile(file: string): string {
  return readTextFileBounded(file, { maxBytes: MAX_ROLE_BYTES, what: file, tooBigHint: requestText.roleFileTooBigHint });
}

interface RoleEntry {
  name: string;
  source: 'built-in' | 'user';
  /** A user file with a built-in's name. */
  replacesBuiltIn: boolean;
  file?: string;
  /** The role, or why its file could not be read. */
  role?: Role;
  problem?: string;
}

/** Every role: built-ins and the user's, sorted by name (built-ins in their own order first). */
export function listRoles(dir = rolesDir()): RoleEntry[] {
  const user = userRoleNames(dir);
  const entries: RoleEntry[] = [];
  for (const name of Object.keys(BUILTIN_ROLES)) {
    if (user.includes(name)) entries.push(userEntry(dir, name, true));
    else entries.push({ name, source: 'built-in', replacesBuiltIn: false, role: builtInRole(name) });
  }
  for (const name of user.filter((n) => !Object.hasOwn(BUILTIN_ROLES, n)).sort()) entries.push(userEntry(dir, name, false));
  return entries;
}

function roleNames(dir = rolesDir()): string[] {
  return listRoles(dir).map((e) => e.name);
}

/** The role called `name`, or a usage error (exit 2) naming the roles there are. */
export function loadRole(name: string, dir = rolesDir()): Role {
  const n = name.trim();
  if (!ROLE_NAME.test(n)) throw unknownRole(n, dir);
  const file = path.join(dir, `${n}.md`);
  if (fs.existsSync(file)) {
    const e = userEntry(dir, n, Object.hasOwn(BUILTIN_ROLES, n));
    if (e.problem) throw usageError(`role ${n}: ${e.problem}`);
    return e.role!;
  }
  if (Object.hasOwn(BUILTIN_ROLES, n)) return builtInRole(n);
  throw unknownRole(n, dir);
}

function builtInRole(name: string): Role {
  return parseRole(name, BUILTIN_ROLES[name]!, 'built-in');
}

function unknownRole(name: string, dir: string) {
  return usageError(requestText.noRole(name, roleNames(dir).join(', ')));
}

function userRoleNames(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).filter((n) => ROLE_NAME.test(n));
}

function userEntry(dir: string, name: string, replacesBuiltIn: boolean): RoleEntry {
  const file = path.join(dir, `${name}.md`);
  const entry: RoleEntry = { name, source: 'user', replacesBuiltIn, file };
  try {
    const text = readRoleFile(file);
    return { ...entry, role: parseRole(name, text, 'user', file) };
  } catch (err) {
    if (err instanceof RoleFileError) return { ...entry, problem: `${file}: ${err.message}` };
    if (err instanceof FileReadError) return { ...entry, problem: err.message };
    return { ...entry, problem: requestText.cannotReadRole(file, (err as NodeJS.ErrnoException).code ?? 'error') };
  }
}
