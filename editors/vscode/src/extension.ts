// The VS Code side: activate makes the one CodewhaleClient (client.ts),
// which starts codewhale-ls and shows its prompts and status, and
// registers the commands on it.
import * as vscode from 'vscode';
import { CodewhaleClient } from './client';
import { Decision } from './decision';

/** The client of this activation, for deactivate. */
let codewhale: CodewhaleClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<{ authorize: (call: unknown) => Promise<Decision> }> {
  const cw = new CodewhaleClient(context.extensionPath);
  codewhale = cw;
  context.subscriptions.push(cw);
  context.subscriptions.push(
    vscode.commands.registerCommand('codewhale.restartServer', () => cw.restart()),
    vscode.commands.registerCommand('codewhale.explain', () => cw.explain()),
    vscode.commands.registerCommand('codewhale.showStatus', () => cw.showStatus()),
    vscode.commands.registerCommand('codewhale.openPermissions', () => cw.openPermissions()),
    vscode.commands.registerCommand('codewhale.openDecisionLog', () => cw.openDecisionLog()),
    vscode.commands.registerCommand('codewhale.showOutput', () => cw.showOutput()),
    vscode.commands.registerCommand('codewhale.statusClicked', () => cw.statusClicked()),
    vscode.commands.registerCommand('codewhale.authorize', (call: unknown) => cw.authorize(call)),
  );
  await cw.start();
  return { authorize: (call) => cw.authorize(call) };
}

export async function deactivate(): Promise<void> {
  const cw = codewhale;
  codewhale = undefined;
  await cw?.stop();
}
