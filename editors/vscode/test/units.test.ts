import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { clientDeny, Decision, decisionLine, explainMarkdown, finalDecision, grantFollowUp } from '../src/decision';
import { documentSelector, homePatterns, workspacePatterns } from '../src/selector';
import { installCommand, resolveServer } from '../src/serverPath';
import { initializationOptions } from '../src/settings';
import { statusBarText } from '../src/status';

const ext = path.join(path.sep, 'ext');
const bundled = path.join(ext, 'bin', 'codewhale-ls');

test('server: the setting wins, then the bundled binary, then PATH', () => {
  const all = new Set([bundled, '/opt/cw/codewhale-ls', '/usr/bin/codewhale-ls']);
  const lookup = { configured: '/opt/cw/codewhale-ls', extensionPath: ext, platform: 'linux' as const, pathEnv: '/usr/bin', isExecutable: (f: string) => all.has(f) };
  assert.deepEqual(resolveServer(lookup), { command: '/opt/cw/codewhale-ls', source: 'setting' });
  assert.deepEqual(resolveServer({ ...lookup, configured: '  ' }), { command: bundled, source: 'bundled' });
  all.delete(bundled);
  assert.deepEqual(resolveServer({ ...lookup, configured: '' }), { command: '/usr/bin/codewhale-ls', source: 'PATH' });
});

test('server: a wrong setting is an error, never replaced by another binary', () => {
  const lookup = { configured: '/nope/codewhale-ls', extensionPath: ext, platform: 'linux' as const, pathEnv: '/usr/bin', isExecutable: () => false };
  assert.match((resolveServer(lookup) as { error: string }).error, /codewhale.server.path names \/nope\/codewhale-ls, which is not an executable file/);
  const relative = resolveServer({ ...lookup, configured: 'bin/codewhale-ls', isExecutable: () => true });
  assert.match((relative as { error: string }).error, /must be an absolute path/);
});

test('server: relative PATH entries are skipped (they would resolve in the workspace)', () => {
  const lookup = { configured: '', extensionPath: ext, platform: 'linux' as const, pathEnv: ':.:bin:/usr/local/bin', isExecutable: (f: string) => !path.isAbsolute(f) || f === '/usr/local/bin/codewhale-ls' };
  assert.deepEqual(resolveServer(lookup), { command: '/usr/local/bin/codewhale-ls', source: 'PATH' });
});

test('server: nothing found says how to install it', () => {
  const r = resolveServer({ configured: '', extensionPath: ext, platform: 'win32', pathEnv: 'C:\\bin', isExecutable: () => false });
  assert.ok('error' in r && r.error.includes(installCommand));
});

test('server: the Windows binary ends in .exe and PATH splits on ;', () => {
  // POSIX-style absolute directories, so the test means the same on every host.
  const want = path.join('/tools', 'codewhale-ls.exe');
  const r = resolveServer({ configured: '', extensionPath: ext, platform: 'win32', pathEnv: '/other;/tools', isExecutable: (f) => f === want || f === '/tools/codewhale-ls' });
  assert.deepEqual(r, { command: want, source: 'PATH' });
  const bundledExe = path.join(ext, 'bin', 'codewhale-ls.exe');
  assert.deepEqual(resolveServer({ configured: '', extensionPath: ext, platform: 'win32', pathEnv: '', isExecutable: (f) => f === bundledExe }), { command: bundledExe, source: 'bundled' });
});

test('selector: by path only, never by language, for workspace and home files', () => {
  const sel = documentSelector('/home/u', '/srv/cwhome');
  for (const entry of sel) {
    assert.deepEqual(Object.keys(entry).sort(), ['pattern', 'scheme']);
    assert.equal(entry.scheme, 'file');
  }
  assert.deepEqual(workspacePatterns(), [
    '**/.codewhale/{config.toml,permissions.toml,hooks.toml,constitution.json}',
    '**/.deepseek/{config.toml,permissions.toml,hooks.toml,constitution.json}',
  ]);
  assert.deepEqual(homePatterns('/home/u', '/srv/cwhome'), [
    '/home/u/.codewhale/{config.toml,permissions.toml}',
    '/home/u/.deepseek/{config.toml,permissions.toml}',
    '/srv/cwhome/{config.toml,permissions.toml}',
  ]);
  assert.deepEqual(homePatterns('/home/u', '~/.codewhale'), homePatterns('/home/u', undefined));
  assert.deepEqual(homePatterns('/home/u', ''), homePatterns('/home/u', undefined));
});

