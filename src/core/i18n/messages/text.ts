import { messages } from '../catalogue.js';

/** core/text's few words: what a history conversion touched, and a token count with its unit. */
export const textText = messages(
  'text',
  {
    savedConversations: (n: number) => `${n} ${n === 1 ? 'saved conversation' : 'saved conversations'}`,
    promptHistory: 'the prompt history',
    and: ' and ',
    tokens: (count: string, one: boolean) => `${count} token${one ? '' : 's'}`,
  },
  {
    savedConversations: (n) => `${n} 个已保存的对话`,
    promptHistory: '输入历史',
    and: '和',
    tokens: (count, _one) => `${count} token`,
  },
);
