import { messages } from '../catalogue.js';

export const errorsText = messages(
  'errors',
  {
    invalidBaseUrl: 'the base URL is not a valid URL; fix it with: medchat config set base-url https://…',
    unexpectedFailure: 'unexpected failure',
    unexpected: (what: string) => `unexpected error: ${what}`,
  },
  {
    invalidBaseUrl: '服务地址不是有效的 URL；修正方法：medchat config set base-url https://…',
    unexpectedFailure: '意外故障',
    unexpected: (what) => `意外错误：${what}`,
  },
);
