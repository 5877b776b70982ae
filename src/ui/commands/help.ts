import type { SlashCommand } from './types.js';

export const help: SlashCommand = {
  name: 'help',
  aliases: ['?'],
  help: 'list commands and keys',
  run(chat) {
    const width = Math.max(...chat.commands.map((c) => c.name.length + (c.args ? c.args.length + 1 : 0)));
    const lines = chat.commands.map((c) => `  /${(c.name + (c.args ? ` ${c.args}` : '')).padEnd(width)}  ${c.help}`);
    chat.notice(
      [
        'Commands:',
        ...lines,
        'Keys: Enter send · Ctrl+J, Alt+Enter or \\ then Enter new line · Up/Down earlier prompts · Ctrl+G edit in $EDITOR',
        '      Ctrl+O the whole conversation with its reasoning (q back) · Ctrl+L redraw · Esc or Ctrl+C stop an answer or stop waiting for /retexture · Ctrl+C clear the box, twice to exit · Ctrl+D exit',
        chat.session.persistent
          ? `Saved as session ${chat.session.id}; continue it later with: medchat -c`
          : 'This conversation is not saved (incognito or history off).',
      ].join('\n'),
    );
  },
};
