// A stand-in for another extension's agent: when its command runs, it reads
// the next tool call from $CODEWHALE_E2E_HARNESS_DIR/call.json, holds it to
// the Codewhale policy through the codewhale.authorize command, exactly as a
// real agent extension would, and writes what came back to
// decision-<callId>.json. It never answers a prompt: the test does that in
// the UI.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');

// writeResult writes through a temporary file and a rename, so the test
// never reads a half-written file.
function writeResult(dir, name, value) {
  const tmp = path.join(dir, `.${name}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(value));
  fs.renameSync(tmp, path.join(dir, name));
}

exports.activate = function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand('codewhaleE2E.authorize', async () => {
    const dir = process.env.CODEWHALE_E2E_HARNESS_DIR;
    if (!dir) {
      throw new Error('CODEWHALE_E2E_HARNESS_DIR is not set');
    }
    const call = JSON.parse(fs.readFileSync(path.join(dir, 'call.json'), 'utf8'));
    const startedAt = Date.now();
    writeResult(dir, `started-${call.callId}.json`, { startedAt });
    let result;
    try {
      const decision = await vscode.commands.executeCommand('codewhale.authorize', call);
      result = { startedAt, finishedAt: Date.now(), decision };
    } catch (err) {
      result = { startedAt, finishedAt: Date.now(), error: String(err && err.message || err) };
    }
    writeResult(dir, `decision-${call.callId}.json`, result);
  }));
};

exports.deactivate = function deactivate() {};
