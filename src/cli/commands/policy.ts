/**
 * `medchat policy [--json]`: the organisation policy in force (core/config/policy.ts): its file,
 * each key it locks with its value and what that means for the user. Only commander is touched
 * until the action runs.
 */
import type { Command } from 'commander';
import type { Policy, PolicyKey } from '../../core/config/policy.js';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

export function registerPolicy(program: Command): void {
  program
    .command('policy')
    .description(cliHelpText.policy)
    .option('--json', cliHelpText.policyJson)
    .addHelpText(
      'after',
      cliHelpText.policyAfter,
    )
    .action(async (o: { json?: boolean }) => {
      const { activePolicy, policyFile } = await import('../../core/config/policy.js');
      const policy = activePolicy();
      const locked = describePolicy(policy);
      const file = policy.file ?? policyFile();
      if (o.json) {
        process.stdout.write(JSON.stringify({ file, present: policy.file !== undefined, locked }, undefined, 2) + '\n');
        return;
      }
      if (policy.file === undefined) {
        process.stdout.write(`no organisation policy (${file} does not exist): every setting is yours (medchat config list)\n`);
        return;
      }
      const lines = [`organisation policy: ${file}`];
      if (locked.length === 0) lines.push('  (it locks nothing)');
      const width = Math.max(...locked.map((l) => l.key.length));
      const shown = locked.map((l) => (Array.isArray(l.value) ? l.value.join(', ') : typeof l.value === 'boolean' ? (l.value ? 'on' : 'off') : String(l.value)));
      const valueWidth = Math.min(40, Math.max(...shown.map((s) => s.length)));
      locked.forEach((l, i) => lines.push(`  ${l.key.padEnd(width)}  ${shown[i]!.padEnd(valueWidth)}  ${l.meaning}`));
      process.stdout.write(lines.join('\n') + '\n');
    });
}

interface Locked {
  key: PolicyKey;
  value: string | number | boolean | string[];
  meaning: string;
}

/** Each key the policy sets, in the README's order, with what it means for the user. */
function describePolicy(p: Policy): Locked[] {
  const out: Locked[] = [];
  const add = (key: PolicyKey, value: Locked['value'] | undefined, meaning: string) => {
    if (value !== undefined) out.push({ key, value, meaning });
  };
  add('base-url', p.baseUrl, `medchat talks only to ${p.baseUrl?.length === 1 ? 'this service' : 'these services (the first unless you choose)'}; any other (--base-url, MEDCHAT_BASE_URL, config) is refused`);
  add('model', p.model, `only ${p.model?.length === 1 ? 'this model' : 'these models (the first unless you choose)'}; any other is refused`);
  add(
    'privacy',
    p.privacy,
    p.privacy === 'redact'
      ? 'patient identifiers are always replaced by placeholders before sending; --privacy warn or off is refused'
      : 'patient identifiers are always at least listed before sending (warn or redact); --privacy off is refused',
  );
  add('history', p.history, p.history ? 'every conversation is saved; --incognito is refused' : 'nothing is saved on disk (as with --incognito); -c and --resume are refused');
  add('retention-days', p.retentionDays, `saved conversations are kept at most ${p.retentionDays} days; a longer retention-days is lowered to it`);
  add('encrypt', p.encrypt, p.encrypt ? 'saved conversations and prompt history are encrypted; it cannot be turned off' : 'not required: your choice (medchat config set encrypt on)');
  add('audit', p.audit, p.audit ? 'every question and image job is recorded in the audit log (never any patient text); it cannot be turned off' : 'not required: your choice (medchat config set audit on)');
  add('audit-dir', p.auditDir, 'the audit log is written in this folder');
  add('disclaimer', p.disclaimer, p.disclaimer ? 'the medical disclaimer is always shown' : 'the medical disclaimer is not shown');
  add('max-tokens', p.maxTokens, `an answer may use at most ${p.maxTokens} tokens; a larger --max-tokens is refused, a larger config value lowered`);
  add('retexture', p.retexture, p.retexture ? 'image jobs are allowed' : 'image jobs are off: medchat retexture, medchat task and /retexture are refused');
  add('api-key-flag', p.apiKeyFlag, p.apiKeyFlag ? '--api-key is allowed (with its warning)' : '--api-key is refused: give the key with MEDCHAT_API_KEY or medchat config set api-key');
  return out;
}
