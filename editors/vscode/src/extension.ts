// The VS Code side: activate registers the commands and decides, with
// serving.ts, whether this window runs codewhale-ls now; the one
// CodewhaleClient (client.ts) then starts it and shows its prompts and
// status. package.json activates the extension for every window once
// VS Code has started (onStartupFinished), so a window's folders serve
// their approvals without slowing VS Code's own start-up.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { CodewhaleClient } from './client';
import { Decision } from './decision';
import { documentSelector, workspacePatterns } from './selector';
import { wantsServer } from './serving';
import { serveAllFolders } from './settings';

/** The client of this activation while a server is wanted, for deactivate. */
let codewhale: CodewhaleClient | undefined;
/** Its start, which commands wait for. */
let started: Promise<CodewhaleClient> | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<{ authorize: (call: unknown) => Promise<Decision> }> {
  const serve = (): Promise<CodewhaleClient> => {
    if (!started) {
      const cw = new CodewhaleClient(context.extensionPath);
      codewhale = cw;
      started = cw.start().then(() => cw);
    }
    return started;
  };
  // A command starts the server whatever the setting says: the person
  // (or an agent extension, codewhale.authorize) asked for it.
  const command = (name: string, run: (cw: CodewhaleClient) => unknown) =>
    vscode.commands.registerCommand(name, async () => run(await serve()));
  context.subscriptions.push(
    command('codewhale.restartServer', (cw) => cw.restart()),
    command('codewhale.explain', (cw) => cw.explain()),
    command('codewhale.showStatus', (cw) => cw.showStatus()),
    command('codewhale.openPermissions', (cw) => cw.openPermissions()),
    command('codewhale.openDecisionLog', (cw) => cw.openDecisionLog()),
    command('codewhale.showOutput', (cw) => cw.showOutput()),
    command('codewhale.statusClicked', (cw) => cw.statusClicked()),
    vscode.commands.registerCommand('codewhale.authorize', async (call: unknown) => (await serve()).authorize(call)),
  );

  const selector = documentSelector(os.homedir(), process.env.CODEWHALE_HOME);
  const allFolders = (): boolean => serveAllFolders(<T>(key: string) => vscode.workspace.getConfiguration('codewhale').inspect<T>(key));
  const policyDocumentOpen = (): boolean => vscode.workspace.textDocuments.some((d) => vscode.languages.match(selector, d) > 0);
  // The same search as the old workspaceContains activation events, in
  // every folder at any depth; only made when the setting is off.
  const policyFileInFolder = async (): Promise<boolean> => {
    for (const pattern of workspacePatterns()) {
      if ((await vscode.workspace.findFiles(pattern, undefined, 1)).length > 0) {
        return true;
      }
    }
    return false;
  };
  // Starts the server when the window now wants one; with turnedOff (the
  // setting just switched off), stops one this window no longer wants.
  const reconsider = async (turnedOff = false): Promise<void> => {
    const all = allFolders();
    const wanted = wantsServer({ serveAllFolders: all, policyDocumentOpen: !all && policyDocumentOpen(), policyFileInFolder: !all && (await policyFileInFolder()) });
    if (wanted) {
      await serve();
    } else if (turnedOff) {
      await deactivate();
    }
  };
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument((doc) => {
      if (!started && vscode.languages.match(selector, doc) > 0) {
        void serve();
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void (started ? undefined : reconsider())),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('codewhale.serveAllFolders')) {
        void reconsider(!allFolders());
      }
    }),
  );
  await reconsider();
  return { authorize: async (call) => (await serve()).authorize(call) };
}

export async function deactivate(): Promise<void> {
  const cw = codewhale;
  codewhale = undefined;
  started = undefined;
  await cw?.dispose();
}
