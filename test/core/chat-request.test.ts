import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildChatBody } from '../../src/core/chat/chat-request.js';

const base = { model: 'medical-large-latest', maxTokens: 8192, thinking: true };

test('the body holds only the documented keys, with enable_thinking at the top level', () => {
  const body = buildChatBody({ ...base, temperature: 0.3, topP: 0.9 }, [{ role: 'user', content: 'hi' }], true);
  assert.deepEqual(Object.keys(body).sort(), ['enable_thinking', 'max_tokens', 'messages', 'model', 'stream', 'temperature', 'top_p']);
  assert.equal(body.enable_thinking, true);
  assert.equal(body.max_tokens, 8192);
  assert.equal(body.stream, true);
});

test('temperature and top_p are left out when unset, so the service defaults hold', () => {
  const body = buildChatBody(base, [{ role: 'user', content: 'hi' }], false);
  assert.deepEqual(Object.keys(body).sort(), ['enable_thinking', 'max_tokens', 'messages', 'model', 'stream']);
  assert.equal(body.stream, false);
});

test('thinking off is sent as enable_thinking: false', () => {
  const body = buildChatBody({ ...base, thinking: false }, [{ role: 'user', content: 'hi' }], true);
  assert.equal(body.enable_thinking, false);
});

test('messages carry role and content only: reasoning and display fields never leak', () => {
  const leaky = [
    { role: 'user' as const, content: 'q' },
    { role: 'assistant' as const, content: 'a', reasoning: 'secret thoughts', reasoning_content: 'x', status: 'complete' },
  ];
  const body = buildChatBody(base, leaky, true);
  assert.deepEqual(body.messages, [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: 'a' },
  ]);
});
