// The VS Code side: starts codewhale-ls, shows its prompts and status.
// Everything that decides something lives in the vscode-free modules
// beside this one, which have unit tests.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, State, TransportKind } from 'vscode-languageclient/node';
import { approvalHtml, panelTitle, QueueCount } from './approvalHtml';
import { ApprovalAnswer, ApprovalPrompt, ApprovalQueue, panelUpdate } from './approvals';
import { clientDeny, Decision, decisionLine, explainMarkdown, finalDecision, grantFollowUp } from './decision';
import { documentSelector } from './selector';
import { resolveServer } from './serverPath';
import { initializationOptions } from './settings';
import { ServerStatus, statusBarText, statusMarkdown } from './status';

let client: LanguageClient | undefined;
let log: vscode.LogOutputChannel;
let queue: ApprovalQueue;
let statusItem: vscode.StatusBarItem;
let lastStatus: ServerStatus | undefined;
let startProblem: string | undefined;
let panel: vscode.WebviewPanel | undefined;
/** The prompt id the panel shows; a close while it shows denies it. */
let shownPromptId: string | undefined;
/** The count of prompts behind the shown one that the panel's webview.html says. */
let htmlBehind = 0;
let extensionContext: vscode.ExtensionContext;

export async function activate(context: vscode.ExtensionContext): Promise<{ authorize: (call: unknown) => Promise<Decision> }> {
  log = vscode.window.createOutputChannel('Codewhale', { log: true });
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  statusItem.command = 'codewhale.showStatus';
  queue = new ApprovalQueue(() => {
    showApprovals();
    updateStatusBar();
  });
  context.subscriptions.push(log, statusItem, { dispose: () => queue.dispose() });
  context.subscriptions.push(
    vscode.commands.registerCommand('codewhale.restartServer', restartServer),
    vscode.commands.registerCommand('codewhale.explain', explainCommand),
    vscode.commands.registerCommand('codewhale.showStatus', showStatus),
    vscode.commands.registerCommand('codewhale.openPermissions', openPermissions),
    vscode.commands.registerCommand('codewhale.openDecisionLog', () => log.show(true)),
    vscode.commands.registerCommand('codewhale.authorize', authorize),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('codewhale')) {
        void restartServer();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restartServer()),
    // A saved policy file may change the posture or sandbox shown.
    vscode.workspace.onDidSaveTextDocument(() => void refreshStatus()),
  );
  statusItem.show();
  updateStatusBar();
  await startServer(context);
  context.subscriptions.push({ dispose: () => void client?.stop() });
  return { authorize };
}

export async function deactivate(): Promise<void> {
  queue?.dispose();
  await client?.stop();
  client = undefined;
}

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * A .vsix may lose the bundled binary's execute bit on the way (zip
 * modes are not kept by every installer): restore it, as nothing else
 * would.
 */
function restoreExecuteBit(extensionPath: string): void {
  if (process.platform === 'win32') {
    return;
  }
  const bundled = path.join(extensionPath, 'bin', 'codewhale-ls');
  try {
    if (fs.lstatSync(bundled).isFile() && !isExecutable(bundled)) {
      fs.chmodSync(bundled, 0o755);
    }
  } catch {
    // No bundled binary: resolveServer looks elsewhere.
  }
}

