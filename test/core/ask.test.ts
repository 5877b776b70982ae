// The question pipeline (core/ask) against the double: the schema repair loop (checked, repaired
// once with the errors quoted, never more, nothing checked when no answer arrived), the one status
// rule, and the guard's seal (what it replaced, and each word of a name, replaced wherever it
// appears again).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ask, openPrivacy, type Answer, type AskEvent } from '../../src/core/ask/ask.js';
import { schemaStep } from '../../src/core/ask/repair.js';
import { endedStatus } from '../../src/core/context/conversation.js';
import { PrivacyGuard, guardOutgoing } from '../../src/core/privacy/guard.js';
import { makePlanner } from '../../src/core/request/request-plan.js';
import { ChatSession } from '../../src/core/sessions/chat-session.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { testSettings } from '../support/settings.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

async function schemaPlan() {
  return (await makePlanner({ settings: testSettings(double.url), schema: 'name, dose_mg number' })).plan({ prompt: 'the dose?' });
}

/** Ask `question` with `plan` on a fresh in-memory session; every event, the last one's answer, and the messages each request sent. */
async function asked(plan: Awaited<ReturnType<typeof schemaPlan>>, scripts: Array<Record<string, unknown>>) {
  double.chat.enqueue(...scripts);
  const from = double.chat.requests.length;
  const session = ChatSession.open(plan.settings, { system: plan.system, incognito: true });
  const events: AskEvent[] = [];
  const answer: Answer = await ask({ session, question: plan.question, plan, stream: false }, (e) => void events.push(e));
  return { events, answer, sent: double.chat.requests.slice(from).map((r) => r.body.messages as Array<{ role: string; content: string }>) };
}

test('the repair rule: a valid answer is kept; an invalid first one is asked for again with its errors; the second is kept whatever it is', async () => {
  const plan = await schemaPlan();
  assert.deepEqual(schemaStep(plan, '{"name": "x", "dose_mg": 5}', 1), { done: true, finished: { ok: true, content: '{"name":"x","dose_mg":5}', value: { name: 'x', dose_mg: 5 }, raw: '{"name": "x", "dose_mg": 5}' } });
  const first = schemaStep(plan, '{"name": "x", "dose_mg": "five"}', 1);
  assert.equal(first.done, false);
  assert.deepEqual(!first.done && first.errors, ['/dose_mg: must be number']);
  assert.match(!first.done ? first.request : '', /Validation errors:\n- \/dose_mg: must be number\n/);
  const second = schemaStep(plan, 'still not json', 2);
  assert.equal(second.done, true, 'never a second repair');
  assert.equal(second.finished.ok, false);
});

test('the repair loop: an invalid first answer, one follow-up turn quoting the errors, the second answer checked and returned', async () => {
  const plan = await schemaPlan();
  const r = await asked(plan, [{ reasoning: [], content: ['{"name": "x", "dose_mg": "five"}'] }, { reasoning: [], content: ['```json\n{"name": "x", "dose_mg": 5}\n```'] }]);
  assert.deepEqual(r.events.filter((e) => e.type === 'repair'), [{ type: 'repair', errors: ['/dose_mg: must be number'] }]);
  assert.equal(r.sent.length, 2);
  assert.deepEqual(r.sent[1]!.slice(0, -1), [...plan.messages, { role: 'assistant', content: '{"name": "x", "dose_mg": "five"}' }], 'a follow-up turn: the first answer stays');
  assert.match(r.sent[1]!.at(-1)!.content, /Validation errors:\n- \/dose_mg: must be number\n/);
  assert.equal(r.answer.attempts, 2);
  assert.deepEqual(r.answer.finished, { ok: true, content: '{"name":"x","dose_mg":5}', value: { name: 'x', dose_mg: 5 }, raw: '```json\n{"name": "x", "dose_mg": 5}\n```' });
  const usages = r.events.flatMap((e) => (e.type === 'usage' ? [e.usage] : []));
  assert.equal(usages.length, 2);
  assert.equal(r.answer.usage?.prompt_tokens, usages[0]!.prompt_tokens + usages[1]!.prompt_tokens, 'usage is summed over both requests');
  assert.equal(r.answer.error, undefined);
});

test('the repair loop: invalid twice is one repair, never more; a failed first request is not checked', async () => {
  const plan = await schemaPlan();
  const twice = await asked(plan, [{ reasoning: [], content: ['no'] }, { reasoning: [], content: ['{"name": 5}'] }]);
  assert.equal(twice.sent.length, 2);
  assert.equal(twice.answer.finished?.ok, false);
  assert.equal(twice.answer.finished?.raw, '{"name": 5}');
  const failed = await asked(plan, [{ status: 400, body: JSON.stringify({ error: { message: 'bad request' } }) }]);
  assert.equal(failed.sent.length, 1);
  assert.equal(failed.answer.finished, undefined);
  assert.equal(failed.answer.error?.kind, 'rejected');
  assert.equal(failed.answer.turn.status, 'failed');
});

test('one status rule: stopped is interrupted; cut short or ended early (reasoning alone included) is incomplete; anything else failed', async () => {
  assert.equal(endedStatus('interrupted'), 'interrupted');
  assert.equal(endedStatus('incomplete'), 'incomplete');
  for (const kind of ['network', 'timeout', 'auth', 'too-long', 'malformed']) assert.equal(endedStatus(kind), 'failed');
  const plan = (await makePlanner({ settings: testSettings(double.url) })).plan({ prompt: 'why?' });
  const r = await asked(plan as Awaited<ReturnType<typeof schemaPlan>>, [{ reasoning: ['Thinking it over'], content: [] }]);
  assert.equal(r.answer.turn.status, 'incomplete');
  assert.equal(r.answer.reasoning, 'Thinking it over');
  assert.equal(r.answer.answered, true, 'the service ended its answer (early)');
});

test('the seal: what the guard replaced, and each word of a name, is replaced wherever it appears again, and nothing new is looked for', () => {
  const guard = new PrivacyGuard();
  assert.equal(guard.seal('Margaret Ellison'), 'Margaret Ellison', 'nothing replaced yet: nothing to seal');
  assert.equal(guardOutgoing('Patient: Margaret Ellison, MRN K4471902.', 'redact', guard).text, 'Patient: [NAME-1], MRN [MRN-1].');
  assert.equal(guardOutgoing('Margaret says she is tired.', 'redact', guard).text, '[NAME-2] says she is tired.', 'a word of a name replaced earlier');
  assert.equal(guard.seal('The patient is MARGARET ELLISON (k4471902); Ellison is 73. Dr Okafor.'), 'The patient is [NAME-1] ([MRN-1]); [NAME-3] is 73. Dr Okafor.');
  assert.equal(guard.restore('[NAME-2] and [NAME-3]').text, 'Margaret and Ellison');
});

test('the conversation\'s guard is loaded only when it has work to do', async () => {
  assert.equal(await openPrivacy(undefined, []), undefined);
  assert.equal(await openPrivacy({ mode: 'off' }, []), undefined);
  assert.equal((await openPrivacy({ mode: 'redact' }, []))?.mode, 'redact');
});
