/**
 * `medchat policy [--json]`: the organisation policy in force (core/config/policy.ts): its file,
 * each key it locks with its value and what that means for the user. Only commander is touched
 * until the action runs.
 */
import type { Command } from 'commander';
import type { Policy, PolicyKey } from '../../core/config/policy.js';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';
import { cliPolicyText } from '../../core/i18n/messages/cli-policy.js';

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
        process.stdout.write(`${cliPolicyText.none(file)}\n`);
        return;
      }
      const lines = [cliPolicyText.heading(file)];
      if (locked.length === 0) lines.push(cliPolicyText.locksNothing);
      const width = Math.max(...locked.map((l) => l.key.length));
      const shown = locked.map((l) => (Array.isArray(l.value) ? l.value.join(', ') : typeof l.value === 'boolean' ? (l.value ? cliPolicyText.on : cliPolicyText.off) : String(l.value)));
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
  add('base-url', p.baseUrl, cliPolicyText.baseUrl(p.baseUrl?.length === 1));
  add('model', p.model, cliPolicyText.model(p.model?.length === 1));
  add(
    'privacy',
    p.privacy,
    p.privacy === 'redact'
      ? cliPolicyText.privacyRedact
      : cliPolicyText.privacyWarn,
  );
  add('history', p.history, p.history ? cliPolicyText.historyOn : cliPolicyText.historyOff);
  add('retention-days', p.retentionDays, cliPolicyText.retentionDays(p.retentionDays ?? 0));
  add('encrypt', p.encrypt, p.encrypt ? cliPolicyText.encryptOn : cliPolicyText.encryptOff);
  add('audit', p.audit, p.audit ? cliPolicyText.auditOn : cliPolicyText.auditOff);
  add('audit-dir', p.auditDir, cliPolicyText.auditDir);
  add('disclaimer', p.disclaimer, p.disclaimer ? cliPolicyText.disclaimerOn : cliPolicyText.disclaimerOff);
  add('max-tokens', p.maxTokens, cliPolicyText.maxTokens(p.maxTokens ?? 0));
  add('retexture', p.retexture, p.retexture ? cliPolicyText.retextureOn : cliPolicyText.retextureOff);
  add('api-key-flag', p.apiKeyFlag, p.apiKeyFlag ? cliPolicyText.apiKeyFlagOn : cliPolicyText.apiKeyFlagOff);
  return out;
}
