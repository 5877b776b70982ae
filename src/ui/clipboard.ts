import { spawnSync } from 'node:child_process';

/**
 * Copy text: OSC 52 (works over SSH and in most terminals; inside tmux it is wrapped for passthrough)
 * plus the platform's clipboard tool when one is installed. Returns how it was done.
 */
export function osc52(text: string, env: NodeJS.ProcessEnv = process.env): string {
  const seq = `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
  return env.TMUX ? `\x1bPtmux;${seq.replace(/\x1b/g, '\x1b\x1b')}\x1b\\` : seq;
}

const TOOLS: Array<[string, string[]]> =
  process.platform === 'darwin'
    ? [['pbcopy', []]]
    : process.platform === 'win32'
      ? [['clip', []]]
      : [
          ['wl-copy', []],
          ['xclip', ['-selection', 'clipboard']],
          ['xsel', ['--clipboard', '--input']],
        ];

export function copyWithTool(text: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.MEDCHAT_NO_CLIPBOARD_TOOL) return undefined;
  for (const [cmd, args] of TOOLS) {
    if (cmd === 'wl-copy' && !env.WAYLAND_DISPLAY) continue;
    if (cmd.startsWith('x') && !env.DISPLAY) continue;
    const r = spawnSync(cmd, args, { input: text, stdio: ['pipe', 'ignore', 'ignore'], timeout: 3000 });
    if (!r.error && r.status === 0) return cmd;
  }
  return undefined;
}
