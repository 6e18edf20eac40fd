// The server's failures in words (serverFailure.ts) and the settings a
// workspace cannot choose (settings.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { binaryTarget, FailureContext, failureText, shouldRestart, stderrGist } from '../src/serverFailure';
import { needsRestart, startSettings, userOnly, userValue } from '../src/settings';
import { statusBarText } from '../src/status';

function elf(machine: number): Uint8Array {
  const b = new Uint8Array(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  b[18] = machine & 0xff;
  b[19] = machine >> 8;
  return b;
}

const base: FailureContext = {
  command: '/ext/bin/codewhale-ls', source: 'bundled', platform: 'linux', arch: 'x64', header: elf(0x3e),
  exit: undefined, crashes: 0, neverStarted: true,
};

test('a wrong-platform build is named, with the .vsix that fixes it', () => {
  assert.equal(binaryTarget(elf(0xb7)), 'linux-arm64');
  assert.equal(binaryTarget(new Uint8Array([0x4d, 0x5a, 0, 0, 0, 0, 0, 0])), 'win32');
  assert.equal(binaryTarget(new Uint8Array([0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0, 0, 0x01])), 'darwin-arm64');
  assert.equal(binaryTarget(new TextEncoder().encode('#!/bin/sh\nexit 1\n')), 'script');
  assert.equal(binaryTarget(new TextEncoder().encode('not a program at all')), 'unknown');
  const text = failureText({ ...base, header: elf(0xb7), exit: { code: 2, signal: null, stderr: 'write EPIPE' } });
  assert.match(text, /is a build for linux-arm64, and this machine is linux-x64/);
  assert.match(text, /Reinstall the Codewhale extension for linux-x64 \(its \.vsix is codewhale-linux-x64\.vsix\)/);
  assert.doesNotMatch(text, /EPIPE/);
  assert.match(failureText({ ...base, header: new TextEncoder().encode('garbage bytes here') }), /is not a program at all/);
  assert.match(failureText({ ...base, source: 'setting', command: '/x', header: elf(0xb7) }), /Fix codewhale\.server\.path/);
});

test('a server that exits at start says its exit code and its own words, not the stack trace', () => {
  const stderr = 'codewhale-ls: cannot read /etc/x: permission denied\npanic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n';
  assert.equal(stderrGist(stderr), 'codewhale-ls: cannot read /etc/x: permission denied / panic: boom / main.main()');
  const text = failureText({ ...base, header: new TextEncoder().encode('#!/bin/sh\n'), exit: { code: 3, signal: null, stderr } });
  assert.match(text, /^codewhale-ls \(\/ext\/bin\/codewhale-ls, bundled with the extension\) exited with code 3 before it started\. It said: “codewhale-ls: cannot read/);
  assert.match(failureText({ ...base, exit: { code: null, signal: null, spawnError: 'EACCES', stderr: '' } }), /not executable \(permission denied\)\. Make it executable \(chmod \+x/);
  const loop = failureText({ ...base, neverStarted: false, crashes: 5, exit: { code: 1, signal: null, stderr: '' } });
  assert.match(loop, /exited with code 1, the 5th time in a row, and is not restarted again\. It wrote nothing to stderr\. Run Codewhale: Restart server/);
});

test('restarts stop at five exits in three minutes', () => {
  assert.ok(shouldRestart([0, 1, 2, 3]));
  assert.ok(!shouldRestart([0, 1, 2, 3, 4]));
  assert.ok(shouldRestart([0, 1, 2, 3, 200_000]));
});

test('the status bar says a failure in words', () => {
  const view = statusBarText(undefined, 0, 'codewhale-ls exited with code 3 before it started.');
  assert.match(view.text, /^\$\(error\) Codewhale: server failed$/);
  assert.match(view.tooltip, /exited with code 3[\s\S]*Click for the actions/);
});

test('user-only settings ignore a workspace or folder value; only a change that matters restarts', () => {
  const inspected = { defaultValue: '', globalValue: undefined, workspaceValue: '/repo/evil', workspaceFolderValue: '/repo/evil2' };
  assert.equal(userValue(inspected, ''), '');
  assert.equal(userValue({ ...inspected, globalValue: '/usr/bin/codewhale-ls' }, ''), '/usr/bin/codewhale-ls');
  const values: Record<string, unknown> = {
    'server.path': { defaultValue: '', workspaceValue: '/repo/bin/codewhale-ls' },
    codewhaleVersion: { defaultValue: '', globalValue: '0.10.1', workspaceValue: '0.9.10' },
    decisionLog: { defaultValue: '', workspaceFolderValue: '/home/u/.bashrc' },
    // A repository must not turn the hardening layer off.
    hardening: { defaultValue: true, workspaceValue: false, workspaceFolderValue: false },
    // Nor make a log its user keeps free of commands record them.
    logInputs: { defaultValue: true, globalValue: false, workspaceValue: true },
  };
  const inspect = <T>(key: string) => values[key] as { defaultValue?: T } | undefined;
  const s = startSettings(inspect, 300);
  assert.deepEqual(s, { serverPath: '', codewhaleVersion: '0.10.1', decisionLog: '', logInputs: false, hardening: true, approvalTimeoutSeconds: 300 });
  assert.ok(!needsRestart(s, startSettings(inspect, 300)), 'nothing that counts changed');
  assert.ok(needsRestart(s, { ...s, codewhaleVersion: '0.10.0' }));
  assert.ok(needsRestart(s, { ...s, approvalTimeoutSeconds: 60 }));
  assert.ok(needsRestart(s, { ...s, hardening: false }));
  assert.ok(needsRestart(s, { ...s, logInputs: true }));
  assert.ok(needsRestart(undefined, s));
});

test('package.json gives every user-only setting a scope no workspace can set, and lists it as restricted', () => {
  // Run from the extension's folder (npm test, editors/vscode_test.go).
  const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { scope?: string }> } };
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[]; description: string } };
  };
  for (const key of userOnly) {
    const name = `codewhale.${key}`;
    assert.ok(['machine', 'application'].includes(manifest.contributes.configuration.properties[name]?.scope ?? ''), `${name}'s scope`);
    assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(name), `${name} restricted`);
    assert.ok(manifest.capabilities.untrustedWorkspaces.description.includes(name), `${name} in the description`);
  }
});

test('the status bar names the folder; with more folders, each one\'s posture is in the tooltip', () => {
  const status = { version: '1', configPath: '', permissionsPath: '', workspace: '/w/alpha', posture: 'suggest', sandbox: 'workspace-write', pendingApprovals: 0, files: [] };
  assert.match(statusBarText(status, 0, undefined, [], [{ path: '/w/alpha' }]).text, /^\$\(shield\) alpha: suggest · workspace-write$/);
  const beta = { ...status, workspace: '/w/beta', posture: 'never', sandbox: { type: 'read-only' } };
  const multi = statusBarText(status, 0, undefined, [], [{ path: '/w/alpha' }, { path: '/w/beta', status: beta }, { path: '/w/gamma' }]);
  assert.match(multi.text, /alpha: suggest · workspace-write \(\+2 folders\)/);
  assert.match(multi.tooltip, /alpha: posture suggest, sandbox workspace-write; beta: posture never, sandbox read-only; gamma: status unknown/);
});
