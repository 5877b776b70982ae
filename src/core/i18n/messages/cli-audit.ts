import { messages } from '../catalogue.js';

/** `medchat audit verify|show|export` (cli/commands/audit.ts). The log's lines themselves stay as written. */
export const cliAuditText = messages(
  'cli-audit',
  {
    noLog: (file: string) => `no audit log at ${file} (none written yet, or removed; to keep one: medchat config set audit on)`,
    andMore: (n: number) => `… and ${n} more`,
    tampered: (file: string, problems: number, lines: number) => `the audit log ${file} has been tampered with or damaged: ${problems} problem${problems === 1 ? '' : 's'} in ${lines} lines (listed above)`,
    intact: (file: string, lines: number, head: string | undefined) => `${file}: ${lines} line${lines === 1 ? '' : 's'}, each chained to the one before; last hash ${head ?? 'none'}`,
    noLogYet: (file: string) => `medchat: no audit log at ${file} yet`,
    noLines: (since: string | undefined) => `medchat: no audit lines${since !== undefined ? ` since ${since}` : ''}`,
    sentRedacted: ' (sent redacted)',
    sentAsTyped: ' (sent as typed)',
  },
  {
    noLog: (file) => `${file} 处没有审计日志（尚未写入或已被删除；如需记录：medchat config set audit on）`,
    andMore: (n) => `… 另有 ${n} 处`,
    tampered: (file, problems, lines) => `审计日志 ${file} 已被篡改或损坏：${lines} 行中有 ${problems} 处问题（见上）`,
    intact: (file, lines, head) => `${file}：共 ${lines} 行，每行都与前一行链接无误；最后的哈希 ${head ?? '无'}`,
    noLogYet: (file) => `medchat: ${file} 处尚无审计日志`,
    noLines: (since) => `medchat: 没有审计记录${since !== undefined ? `（${since} 以来）` : ''}`,
    sentRedacted: '（已脱敏发送）',
    sentAsTyped: '（按原样发送）',
  },
);