async function startServer(context: vscode.ExtensionContext): Promise<void> {
  extensionContext = context;
  restoreExecuteBit(context.extensionPath);
  const config = vscode.workspace.getConfiguration('codewhale');
  // codewhale.server.path and codewhale.decisionLog are restricted
  // configurations (package.json): in an untrusted workspace VS Code
  // returns only the user's own value, never one the repository sets.
  const choice = resolveServer({
    configured: config.get<string>('server.path', ''),
    extensionPath: context.extensionPath,
    platform: process.platform,
    pathEnv: process.env.PATH ?? '',
    isExecutable,
  });
  if ('error' in choice) {
    startProblem = choice.error;
    log.error(choice.error);
    updateStatusBar();
    void vscode.window.showErrorMessage(choice.error, 'Copy install command').then((picked) => {
      if (picked) {
        void vscode.env.clipboard.writeText('go install github.com/codewhale-ls/codewhale-ls/cmd/codewhale-ls@latest');
      }
    });
    return;
  }
  startProblem = undefined;
  log.info(`starting ${choice.command} serve (${choice.source})`);
  const serverOptions: ServerOptions = { command: choice.command, args: ['serve'], transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(os.homedir(), process.env.CODEWHALE_HOME),
    initializationOptions: initializationOptions({
      approvalTimeoutSeconds: config.get<number>('approvalTimeoutSeconds', 300),
      decisionLog: config.get<string>('decisionLog', ''),
      codewhaleVersion: config.get<string>('codewhaleVersion', ''),
    }),
    outputChannel: log,
    traceOutputChannel: log,
  };
  client = new LanguageClient('codewhale', 'Codewhale', serverOptions, clientOptions);
  client.onRequest('codewhale/approve', (prompt: ApprovalPrompt, token: vscode.CancellationToken) =>
    new Promise<ApprovalAnswer>((resolve) => {
      queue.add(prompt, resolve);
      token.onCancellationRequested(() => queue.withdraw(prompt.id));
      if (!vscode.window.state.focused) {
        void vscode.window.showWarningMessage(`Codewhale approval waiting: ${prompt.summary}`, 'Show').then((picked) => {
          if (picked) {
            panel?.reveal();
          }
        });
      }
    }));
  client.onNotification('codewhale/approvalWithdrawn', (params: { id: string; reason: string }) => {
    if (queue.withdraw(params.id)) {
      log.info(`approval ${params.id} withdrawn by the server (${params.reason})`);
    }
  });
  client.onNotification('codewhale/decision', (d: Decision) => {
    log.info(decisionLine(d));
    void afterDecision(d);
  });
  client.onDidChangeState((e) => {
    if (e.newState === State.Stopped) {
      // Prompts of a server that is gone cannot be answered.
      queue.dispose();
      lastStatus = undefined;
      updateStatusBar();
    } else if (e.newState === State.Running) {
      // Also after the client restarted a server that crashed.
      void refreshStatus();
    }
  });
  try {
    await client.start();
    await refreshStatus();
  } catch (err) {
    startProblem = `codewhale-ls did not start: ${String(err)}`;
    log.error(startProblem);
    updateStatusBar();
  }
}

/** The restart under way, if any: restarts run one at a time. */
let restarting: Promise<void> = Promise.resolve();

/**
 * Restarts run one after another (the command, a setting change and a
 * trust grant can come together): each stops the client current at its
 * turn, so no server is left running unreferenced.
 */
function restartServer(): Promise<void> {
  restarting = restarting.catch(() => undefined).then(async () => {
    const old = client;
    client = undefined;
    queue.dispose();
    await old?.stop().catch((err: unknown) => log.warn(`stopping codewhale-ls: ${String(err)}`));
    await startServer(extensionContext);
  });
  return restarting;
}

async function refreshStatus(): Promise<ServerStatus | undefined> {
  if (!client || !client.isRunning()) {
    return undefined;
  }
  try {
    lastStatus = await client.sendRequest<ServerStatus>('codewhale/status');
  } catch (err) {
    log.warn(`codewhale/status: ${String(err)}`);
  }
  updateStatusBar();
  return lastStatus;
}

function updateStatusBar(): void {
  const view = statusBarText(lastStatus, queue.size(), startProblem, queue.askedBy());
  statusItem.text = view.text;
  statusItem.tooltip = view.tooltip;
  statusItem.backgroundColor = view.attention ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
}

/**
 * Shows the oldest waiting prompt in the panel, or closes the panel; when
 * only the number of prompts behind it changed, updates that line alone
 * (panelUpdate says which).
 */
function showApprovals(): void {
  const state = { shownId: panel ? shownPromptId : undefined, htmlBehind, visible: panel?.visible ?? false };
  const update = panelUpdate(state, queue.current(), queue.size());
  switch (update.kind) {
    case 'close': {
      shownPromptId = undefined;
      const open = panel;
      panel = undefined;
      open?.dispose();
      return;
    }
    case 'count':
      void panel?.webview.postMessage({ behind: update.behind } satisfies QueueCount);
      return;
    case 'page': {
      const shown = panel ?? createApprovalPanel();
      shownPromptId = update.prompt.id;
      htmlBehind = update.behind;
      shown.webview.html = approvalHtml({
        prompt: update.prompt,
        behind: update.behind,
        nonce: crypto.randomBytes(16).toString('base64'),
        cspSource: shown.webview.cspSource,
        nowMs: Date.now(),
      });
      if (update.reveal) {
        shown.reveal(undefined, false);
      }
      return;
    }
    case 'none':
      return;
  }
}

