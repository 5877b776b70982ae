import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { usageError } from '../../core/errors.js';
import { writeUserFile } from '../../core/io/user-file.js';
import { BUILTIN_ROLES } from '../../core/request/roles/builtins.js';
import { ROLE_NAME, RoleFileError, parseRole } from '../../core/request/roles/role.js';
import { listRoles, readRoleFile, rolesDir } from '../../core/request/roles/store.js';
import { jsonForTerminal, sanitizeForTerminal, sanitizeLine } from '../../core/text/sanitize.js';
import { isTty } from '../../core/io/terminal.js';
import { cliRolesText } from '../../core/i18n/messages/cli-roles.js';
import { cliText } from '../../core/i18n/messages/cli.js';
import { padToCells } from '../../core/text/width.js';

/** Role files are the user's own text: exact on a pipe, sanitised on a terminal. */
const print = (text: string) => process.stdout.write(isTty(process.stdout) ? sanitizeForTerminal(text) : text);

export function rolesList(o: { json?: boolean }): number {
  const entries = listRoles();
  if (o.json) {
    const rows = entries.map((e) => ({
      name: e.name,
      source: e.source,
      replaces_built_in: e.replacesBuiltIn,
      description: e.role?.description ?? '',
      file: e.file ?? null,
      thinking: e.role?.thinking ?? null,
      max_tokens: e.role?.maxTokens ?? null,
      temperature: e.role?.temperature ?? null,
      schema: Boolean(e.role?.schema),
      problem: e.problem ?? null,
    }));
    print(jsonForTerminal(rows, 2) + '\n');
    return 0;
  }
  const width = Math.max(...entries.map((e) => e.name.length));
  for (const e of entries) {
    const source = e.source === 'built-in' ? cliRolesText.builtIn : e.replacesBuiltIn ? cliRolesText.yoursReplacing : cliRolesText.yours;
    const about = e.problem ? cliRolesText.cannotBeUsed(e.problem) : (e.role?.description ?? '');
    print(`${e.name.padEnd(width)}  ${padToCells(source, 8)}  ${sanitizeLine(about)}\n`);
  }
  if (entries.some((e) => e.replacesBuiltIn)) process.stderr.write(`${cliRolesText.replacesBuiltIn}\n`);
  return 0;
}

export function rolesShow(name: string): number {
  const file = userFile(name);
  if (fs.existsSync(file)) {
    const text = readRoleFile(file);
    print(text.endsWith('\n') ? text : text + '\n');
    const problem = problemIn(name, text, file);
    if (problem) process.stderr.write(`${cliText.warning(sanitizeLine(problem))}\n`);
    return 0;
  }
  if (Object.hasOwn(BUILTIN_ROLES, name)) {
    print(BUILTIN_ROLES[name]!);
    return 0;
  }
  throw noSuchRole(name);
}

export function rolesPath(): number {
  process.stdout.write(rolesDir() + '\n');
  return 0;
}

/** A new role starts from this. */
function roleTemplate(name: string): string {
  // i18n-exempt: the role file's template, a system prompt sent to the model
  return `---
description: ${name}: what this role does, in one line
# thinking: on
# max-tokens: 4096
# temperature: 0.3
# schema: name, dose_mg number, route
---
You are a clinical assistant. Describe here what the model should do with the text it is given, what to keep exactly as written, and what to do when information is missing.
`;
}

export function rolesEdit(name: string): number {
  const file = userFile(name);
  const kind = fileKind(file);
  if (kind !== 'file' && kind !== 'none') throw usageError(cliRolesText.notAFile(name, file, kind));
  if (kind === 'none') {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      const why = code === 'EEXIST' || code === 'ENOTDIR' ? cliRolesText.pathTaken : cliRolesText.systemRefused(code);
      throw usageError(cliRolesText.cannotMakeFolder(path.dirname(file), why));
    }
    const builtIn = Object.hasOwn(BUILTIN_ROLES, name);
    writeUserFile(file, builtIn ? BUILTIN_ROLES[name]! : roleTemplate(name));
    process.stderr.write(`${builtIn ? cliRolesText.copied(name, file) : cliRolesText.fromTemplate(name, file)}\n`);
  }
  if (!isTty(process.stdin) || !isTty(process.stdout)) {
    // No terminal to edit in: say where the file is, for the caller's own editor.
    process.stdout.write(file + '\n');
    return 0;
  }
  const editor = process.env.VISUAL || process.env.EDITOR || (process.platform === 'win32' ? 'notepad' : 'vi');
  const r =
    process.platform === 'win32'
      ? spawnSync(editor, [file], { stdio: 'inherit', shell: true })
      : spawnSync(process.env.SHELL || '/bin/sh', ['-c', `${editor} "$1"`, 'medchat-editor', file], { stdio: 'inherit' });
  if (r.error || r.status !== 0) throw usageError(cliRolesText.editorFailed(editor, file));
  const problem = problemIn(name, readRoleFile(file), file);
  if (problem) throw usageError(cliRolesText.fixWith(problem, name));
  process.stderr.write(`${cliRolesText.saved(file)}\n`);
  return 0;
}

/** What is at a role file's path: 'none', 'file' (a regular file, or a link to one) or what else it is. */
function fileKind(file: string): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'none'; // a link to nothing is refused when written; a taken folder name when it is made
    throw usageError(cliRolesText.cannotLook(file, String(code)));
  }
  if (st.isFile()) return 'file';
  return st.isDirectory() ? cliRolesText.aFolder : cliRolesText.notRegular;
}

function userFile(name: string): string {
  if (!ROLE_NAME.test(name)) throw usageError(cliRolesText.badName(name));
  return path.join(rolesDir(), `${name}.md`);
}

function problemIn(name: string, text: string, file: string): string | undefined {
  try {
    parseRole(name, text, 'user', file);
    return undefined;
  } catch (err) {
    if (err instanceof RoleFileError) return `${file}: ${err.message}`;
    throw err;
  }
}

function noSuchRole(name: string) {
  return usageError(cliRolesText.noSuchRole(name, listRoles().map((e) => e.name).join(', ')));
}
