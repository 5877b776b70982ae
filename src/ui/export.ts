import fs from 'node:fs';
import path from 'node:path';
import type { Conversation } from '../core/conversation.js';
import { MedchatError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import type { FileOps } from '../core/io/file-ops.js';
import { writeUserFile } from '../core/io/user-file.js';

/** `/export`: the conversation as Markdown (readable) or JSON (everything, including reasoning and usage). */
export function defaultExportName(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `medchat-${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}.md`;
}

export function conversationToMarkdown(c: Conversation, model: string): string {
  const out = [`# medchat conversation`, '', `Model: ${model} · exported ${new Date().toISOString()}`, ''];
  if (c.system) out.push('## System', '', c.system, '');
  for (const t of c.turns) {
    out.push('## You', '', t.user, '');
    if (t.reasoning) out.push('<details><summary>Reasoning</summary>', '', t.reasoning.trim(), '', '</details>', '');
    out.push('## medchat', '', t.answer || '_(no answer)_', '');
    if (t.status !== 'complete') out.push(`_${t.status}${t.error ? `: ${t.error}` : ''}_`, '');
  }
  return out.join('\n');
}

export function conversationToJson(c: Conversation, model: string): string {
  return JSON.stringify(
    {
      model,
      exported: new Date().toISOString(),
      system: c.system ?? null,
      turns: c.turns.map((t) => ({
        user: t.user,
        reasoning: t.reasoning,
        answer: t.answer,
        status: t.status,
        error: t.error ?? null,
        usage: t.usage ?? null,
        first_token_ms: t.firstTokenMs ?? null,
        duration_ms: t.durationMs ?? null,
      })),
    },
    null,
    2,
  );
}

/**
 * Writes the file (0600: conversations can hold health details; atomically; never through a
 * symbolic link) and returns its absolute path.
 */
export function exportConversation(c: Conversation, model: string, file: string | undefined, cwd = process.cwd(), ops?: FileOps): string {
  const target = path.resolve(cwd, file?.trim() || defaultExportName());
  const json = /\.json$/i.test(target);
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
  } catch (err) {
    throw new MedchatError(`cannot create the folder ${path.dirname(target)} (${(err as NodeJS.ErrnoException).code ?? 'error'}); choose another path`, ExitCode.usage, 'usage');
  }
  writeUserFile(target, json ? conversationToJson(c, model) + '\n' : conversationToMarkdown(c, model), ops);
  return target;
}