function createApprovalPanel(): vscode.WebviewPanel {
  const own = vscode.window.createWebviewPanel('codewhale.approval', panelTitle, { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
    enableScripts: true,
    localResourceRoots: [],
  });
  panel = own;
  own.webview.onDidReceiveMessage((message: { id?: unknown; choice?: unknown }) => {
    if (typeof message.id === 'string') {
      queue.answer(message.id, typeof message.choice === 'string' ? message.choice : null);
    }
  });
  // A hidden panel's page is reloaded from webview.html when it shows
  // again: bring the html up to date with the count it missed.
  own.onDidChangeViewState(() => {
    if (panel === own) {
      showApprovals();
    }
  });
  own.onDidDispose(() => {
    if (panel === own) {
      // The user closed the panel: that denies the prompt it showed.
      panel = undefined;
      const closed = shownPromptId;
      shownPromptId = undefined;
      if (closed) {
        queue.answer(closed, null);
      }
    }
  });
  return own;
}

async function afterDecision(d: Decision): Promise<void> {
  // The posture or the files may have changed since the last look.
  const status = await refreshStatus();
  if (d.approval?.choice !== 'always') {
    return;
  }
  const target = status?.permissionsPath;
  const doc = target ? vscode.workspace.textDocuments.find((t) => t.uri.scheme === 'file' && t.uri.fsPath === target) : undefined;
  if (grantFollowUp(d, doc !== undefined, doc?.isDirty ?? false) !== 'warn-unsaved' || !doc) {
    return;
  }
  const picked = await vscode.window.showWarningMessage(
    `"Always allow" added a rule to ${target} on disk. Your unsaved edits to it were kept, not overwritten: compare them with the file on disk before saving.`,
    'Compare with disk',
  );
  if (picked) {
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.files.action.compareWithSaved');
  }
}

/** codewhale.authorize: for other extensions; always resolves to a final Decision. */
async function authorize(call: unknown): Promise<Decision> {
  try {
    if (!vscode.workspace.isTrusted) {
      return clientDeny('this workspace is not trusted: codewhale.authorize denies every call in it', call);
    }
    if (!client || !client.isRunning()) {
      return clientDeny(startProblem ?? 'codewhale-ls is not running', call);
    }
    return finalDecision(await client.sendRequest('codewhale/authorize', call), call);
  } catch (err) {
    return clientDeny(`codewhale/authorize failed: ${err instanceof Error ? err.message : String(err)}`, call);
  }
}

function firstFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}

async function showMarkdown(content: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content });
  await vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, () => vscode.window.showTextDocument(doc));
}

async function explainCommand(): Promise<void> {
  if (!client || !client.isRunning()) {
    void vscode.window.showErrorMessage(startProblem ?? 'codewhale-ls is not running');
    return;
  }
  const tool = await vscode.window.showInputBox({ title: 'Codewhale: explain a tool call', prompt: 'Tool name, as the agent calls it', value: 'bash' });
  if (!tool) {
    return;
  }
  const command = await vscode.window.showInputBox({ title: 'Codewhale: explain a tool call', prompt: `The ${tool} call's command`, placeHolder: 'git push origin main' });
  if (command === undefined) {
    return;
  }
  const request: Record<string, unknown> = { tool, input: { command } };
  const workspace = firstFolder();
  if (workspace) {
    request.workspace = workspace;
  }
  try {
    const d = await client.sendRequest<Decision>('codewhale/explain', request);
    await showMarkdown(explainMarkdown(tool, command, d));
  } catch (err) {
    void vscode.window.showErrorMessage(`codewhale/explain: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function showStatus(): Promise<void> {
  const status = await refreshStatus();
  if (!status) {
    void vscode.window.showErrorMessage(startProblem ?? 'codewhale-ls is not running');
    return;
  }
  await showMarkdown(statusMarkdown(status));
}

async function openPermissions(): Promise<void> {
  const status = lastStatus ?? (await refreshStatus());
  if (!status?.permissionsPath) {
    void vscode.window.showErrorMessage(startProblem ?? 'codewhale-ls did not say where permissions.toml is');
    return;
  }
  const uri = vscode.Uri.file(status.permissionsPath);
  if (!fs.existsSync(status.permissionsPath)) {
    // Show it as new, unsaved: saving it creates the file.
    await vscode.window.showTextDocument(uri.with({ scheme: 'untitled' }));
    return;
  }
  await vscode.window.showTextDocument(uri);
}
