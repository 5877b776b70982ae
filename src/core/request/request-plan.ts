/**
 * The one way a request is put together, for every mode (one-shot, the chat screen's /role,
 * batch): role → system prompt → files → stdin → question, the settings a role or a schema
 * changes, and what to do with the answer (with a schema: take the JSON out, validate it, and
 * say what to ask for a repair). The first step of the question pipeline (core/ask).
 *
 *   const planner = await makePlanner({ settings, role, schema, system, given });  // once
 *   const plan = planner.plan({ prompt, stdin, files });                            // per question
 *   … ask(plan.question) with plan.settings (core/ask); then plan.finish(answer) …
 *
 * Precedence for thinking, max tokens and temperature: what the command line set (`given`), then
 * the role's, then (thinking only) off for a schema, then the settings as resolved. The API key
 * in use is masked in every text of the plan (a file or a prompt that holds it is sent without
 * it), and a schema that holds it is refused (schema/source.ts).
 */
import path from 'node:path';
import type { WireMessage } from '../chat/chat-request.js';
import { composeQuestion } from './inputs/blocks.js';
import type { InputFile } from './inputs/files.js';
import type { Role } from './roles/role.js';
import { loadRole } from './roles/store.js';
import { redactSecrets, usageError } from '../errors.js';
import { checkAnswer } from './schema/check.js';
import { repairRequest, schemaInstruction } from './schema/prompt.js';
import { resolveSchemaSpec } from './schema/source.js';
import { compileSchema, type CompiledSchema } from './schema/validate.js';
import type { Settings } from '../config/settings.js';
import { activePolicy, announceLock } from '../config/policy.js';
import { requestText } from '../i18n/messages/request.js';

interface PlanCommon {
  settings: Settings;
  /** Settings the command line set explicitly: these win over a role and over a schema. */
  given?: { thinking?: boolean; maxTokens?: boolean; temperature?: boolean };
  role?: Role;
  /** `--schema`: a JSON Schema file, JSON text or inline fields; wins over the role's schema. */
  schema?: string;
  schemaMulti?: boolean;
  /** `-s/--system`: added after the role's system prompt. */
  system?: string;
  /** Where a role's schema file is looked up (default: beside the role file, else the cwd). */
  roleDir?: string;
  /** medchat's config file, never taken as a schema (default: the config folder's). */
  configFile?: string;
}

interface PlanItem {
  prompt?: string;
  stdin?: string;
  files?: readonly InputFile[];
  /** A batch item's own messages, instead of prompt, stdin and files. Its system messages join the system prompt. */
  messages?: readonly WireMessage[];
  /** A batch item's own system prompt (after the role's and -s). */
  system?: string;
}

/** What became of an answer. `content` is what to print: the answer, or with a schema the validated JSON (compact). */
export type Finished =
  | { ok: true; content: string; value?: unknown; raw: string }
  | { ok: false; content: string; errors: string[]; raw: string };

export interface RequestPlan {
  /** The whole system prompt (role, -s, the item's, the schema instruction), or undefined. */
  system?: string;
  /** The item's own parts of the system prompt (a batch line's "system" and system messages): its data, checked like the question. */
  itemSystem: string[];
  /** The system prompt with the item's parts replaced by these (as the privacy guard sent them). */
  systemWith(itemSystem: readonly string[]): string | undefined;
  /** The question: the user message built from files, stdin and prompt, or an item's last user message. */
  question: string;
  /** An item's earlier exchanges (a batch line's "messages" before its question), oldest first. */
  earlier: Array<{ user: string; answer: string }>;
  /** Everything to send for a fresh question. */
  messages: WireMessage[];
  settings: Settings;
  schema?: CompiledSchema;
  files: readonly InputFile[];
  /** Check an answer (with no schema, every answer is fine as it is). */
  finish(answer: string): Finished;
  /** The follow-up user message asking once for a corrected answer (only for a failed schema check). */
  repairRequest(failed: Extract<Finished, { ok: false }>): string;
}

export interface Planner {
  settings: Settings;
  role?: Role;
  schema?: CompiledSchema;
  /** role + -s + schema instruction: the system prompt before any item's own. */
  system?: string;
  plan(item: PlanItem): RequestPlan;
}

/** A role's max-tokens, at most the organisation policy's ceiling (said once when it is lowered). */
function roleMaxTokens(role: Role | undefined): number | undefined {
  const ceiling = activePolicy().maxTokens;
  if (role?.maxTokens === undefined || ceiling === undefined || role.maxTokens <= ceiling) return role?.maxTokens;
  announceLock('max-tokens', requestText.maxTokensCeiling(ceiling));
  return ceiling;
}

