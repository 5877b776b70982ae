import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { Settings } from '../config/settings.js';

export type Role = 'system' | 'user' | 'assistant';

/** A message as the service sees it: role and content, nothing else. */
export interface WireMessage {
  role: Role;
  content: string;
}

type StreamingBody = ChatCompletionCreateParamsStreaming & { enable_thinking?: boolean };
type NonStreamingBody = ChatCompletionCreateParamsNonStreaming & { enable_thinking?: boolean };

export type RequestOptions = Pick<Settings, 'model' | 'maxTokens' | 'thinking' | 'temperature' | 'topP'>;

/**
 * The exact request body. Only the keys the service documents: model, messages, max_tokens,
 * temperature, top_p, stream, enable_thinking. Messages are cut down to role and content, so
 * reasoning or display-only fields can never leak back to the service.
 */
export function buildChatBody(opts: RequestOptions, messages: readonly WireMessage[], stream: true): StreamingBody;
export function buildChatBody(opts: RequestOptions, messages: readonly WireMessage[], stream: false): NonStreamingBody;
export function buildChatBody(opts: RequestOptions, messages: readonly WireMessage[], stream: boolean): StreamingBody | NonStreamingBody {
  const body: Record<string, unknown> = {
    model: opts.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    max_tokens: opts.maxTokens,
  };
  if (opts.temperature !== undefined) body.temperature = opts.temperature;
  if (opts.topP !== undefined) body.top_p = opts.topP;
  body.stream = stream;
  body.enable_thinking = opts.thinking;
  return body as unknown as StreamingBody | NonStreamingBody;
}
