import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApprovalPrompt } from '../src/approvals';
import { attentionMessage, attentionStep } from '../src/attention';
import { wantsServer } from '../src/serving';
import { Inspected, serveAllFolders } from '../src/settings';

test('serving: every folder by default; with the setting off only where a policy file is in a folder or open', () => {
  const none = { serveAllFolders: false, policyFileInFolder: false, policyDocumentOpen: false };
  assert.equal(wantsServer({ ...none, serveAllFolders: true }), true);
  assert.equal(wantsServer(none), false);
  assert.equal(wantsServer({ ...none, policyFileInFolder: true }), true);
  assert.equal(wantsServer({ ...none, policyDocumentOpen: true }), true);
});

test('codewhale.serveAllFolders: on unless the user turned it off; a workspace value is ignored', () => {
  const reading = (inspected: Inspected<boolean> | undefined) => serveAllFolders(<T>(key: string) => {
    assert.equal(key, 'serveAllFolders');
    return inspected as Inspected<T> | undefined;
  });
  assert.equal(reading(undefined), true);
  assert.equal(reading({ defaultValue: true }), true);
  assert.equal(reading({ defaultValue: true, globalValue: false }), false);
  // A repository's .vscode/settings.json cannot take its approvals away from the person's editor.
  assert.equal(reading({ defaultValue: true, workspaceValue: false, workspaceFolderValue: false }), true);
  assert.equal(reading({ defaultValue: true, globalValue: true, workspaceValue: false }), true);
});

test('attention: told only while a card waits and the window is away; gone when answered or back', () => {
  assert.equal(attentionStep(false, 1, false), 'notify');
  assert.equal(attentionStep(true, 1, false), 'none');
  assert.equal(attentionStep(false, 0, false), 'none');
  assert.equal(attentionStep(false, 2, true), 'update');
  assert.equal(attentionStep(false, 0, true), 'close');
  assert.equal(attentionStep(true, 2, true), 'close');
});

function prompt(extra: Partial<ApprovalPrompt> = {}): ApprovalPrompt {
  return {
    id: 'p1', tool: 'Bash', summary: 'Bash: rm -rf build', reason: 'approval required', layer: 8, workspace: '/ws',
    agent: 'claude-code', choices: [{ id: 'deny', title: 'Deny' }], default: 'deny', deadline: new Date(2030, 0, 2, 14, 5, 31).toISOString(),
    ...extra,
  };
}

test('attention: says who waits, until when, for which tool and how many more, never the input', () => {
  assert.equal(attentionMessage(prompt(), 1), 'Codewhale: Claude Code awaits your answer by 14:05:31 (Bash); it is on the card in this window.');
  assert.equal(attentionMessage(prompt({ agent: 'codex', tool: 'exec_shell' }), 3),
    'Codewhale: Codex awaits your answer by 14:05:31 (exec_shell, 2 more waiting); it is on the card in this window.');
  assert.equal(attentionMessage(prompt({ agent: undefined }), 1).startsWith('Codewhale: An agent in VS Code awaits'), true);
  // The agent chose these names: a link or an escape-laden name is not repeated in a notification.
  const odd = attentionMessage(prompt({ agent: '[Approve](command:x)', tool: 'run[it](command:y)', deadline: 'soon' }), 1);
  assert.equal(odd, 'Codewhale: An agent awaits your answer by its deadline (a tool); it is on the card in this window.');
  assert.doesNotMatch(attentionMessage(prompt(), 1), /rm -rf/);
});
