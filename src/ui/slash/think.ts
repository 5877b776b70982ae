import type { SlashCommand } from './types.js';

export const think: SlashCommand = {
  name: 'think',
  args: 'on|off',
  help: 'ask the model to reason first, or answer directly (faster)',
  run(chat, args) {
    const a = args.toLowerCase();
    const on = a === '' ? !chat.settings.thinking : a === 'on' || a === 'true' || a === 'yes' ? true : a === 'off' || a === 'false' || a === 'no' ? false : undefined;
    if (on === undefined) return chat.notice('usage: /think on|off', 'warn');
    chat.setThinking(on);
    chat.notice(on ? 'thinking on: answers start with reasoning' : 'thinking off: answers start sooner, without reasoning');
  },
};
