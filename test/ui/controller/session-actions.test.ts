import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SessionStore } from '../../../src/core/sessions/store.js';
import { SessionActions } from '../../../src/ui/controller/session-actions.js';
import { testSettings } from '../../support/settings.js';

// The session actions alone (no screen, no service): new, resume, retry, system, think, max-tokens.

function withStore(fn: (store: SessionStore) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-actions-'));
  try {
    fn(new SessionStore(path.join(dir, 'sessions')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const settings = () => testSettings('http://127.0.0.1:9', { history: true });

test('/new keeps the system prompt and settings; /resume switches back; resuming the open one says so', () => {
  withStore((store) => {
    const errors: string[] = [];
    const a = new SessionActions(settings(), { store, onSaveError: (e) => errors.push(e.message) }, { system: 'Be brief.' });
    a.session.ask('first question');
    const firstId = a.session.id;
    a.setThinking(false);
    a.setMaxTokens(512);
    a.startNew();
    assert.notEqual(a.session.id, firstId);
    assert.equal(a.conversation.turns.length, 0);
    assert.equal(a.conversation.system, 'Be brief.');
    assert.match(a.newConversationLine(), new RegExp(`new conversation \\(session ${a.session.id}\\)`));
    assert.equal(a.session.settings.thinking, false, 'the new session shares the settings');
    assert.equal(a.session.settings.maxTokens, 512);
    assert.equal(a.resume(firstId), true);
    assert.equal(a.conversation.turns[0]?.user, 'first question');
    assert.equal(a.resume(firstId), false, 'already open');
    const items = a.resumedItems();
    assert.match(items[0]!.kind === 'notice' ? items[0]!.text : '', new RegExp(`resumed session ${firstId}`));
    assert.ok(items.some((i) => i.kind === 'user' && i.text === 'first question'));
    assert.match(a.sessionsText(), /Recent sessions/);
    assert.deepEqual(errors, []);
  });
});

test('/retry takes the last question off the conversation; /system sets, then removes, the system prompt', () => {
  withStore((store) => {
    const a = new SessionActions(settings(), { store, onSaveError: () => {} }, {});
    assert.equal(a.takeLastQuestion(), undefined, 'nothing to retry');
    a.session.ask('is aspirin safe?');
    assert.equal(a.takeLastQuestion(), 'is aspirin safe?');
    assert.equal(a.conversation.turns.length, 0);
    a.setSystem('Answer as a nurse.');
    assert.equal(a.conversation.system, 'Answer as a nurse.');
    a.setSystem('  ');
    assert.equal(a.conversation.system, undefined);
    assert.match(a.tokensText(''), /system prompt +\d/);
  });
});