test('initializationOptions: approvals by codewhale/approve, the timeout and the log', () => {
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 300, decisionLog: '' }), { approvals: 'codewhale', approvalTimeoutSeconds: 300 });
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 0, decisionLog: 'off' }), { approvals: 'codewhale', decisionLog: false });
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 2.5, decisionLog: ' /tmp/d.jsonl ' }), { approvals: 'codewhale', decisionLog: '/tmp/d.jsonl' });
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 0, decisionLog: '', codewhaleVersion: ' 0.10.1 ' }), { approvals: 'codewhale', codewhaleVersion: '0.10.1' });
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 0, decisionLog: '', codewhaleVersion: '' }), { approvals: 'codewhale' });
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 0, decisionLog: '', hardening: true }), { approvals: 'codewhale' });
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 0, decisionLog: '', hardening: false }), { approvals: 'codewhale', hardening: false });
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 0, decisionLog: '', logInputs: true }), { approvals: 'codewhale' });
  assert.deepEqual(initializationOptions({ approvalTimeoutSeconds: 0, decisionLog: '', logInputs: false }), { approvals: 'codewhale', logInputs: false });
});

const allowed: Decision = {
  decision: 'allow', layer: 8, layerName: 'approval', reason: 'approved', rule: null, callId: 'c1',
  trace: [{ layer: 1, name: 'posture', effect: 'none', detail: 'ask | from config.toml' }], approval: { choice: 'always', source: 'prompt' },
  input: { command: 'cargo test' },
};

test('authorize fails closed: anything but a final allow or deny is a deny with a reason', () => {
  for (const bad of [null, 'allow', { decision: 'ask', reason: 'x', trace: [] }, { decision: 'allow' }, { decision: 'allow', reason: 'x', trace: 'no' }]) {
    const d = finalDecision(bad, { callId: 'c9' });
    assert.equal(d.decision, 'deny');
    assert.equal(d.callId, 'c9');
    assert.match(d.reason, /not a final decision/);
  }
  assert.equal(finalDecision(allowed, {}), allowed);
  assert.deepEqual(clientDeny('no server', 'not an object'), { decision: 'deny', layer: 0, layerName: 'client', reason: 'no server', rule: null, callId: null, trace: [], approval: null });
});

test('decision log line and explain page', () => {
  assert.equal(decisionLine(allowed), 'ALLOW at layer 8 approval (approval: always/prompt) "cargo test": approved');
  const md = explainMarkdown('bash', 'cargo `test`', allowed);
  assert.match(md, /^# bash: `cargo 'test'`$/m);
  assert.match(md, /^\| 1 \| posture \| none \| ask \\\| from config\\\.toml \|$/m);
});

test('after "always": a clean buffer reloads itself, unsaved edits are never overwritten', () => {
  assert.equal(grantFollowUp(allowed, true, false), 'reloads-itself');
  assert.equal(grantFollowUp(allowed, true, true), 'warn-unsaved');
  assert.equal(grantFollowUp(allowed, false, false), 'none');
  assert.equal(grantFollowUp({ ...allowed, approval: { choice: 'once', source: 'prompt' } }, true, true), 'none');
});

test('status bar: posture, sandbox, waiting count highlighted', () => {
  const status = { version: '0.1', configPath: '', permissionsPath: '', workspace: '/ws', posture: 'ask', sandbox: { type: 'workspace-write' }, pendingApprovals: 0, files: [] };
  assert.deepEqual(statusBarText(status, 0).attention, false);
  assert.equal(statusBarText(status, 0).text, '$(shield) ws: ask · workspace-write');
  const waiting = statusBarText(status, 2);
  assert.equal(waiting.text, '$(shield) ws: ask · workspace-write $(bell-dot) 2 waiting');
  assert.equal(waiting.attention, true);
  assert.equal(statusBarText(undefined, 0, 'not found').attention, true);
  assert.equal(statusBarText(status, 2, undefined, ['codex', 'cursor']).text, '$(shield) ws: ask · workspace-write $(bell-dot) 2 waiting (codex, cursor)');
});
