import path from 'node:path';
import type { WireMessage } from './chat-request.js';
import { refuseFilesThatCannotFit } from './inputs/fit.js';
import { composeQuestion } from './inputs/blocks.js';
import type { InputFile } from './inputs/files.js';
import type { Role } from './roles/role.js';
import { loadRole } from './roles/store.js';
import { usageError } from './errors.js';
import { checkAnswer } from './schema/check.js';
import { repairRequest, schemaInstruction } from './schema/prompt.js';
import { resolveSchemaSpec } from './schema/source.js';
import { compileSchema, type CompiledSchema } from './schema/validate.js';
import type { Settings } from './settings.js';

/**
 * The one way a request is put together, for every mode (one-shot, the chat screen's /role,
 * batch): role → system prompt → files → stdin → question, the settings a role or a schema
 * changes, and what to do with the answer (with a schema: take the JSON out, validate it, and
 * say what to ask for a repair).
 *
 *   const planner = await makePlanner({ settings, role, schema, system, given });  // once
 *   const plan = planner.plan({ prompt, stdin, files });                            // per question
 *   … send plan.messages with plan.settings; then plan.finish(answer) …
 *
 * Precedence for thinking, max tokens and temperature: what the command line set (`given`), then
 * the role's, then (thinking only) off for a schema, then the settings as resolved.
 */
export interface PlanCommon {
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
}

export interface PlanItem {
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
  /** The user message built from files, stdin and prompt ('' for an item given as messages). */
  userText: string;
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

export async function makePlanner(common: PlanCommon): Promise<Planner> {
  const { role, given = {} } = common;
  const schemaText = common.schema ?? role?.schema;
  let schema: CompiledSchema | undefined;
  if (schemaText !== undefined) {
    const fromRole = common.schema === undefined;
    const what = fromRole ? `role ${role!.name}: schema` : '--schema';
    const baseDir = fromRole ? (common.roleDir ?? (role!.file ? path.dirname(role!.file) : undefined)) : undefined;
    const spec = resolveSchemaSpec(schemaText, { multi: fromRole ? role!.schemaMulti : common.schemaMulti, baseDir, what });
    schema = await compileSchema(spec, what);
  }
  const s = common.settings;
  const settings: Settings = {
    ...s,
    maxTokens: given.maxTokens ? s.maxTokens : (role?.maxTokens ?? s.maxTokens),
    temperature: given.temperature ? s.temperature : (role?.temperature ?? s.temperature),
    thinking: given.thinking ? s.thinking : (role?.thinking ?? (schema ? false : s.thinking)),
  };
  const baseParts = [role?.system, common.system];
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
      const system = join([...baseParts, item.system, ...fromItem, tail]);
      const files = item.files ?? [];
      const userText = item.messages ? '' : composeQuestion({ files, stdin: item.stdin, prompt: item.prompt });
      const rest: WireMessage[] = item.messages ? item.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })) : [{ role: 'user', content: userText }];
      return {
        system,
        userText,
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

/** makePlanner + plan, and files that cannot fit the window refused (before anything is sent). */
export async function preparePlan(input: PlanCommon & PlanItem): Promise<RequestPlan> {
  const plan = (await makePlanner(input)).plan(input);
  await refuseFilesThatCannotFit(plan.messages, plan.files, plan.settings);
  return plan;
}

/**
 * Ask, check, and when a schema check fails ask once more with the errors quoted (as a follow-up
 * turn: the first answer stays in the messages). `send` makes one request and returns the answer
 * text. For callers without a conversation of their own (batch).
 */
export async function completeWithRepair(
  plan: RequestPlan,
  send: (messages: WireMessage[]) => Promise<string>,
): Promise<{ finished: Finished; answers: string[] }> {
  const first = await send(plan.messages);
  const finished = plan.finish(first);
  if (finished.ok || !plan.schema) return { finished, answers: [first] };
  const followUp: WireMessage[] = [...plan.messages, { role: 'assistant', content: first }, { role: 'user', content: plan.repairRequest(finished) }];
  const second = await send(followUp);
  return { finished: plan.finish(second), answers: [first, second] };
}

/** The flags every mode shares for planning (one-shot and the chat screen's command line, batch). */
export interface PlanFlags {
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
export async function plannerForFlags(o: PlanFlags, settings: () => Settings, rolesFolder?: string): Promise<{ planner: Planner; role: Role | undefined }> {
  if (o.schemaMulti && o.schema === undefined) throw usageError("--schema-multi goes with --schema 'name, dose_mg number'");
  const role = o.role !== undefined ? loadRole(o.role, rolesFolder) : undefined;
  const planner = await makePlanner({
    settings: settings(),
    given: { thinking: o.think !== undefined, maxTokens: o.maxTokens !== undefined, temperature: o.temperature !== undefined },
    role,
    schema: o.schema,
    schemaMulti: o.schemaMulti,
    system: o.system,
  });
  return { planner, role };
}