export async function makePlanner(common: PlanCommon): Promise<Planner> {
  const { role, given = {} } = common;
  const schemaText = common.schema ?? role?.schema;
  let schema: CompiledSchema | undefined;
  if (schemaText !== undefined) {
    const fromRole = common.schema === undefined;
    const what = fromRole ? `role ${role!.name}: schema` : '--schema';
    const baseDir = fromRole ? (common.roleDir ?? (role!.file ? path.dirname(role!.file) : undefined)) : undefined;
    const spec = resolveSchemaSpec(schemaText, { multi: fromRole ? role!.schemaMulti : common.schemaMulti, baseDir, what, configFile: common.configFile });
    schema = await compileSchema(spec, what);
  }
  const s = common.settings;
  const settings: Settings = {
    ...s,
    maxTokens: given.maxTokens ? s.maxTokens : (roleMaxTokens(role) ?? s.maxTokens),
    temperature: given.temperature ? s.temperature : (role?.temperature ?? s.temperature),
    thinking: given.thinking ? s.thinking : (role?.thinking ?? (schema ? false : s.thinking)),
  };
  const baseParts = [role?.system, common.system].map((p) => p && redactSecrets(p));
  const tail = schema ? schemaInstruction(schema.spec) : undefined;
  const join = (parts: Array<string | undefined>) => {
    const kept = parts.filter((p): p is string => Boolean(p?.trim()));
    return kept.length ? kept.join('\n\n') : undefined;
  };
  const finish = (answer: string): Finished => {
    if (!schema) return { ok: true, content: answer, raw: answer };
    const c = checkAnswer(schema, answer);
    return c.ok ? { ok: true, content: JSON.stringify(c.value), value: c.value, raw: answer } : { ok: false, content: answer, errors: c.errors, raw: answer };
  };
  return {
    settings,
    role,
    schema,
    system: join([...baseParts, tail]),
    plan(item) {
      const fromItem = (item.messages ?? []).filter((m) => m.role === 'system').map((m) => m.content);
      const itemSystem = [item.system, ...fromItem].filter((p): p is string => Boolean(p?.trim())).map(redactSecrets);
      const systemWith = (parts: readonly string[]) => join([...baseParts, ...parts, tail]);
      const system = systemWith(itemSystem);
      const files = item.files ?? [];
      const { earlier, question } = item.messages ? exchanges(item.messages) : { earlier: [], question: composeQuestion({ files, stdin: item.stdin, prompt: item.prompt }) };
      const masked = redactSecrets(question);
      const rest: WireMessage[] = [...earlier.flatMap((e): WireMessage[] => [{ role: 'user', content: e.user }, { role: 'assistant', content: e.answer }]), { role: 'user', content: masked }];
      return {
        system,
        itemSystem,
        systemWith,
        question: masked,
        earlier,
        messages: [...(system ? [{ role: 'system' as const, content: system }] : []), ...rest],
        settings,
        schema,
        files,
        finish,
        repairRequest: (failed) => repairRequest(failed.errors),
      };
    },
  };
}

/**
 * An item's messages (system messages aside) as the conversation medchat keeps: exchanges of a
 * user message and the answer to it, then the question. Messages of one role in a row are one
 * message (joined by a blank line), as a conversation takes turns.
 */
function exchanges(messages: readonly WireMessage[]): { earlier: Array<{ user: string; answer: string }>; question: string } {
  const turns: Array<{ role: WireMessage['role']; content: string }> = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const content = redactSecrets(m.content);
    const last = turns.at(-1);
    if (last?.role === m.role) last.content += `\n\n${content}`;
    else turns.push({ role: m.role, content });
  }
  const question = turns.pop()?.content ?? '';
  const earlier: Array<{ user: string; answer: string }> = [];
  for (let i = 0; i + 1 < turns.length; i += 2) earlier.push({ user: turns[i]!.content, answer: turns[i + 1]!.content });
  return { earlier, question };
}

/** The flags every mode shares for planning (one-shot and the chat screen's command line, batch). */
interface PlanFlags {
  role?: string;
  schema?: string;
  schemaMulti?: boolean;
  system?: string;
  think?: boolean;
  maxTokens?: string;
  temperature?: string;
}

/**
 * The planner for these flags: the role loaded first (from `rolesFolder`, default the config
 * folder's: an unknown role is the first thing said), then the settings, what the command line
 * set winning over the role; `--schema-multi` only with `--schema`.
 */
export async function plannerForFlags(o: PlanFlags, settings: () => Settings, where: { rolesFolder?: string; configFile?: string } = {}): Promise<{ planner: Planner; role: Role | undefined }> {
  if (o.schemaMulti && o.schema === undefined) throw usageError(requestText.schemaMultiNeedsSchema);
  const role = o.role !== undefined ? loadRole(o.role, where.rolesFolder) : undefined;
  const planner = await makePlanner({
    settings: settings(),
    given: { thinking: o.think !== undefined, maxTokens: o.maxTokens !== undefined, temperature: o.temperature !== undefined },
    role,
    schema: o.schema,
    schemaMulti: o.schemaMulti,
    system: o.system,
    configFile: where.configFile,
  });
  return { planner, role };
}
