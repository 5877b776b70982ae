import { messages } from '../catalogue.js';

const cap = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}`;

/** What the context window refuses and how a compaction is described (notes that a session keeps, in the language they were made in). */
export const contextText = messages(
  'context',
  {
    nothingToSend: 'nothing to send',
    noRoom: (maxTokens: number, window: string) => `max-tokens ${maxTokens} leaves no room for a question in the ${window} context window; lower --max-tokens`,
    conversationTooLong: (prompt: string, answer: string, window: string) =>
      `the conversation does not fit: about ${prompt} prompt tokens + ${answer} for the answer > the ${window} window; start a new conversation or lower --max-tokens`,
    messageTooLong: (withSystem: boolean, tokens: string, window: string, budget: string, answer: string) =>
      `${withSystem ? 'this message with the system prompt' : 'this message'} is too long for the model: about ${tokens} tokens, but the ${window} window leaves ${budget} for the prompt after ${answer} for the answer; shorten it or lower --max-tokens`,
    summaryUnsafe: (reason: string) => `${cap(reason)}; nothing was changed: the earlier messages are still sent word for word`,
    summarisingFailed: (why: string) => `summarising failed (${why})`,
    summaryNotShorterStrict: 'the summary came back no shorter than the messages it would replace',
    summaryNotShorter: 'the summary was not shorter',
    // checked-summary.ts: why a summary cannot replace the messages
    summaryCutOff: 'the summary was cut off (finish_reason length)',
    summaryFiltered: 'the summary was withheld by the content filter',
    summaryNoFinish: 'the summary came back without a finish_reason, so it may be cut off',
    summaryEndedWith: (finish: string) => `the summary ended with finish_reason ${finish}`,
    summaryEmpty: 'the summary came back empty',
    summaryLeftOut: (facts: string) => `the summary left out ${facts}`,
    askAgainFailed: (first: string, why: string) => `${first}, and asking again failed (${why})`,
    twice: (first: string) => `${first}, twice`,
    thenAlso: (first: string, second: string) => `${first}, then ${second.replace(/^the summary /, '')}`,
    exchangeTooLong: 'one exchange is too long to summarise within the window',
    // compaction.ts
    summarised: (messages: number, before: string, after: string) => `Summarised ${messages} earlier ${messages === 1 ? 'message' : 'messages'} (${before} → ${after} tokens)`,
    secondTry: (line: string, firstTry: string) => `${line} on a second try: the first ${firstTry.replace(/^the summary /, '')}`,
    stillQuoted: (list: string) => `; the lines stating ${list} are still sent word for word`,
    dropped: (messages: number, before: string, quoted: string) => `Dropped ${messages} earlier ${messages === 1 ? 'message' : 'messages'} (${before} tokens) to fit the context window${quoted}`,
    droppedInstead: (reason: string, messages: number, before: string, quoted: string) =>
      `${cap(reason)}; dropped ${messages} earlier ${messages === 1 ? 'message' : 'messages'} instead (${before} tokens)${quoted}`,
    listSeparator: ', ',
    andMore: (list: string, more: number) => `${list} and ${more} more`,
  },
  {
    nothingToSend: '没有可发送的内容',
    noRoom: (maxTokens, window) => `max-tokens ${maxTokens} 占满了 ${window} 上下文窗口，没有留给问题的空间；请调低 --max-tokens`,
    conversationTooLong: (prompt, answer, window) =>
      `对话超出窗口：约 ${prompt} 个提示 token + 回答预留 ${answer} > ${window} 窗口；请开始新的对话，或调低 --max-tokens`,
    messageTooLong: (withSystem, tokens, window, budget, answer) =>
      `${withSystem ? '这条消息（连同系统提示词）' : '这条消息'}对模型来说太长：约 ${tokens} 个 token，而 ${window} 窗口在为回答预留 ${answer} 后，只剩 ${budget} 给提示；请缩短内容，或调低 --max-tokens`,
    summaryUnsafe: (reason) => `${reason}；未做任何更改：较早的消息仍按原文发送`,
    summarisingFailed: (why) => `汇总失败（${why}）`,
    summaryNotShorterStrict: '摘要并不比它要替换的消息短',
    summaryNotShorter: '摘要没有更短',
    summaryCutOff: '摘要被截断（finish_reason length）',
    summaryFiltered: '摘要被内容过滤器拦截',
    summaryNoFinish: '摘要返回时没有 finish_reason，可能被截断',
    summaryEndedWith: (finish) => `摘要以 finish_reason ${finish} 结束`,
    summaryEmpty: '摘要返回为空',
    summaryLeftOut: (facts) => `摘要遗漏了 ${facts}`,
    askAgainFailed: (first, why) => `${first}，且重试失败（${why}）`,
    twice: (first) => `${first}，两次都是如此`,
    thenAlso: (first, second) => `${first}，随后${second.replace(/^摘要/, '')}`,
    exchangeTooLong: '单轮对话过长，无法在上下文窗口内汇总',
    summarised: (messages, before, after) => `已汇总 ${messages} 条较早的消息（${before} → ${after} token）`,
    secondTry: (line, firstTry) => `${line}，第二次尝试才成功：第一次${firstTry.replace(/^摘要/, '')}`,
    stillQuoted: (list) => `；陈述 ${list} 的内容仍按原文发送`,
    dropped: (messages, before, quoted) => `已删去 ${messages} 条较早的消息（${before} token），以容纳在上下文窗口内${quoted}`,
    droppedInstead: (reason, messages, before, quoted) => `${reason}；改为删去 ${messages} 条较早的消息（${before} token）${quoted}`,
    listSeparator: '、',
    andMore: (list, more) => `${list} 等（另有 ${more} 项）`,
  },
);
