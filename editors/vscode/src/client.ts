// The extension's one client object: it owns the language client, the
// output channel, the status bar item, the approval queue and panel, and
// the read-only pages, and starts, stops and restarts codewhale-ls.
// Everything that decides something lives in the vscode-free modules
// beside this one, which have unit tests.
import * as childProcess from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, ServerOptions, State } from 'vscode-languageclient/node';
import { approvalHtml, CardView, nextCard, NextCard, panelTitle, QueueCount } from './approvalHtml';
import { attentionMessage, attentionStep } from './attention';
import { ApprovalAnswer, ApprovalPrompt, ApprovalQueue, panelUpdate, restrictedText } from './approvals';
import { clientDeny, Decision, decisionLine, explainMarkdown, finalDecision, grantFollowUp } from './decision';
import { DecisionLogPanel, LogSource } from './logPanel';
import { logFile } from './logView';
import { ApprovalWithdrawnNotification, ApproveRequest, AuthorizeParams, AuthorizeRequest, DecisionNotification, ExplainRequest, FolderStatusRequest, StatusRequest } from './lspExt';
import { documentSelector } from './selector';
import { failureText, ServerExit, shouldRestart } from './serverFailure';
import { resolveServer, ServerChoice } from './serverPath';
import { initializationOptions, needsRestart, startSettings, StartSettings } from './settings';
import { FolderStatus, ServerStatus, statusBarText, statusMarkdown } from './status';

const pageScheme = 'codewhale-page';

export class CodewhaleClient implements vscode.Disposable {
  /** The language client of the server current, if any; undefined while none runs or between a restart's stop and start. */
  private client: QuietLanguageClient | undefined;
  readonly log: vscode.LogOutputChannel;
  private readonly queue: ApprovalQueue;
  private readonly statusItem: vscode.StatusBarItem;
  private lastStatus: ServerStatus | undefined;
  /** The other folders of a multi-root window and their status (codewhale/status {workspace}). */
  private folderStatuses: FolderStatus[] = [];
  private startProblem: string | undefined;
  private panel: vscode.WebviewPanel | undefined;
  /** The prompt id the panel's page shows; a close while it shows denies it. */
  private shownPromptId: string | undefined;
  /** The prompt id in the panel's webview.html: the page VS Code reloads when it shows a hidden panel. */
  private htmlPromptId: string | undefined;
  /** The count of prompts behind the shown one that the panel's webview.html says. */
  private htmlBehind = 0;
  /** The prompt whose card is on its way into the page, since when (Date.now()) and how, for the log's card time. */
  private cardOnItsWay: { id: string; since: number; how: string } | undefined;
  /** The last prompt whose card time was logged: once a prompt. */
  private cardTimed: string | undefined;
  /** The settings the current server was started with (or failed to start with). */
  private startedWith: StartSettings | undefined;
  /** The notification telling that a card waits while the window is away (attention.ts), while it is on screen. */
  private attention: { report: ((message: string) => void) | undefined; close: () => void } | undefined;
  /** Read-only pages (Explain, Show status) by URI path: never an editable, dirty buffer. */
  private readonly pages = new Map<string, string>();
  private readonly pageChanged = new vscode.EventEmitter<vscode.Uri>();
  /** The restart under way, if any: restarts run one at a time. */
  private restarting: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];
  /** The decision log view (Open decision log). */
  private readonly logPanel: DecisionLogPanel;

  constructor(private readonly extensionPath: string) {
    this.log = vscode.window.createOutputChannel('Codewhale', { log: true });
    this.logPanel = new DecisionLogPanel(() => this.logSource(), this.log);
    this.statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
    this.statusItem.command = 'codewhale.statusClicked';
    // In Restricted Mode nothing can be approved (approvals.ts restrictedText):
    // the queue takes any answer but Deny as a deny, whatever the page sent.
    this.queue = new ApprovalQueue(() => {
      this.showApprovals();
      this.updateStatusBar();
      this.updateAttention();
    }, () => vscode.workspace.isTrusted);
    this.disposables.push(
      this.logPanel,
      this.log,
      this.statusItem,
      { dispose: () => this.queue.dispose() },
      vscode.workspace.registerTextDocumentContentProvider(pageScheme, {
        onDidChange: this.pageChanged.event,
        provideTextDocumentContent: (uri) => this.pages.get(uri.path) ?? '',
      }),
      this.pageChanged,
      vscode.workspace.onDidChangeConfiguration((e) => {
        // Only a change to what the server is started with, from a source
        // that counts (settings.ts: never a workspace's value of a user-only
        // setting), restarts it; the trace setting the client follows itself.
        if (e.affectsConfiguration('codewhale') && needsRestart(this.startedWith, currentSettings())) {
          void this.restart();
        }
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.refreshStatus()),
      vscode.window.onDidChangeWindowState(() => this.updateAttention()),
      { dispose: () => this.attention?.close() },
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.restart()),
      // A saved policy file may change the posture or sandbox shown.
      vscode.workspace.onDidSaveTextDocument(() => void this.refreshStatus()),
    );
    this.statusItem.show();
    this.updateStatusBar();
  }

  /** Stops the server (if one runs) and lets go of everything this owns. */
  async dispose(): Promise<void> {
    await this.stop();
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }

  /** Stops the server, if one runs: its prompts cannot be answered any more. */
  async stop(): Promise<void> {
    this.queue.dispose();
    await this.client?.stop();
    this.client = undefined;
  }

  /**
   * Restarts run one after another (the command, a setting change and a
   * trust grant can come together): each stops the client current at its
   * turn, so no server is left running unreferenced.
   */
  restart(): Promise<void> {
    this.restarting = this.restarting.catch(() => undefined).then(async () => {
      const old = this.client;
      this.client = undefined;
      this.queue.dispose();
      await old?.stop().catch((err: unknown) => this.log.warn(`stopping codewhale-ls: ${String(err)}`));
      await this.start();
    });
    return this.restarting;
  }

  /** Shows the output channel. */
  showOutput(): void {
    this.log.show(true);
  }

  /** The status bar item's click: the problem when the server failed, else the status. */
  statusClicked(): Promise<void> {
    return this.startProblem ? this.showProblem() : this.showStatus();
  }

  /** Says a server failure: in the status bar, the log and a notification with the actions that fix it. */
  private reportProblem(problem: string): void {
    this.startProblem = problem;
    this.log.error(problem);
    this.updateStatusBar();
    void this.showProblem();
  }

  private async showProblem(): Promise<void> {
    if (!this.startProblem) {
      return;
    }
    const actions = ['Restart server', 'Open user settings', 'Show output'];
    const picked = await vscode.window.showErrorMessage(this.startProblem, ...actions);
    if (picked === actions[0]) {
      await this.restart();
    } else if (picked === actions[1]) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'codewhale.server.path');
    } else if (picked === actions[2]) {
      this.log.show(true);
    }
  }

  /** The codewhale-ls binary settings name, or why none can run. */
  private serverFor(settings: StartSettings): ServerChoice {
    return resolveServer({
      configured: settings.serverPath,
      extensionPath: this.extensionPath,
      platform: process.platform,
      pathEnv: process.env.PATH ?? '',
      isExecutable,
    });
  }

  /** Starts codewhale-ls with the current settings, or says why it cannot. */
  async start(): Promise<void> {
    restoreExecuteBit(this.extensionPath);
    const settings = currentSettings();
    this.startedWith = settings;
    // codewhale.server.path, codewhale.codewhaleVersion and
    // codewhale.decisionLog are the user's alone (settings.ts userOnly):
    // read from user (or remote) settings, never from a workspace.
    const choice = this.serverFor(settings);
    if ('error' in choice) {
      this.startProblem = choice.error;
      this.log.error(choice.error);
      this.updateStatusBar();
      void vscode.window.showErrorMessage(choice.error, 'Copy install command', 'Open user settings').then((picked) => {
        if (picked === 'Copy install command') {
          void vscode.env.clipboard.writeText('go install github.com/codewhale-ls/codewhale-ls/cmd/codewhale-ls@latest');
        } else if (picked) {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'codewhale.server.path');
        }
      });
      return;
    }
    this.startProblem = undefined;
    this.log.info(`starting ${choice.command} serve (${choice.source})`);
    // The process is spawned here, not by the client, so that its exit
    // code, spawn error and stderr can be said in words when it fails
    // (serverFailure.ts) instead of the client's "write EPIPE".
    let lastExit: ServerExit | undefined;
    let exited: Promise<void> = Promise.resolve();
    let running = false;
    const exits: number[] = [];
    const failure = (neverStarted: boolean): string => failureText({
      command: choice.command, source: choice.source, platform: process.platform, arch: process.arch,
      header: fileHeader(choice.command), exit: lastExit, crashes: exits.length, neverStarted,
    });
    const serverOptions: ServerOptions = () => {
      const child = childProcess.spawn(choice.command, ['serve'], { stdio: 'pipe' });
      let stderr = '';
      // Kept for the failure's words; the client itself copies stderr to
      // the output channel.
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-8000);
      });
      exited = new Promise<void>((resolve) => {
        child.on('error', (err: NodeJS.ErrnoException) => {
          lastExit = { code: null, signal: null, spawnError: err.code ?? err.message, stderr };
          resolve();
        });
        // 'close', not 'exit': it comes after stderr has been read to its end.
        child.on('close', (code, signal) => {
          lastExit = { code, signal, stderr, spawnError: lastExit?.spawnError };
          resolve();
        });
      });
      return Promise.resolve(child);
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(os.homedir(), process.env.CODEWHALE_HOME),
      initializationOptions: initializationOptions(settings),
      outputChannel: this.log,
      traceOutputChannel: this.log,
      // No retry and no message of the client's own ("write EPIPE"): the
      // failure is said in words once, by reportProblem.
      initializationFailedHandler: () => false,
      errorHandler: {
        error: (_err, _message, count) => ({ action: (count ?? 0) < 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true }),
        // A server that exits is restarted while it exits less than five
        // times in three minutes; then, or when it never started, it is
        // said in words with the actions that fix it.
        closed: async () => {
          exits.push(Date.now());
          await boundedWait(exited, 2000);
          if (running && shouldRestart(exits)) {
            this.log.warn(`codewhale-ls exited (${exits.length}); restarting it`);
            return { action: CloseAction.Restart, handled: true };
          }
          // Once per failure: a start that fails also rejects start() below.
          if (own === this.client && !this.startProblem) {
            this.reportProblem(failure(!running));
          }
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const own = new QuietLanguageClient('codewhale', 'Codewhale', serverOptions, clientOptions, () => running);
    this.client = own;
    own.onRequest(ApproveRequest, (prompt, token) =>
      new Promise<ApprovalAnswer>((resolve) => {
        this.queue.add(prompt, resolve);
        token.onCancellationRequested(() => this.queue.withdraw(prompt.id));
      }));
    own.onNotification(ApprovalWithdrawnNotification, (params) => {
      if (this.queue.withdraw(params.id)) {
        this.log.info(`approval ${params.id} withdrawn by the server (${params.reason})`);
      }
    });
    own.onNotification(DecisionNotification, (d) => {
      // The notification alone: its input is masked by the server
      // (approvals.MaskDecision), and nothing else is printed of the call.
      this.log.info(decisionLine(d));
      this.logPanel.decided();
      void this.afterDecision(d);
    });
    own.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        running = true;
      }
      if (e.newState === State.Stopped) {
        // Prompts of a server that is gone cannot be answered.
        this.queue.dispose();
        this.lastStatus = undefined;
        this.updateStatusBar();
      } else if (e.newState === State.Running) {
        // Also after the client restarted a server that crashed.
        void this.refreshStatus();
      }
    });
    try {
      await own.start();
      await this.refreshStatus();
    } catch (err) {
      this.log.error(`codewhale-ls did not start: ${String(err)}`);
      await boundedWait(exited, 2000);
      if (own === this.client && !this.startProblem) {
        this.reportProblem(failure(true));
      }
    }
  }

  private async refreshStatus(): Promise<ServerStatus | undefined> {
    if (!this.client || !this.client.isRunning()) {
      return undefined;
    }
    const running = this.client;
    try {
      this.lastStatus = await running.sendRequest(StatusRequest);
      // Each other folder of a multi-root window by name: its calls are
      // decided by its own .codewhale/ files.
      this.folderStatuses = await Promise.all(fileFolders().filter((f) => f !== this.lastStatus?.workspace).map(async (folder) => {
        try {
          return { path: folder, status: await running.sendRequest(FolderStatusRequest, { workspace: folder }) };
        } catch (err) {
          this.log.warn(`codewhale/status for ${folder}: ${String(err)}`);
          return { path: folder };
        }
      }));
    } catch (err) {
      this.log.warn(`codewhale/status: ${String(err)}`);
    }
    this.updateStatusBar();
    return this.lastStatus;
  }

  private updateStatusBar(): void {
    const known = new Map(this.folderStatuses.map((f) => [f.path, f]));
    const folders = fileFolders().map((path) => known.get(path) ?? { path });
    const view = statusBarText(this.lastStatus, this.queue.size(), this.startProblem, this.queue.askedBy(), folders);
    this.statusItem.text = view.text;
    this.statusItem.tooltip = view.tooltip;
    this.statusItem.backgroundColor = view.attention ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  /**
   * Tells of a waiting card while the window is not focused, with a
   * progress notification this closes when the card is answered or the
   * window has the focus again (attention.ts says why this one).
   */
  private updateAttention(): void {
    const current = this.queue.current();
    const step = attentionStep(vscode.window.state.focused, this.queue.size(), this.attention !== undefined);
    if (step === 'close') {
      this.attention?.close();
      this.attention = undefined;
      return;
    }
    if (!current || step === 'none') {
      return;
    }
    const message = attentionMessage(current, this.queue.size());
    if (step === 'update') {
      this.attention?.report?.(message);
      return;
    }
    let close: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      close = resolve;
    });
    const own: { report: ((message: string) => void) | undefined; close: () => void } = { report: undefined, close };
    this.attention = own;
    this.log.info(`approval ${current.id}: the window is not focused; telling with a notification`);
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, cancellable: false }, (progress) => {
      own.report = (text) => progress.report({ message: text });
      own.report(message);
      return closed;
    });
  }

  /**
   * Shows the oldest waiting prompt in the panel, or closes the panel; when
   * only the number of prompts behind it changed, updates that line alone
   * (panelUpdate says which).
   */
  private showApprovals(): void {
    const state = { shownId: this.panel ? this.shownPromptId : undefined, htmlId: this.htmlPromptId, htmlBehind: this.htmlBehind, visible: this.panel?.visible ?? false };
    const update = panelUpdate(state, this.queue.current(), this.queue.size());
    switch (update.kind) {
      case 'close': {
        this.shownPromptId = undefined;
        this.htmlPromptId = undefined;
        const open = this.panel;
        this.panel = undefined;
        open?.dispose();
        return;
      }
      case 'count':
        void this.panel?.webview.postMessage({ behind: update.behind } satisfies QueueCount);
        return;
      case 'card': {
        // The page on screen takes the next card: no new frame to build.
        // ('card' comes only for a visible panel, so there is one.)
        const shown = this.panel as vscode.WebviewPanel;
        this.shownPromptId = update.prompt.id;
        this.cardOnItsWay = { id: update.prompt.id, since: Date.now(), how: 'into the page on screen' };
        void shown.webview.postMessage(nextCard(this.cardView(update.prompt, update.behind)) satisfies NextCard);
        shown.reveal(undefined, false);
        return;
      }
      case 'page': {
        const fresh = !this.panel;
        const shown = this.panel ?? this.createApprovalPanel();
        if (update.reveal) {
          this.cardOnItsWay = { id: update.prompt.id, since: Date.now(), how: fresh ? 'in a new panel' : 'in a new page' };
        }
        this.shownPromptId = update.prompt.id;
        this.htmlPromptId = update.prompt.id;
        this.htmlBehind = update.behind;
        shown.webview.html = approvalHtml({
          ...this.cardView(update.prompt, update.behind),
          nonce: crypto.randomBytes(16).toString('base64'),
          cspSource: shown.webview.cspSource,
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

  private cardView(prompt: ApprovalPrompt, behind: number): CardView {
    return { prompt, behind, nowMs: Date.now(), restricted: !vscode.workspace.isTrusted };
  }

  /**
   * The page says which prompt's card it has: it is what the panel shows
   * (a page VS Code reloaded from an older webview.html shows an older
   * one, which showApprovals then replaces). The first time a prompt's
   * card is in, the log says how long after its turn came: the server
   * asking, or the prompt before it leaving.
   */
  private cardShown(id: string): void {
    this.shownPromptId = id;
    const way = this.cardOnItsWay;
    if (way?.id === id && this.cardTimed !== id) {
      this.cardOnItsWay = undefined;
      this.cardTimed = id;
      this.log.info(`approval ${id}: card in the page ${Date.now() - way.since} ms after its turn came (${way.how})`);
    }
    this.showApprovals();
  }

  private createApprovalPanel(): vscode.WebviewPanel {
    const own = vscode.window.createWebviewPanel('codewhale.approval', panelTitle, { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
      enableScripts: true,
      localResourceRoots: [],
    });
    this.panel = own;
    own.webview.onDidReceiveMessage((message: { id?: unknown; choice?: unknown; command?: unknown; shown?: unknown }) => {
      // {shown: id}: the page has the card of prompt id (approvalHtml).
      if (typeof message.shown === 'string') {
        if (this.panel === own) {
          this.cardShown(message.shown);
        }
        return;
      }
      if (message.command === 'manageTrust') {
        void vscode.commands.executeCommand('workbench.trust.manage');
        return;
      }
      if (typeof message.id === 'string') {
        this.queue.answer(message.id, typeof message.choice === 'string' ? message.choice : null);
      }
    });
    // A hidden panel's page is reloaded from webview.html when it shows
    // again: bring the html up to date with the count it missed.
    own.onDidChangeViewState(() => {
      if (this.panel === own) {
        this.showApprovals();
      }
    });
    own.onDidDispose(() => {
      if (this.panel === own) {
        // The user closed the panel: that denies the prompt it showed.
        this.panel = undefined;
        const closed = this.shownPromptId;
        this.shownPromptId = undefined;
        this.htmlPromptId = undefined;
        if (closed) {
          this.queue.answer(closed, null);
        }
      }
    });
    return own;
  }

  private async afterDecision(d: Decision): Promise<void> {
    // The posture or the files may have changed since the last look.
    const status = await this.refreshStatus();
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
  async authorize(call: unknown): Promise<Decision> {
    try {
      if (!vscode.workspace.isTrusted) {
        return clientDeny(restrictedText, call);
      }
      if (!this.client || !this.client.isRunning()) {
        return clientDeny(this.startProblem ?? 'codewhale-ls is not running', call);
      }
      // Passed on as it came: the server checks every field (lspExt.ts
      // AuthorizeParams), and finalDecision checks its answer.
      return finalDecision(await this.client.sendRequest(AuthorizeRequest, call as AuthorizeParams), call);
    } catch (err) {
      return clientDeny(`codewhale/authorize failed: ${err instanceof Error ? err.message : String(err)}`, call);
    }
  }

  /**
   * Shows content as a Markdown preview of a read-only virtual document
   * (nothing to save, no dirty Untitled tab); where the Markdown preview is
   * missing, as the read-only document itself.
   */
  private async showMarkdown(title: string, content: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: pageScheme, path: `/${title}.md` });
    this.pages.set(uri.path, content);
    this.pageChanged.fire(uri);
    await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, async () => {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    });
  }

  /** codewhale.explain: asks for a tool call and shows codewhale/explain's answer. */
  async explain(): Promise<void> {
    if (!this.client || !this.client.isRunning()) {
      void vscode.window.showErrorMessage(this.startProblem ?? 'codewhale-ls is not running');
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
    const request: AuthorizeParams = { tool, input: { command } };
    const workspace = firstFolder();
    if (workspace) {
      request.workspace = workspace;
    }
    try {
      const d = await this.client.sendRequest(ExplainRequest, request);
      await this.showMarkdown('Codewhale explain', explainMarkdown(tool, command, d));
    } catch (err) {
      void vscode.window.showErrorMessage(`codewhale/explain: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** codewhale.showStatus: every folder's status as a page. */
  async showStatus(): Promise<void> {
    const status = await this.refreshStatus();
    if (!status) {
      if (this.startProblem) {
        await this.showProblem();
      } else {
        void vscode.window.showErrorMessage('codewhale-ls is not running');
      }
      return;
    }
    const others = this.folderStatuses.map((f) => f.status).filter((st): st is ServerStatus => st !== undefined);
    await this.showMarkdown('Codewhale status', [status, ...others].map(statusMarkdown).join('\n'));
  }

  /** codewhale.openPermissions: the permissions.toml the server reads, new and unsaved when missing. */
  async openPermissions(): Promise<void> {
    const status = this.lastStatus ?? (await this.refreshStatus());
    if (!status?.permissionsPath) {
      void vscode.window.showErrorMessage(this.startProblem ?? 'codewhale-ls did not say where permissions.toml is');
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

  /**
   * codewhale.openDecisionLog: the receipts of the decision log as a
   * table with filters (logPanel.ts), read by `codewhale-ls log` of the
   * server's own binary: the extension never reads the file itself.
   */
  openDecisionLog(): Promise<void> {
    return this.logPanel.show();
  }

  /**
   * Where the decision log view reads from: the binary and the
   * codewhale.decisionLog the server runs with (or would start with), as
   * the user's own settings say (settings.ts userOnly).
   */
  private logSource(): LogSource {
    const settings = this.startedWith ?? currentSettings();
    const choice = this.serverFor(settings);
    if ('error' in choice) {
      return { error: `${choice.error} The decision log is read by its codewhale-ls log command.` };
    }
    const log = logFile(settings.decisionLog);
    if (log.error !== undefined) {
      return { error: log.error };
    }
    return log.file === undefined ? { command: choice.command } : { command: choice.command, file: log.file };
  }
}

/**
 * The language client, without its own notifications until the server
 * runs: a server that fails to start is said once, in words, by
 * reportProblem; the client's "couldn't create connection to server" and
 * "Server initialization failed" toasts (about a destroyed stream) would
 * bury it. They still go to the output channel.
 */
class QuietLanguageClient extends LanguageClient {
  constructor(id: string, name: string, server: ServerOptions, options: LanguageClientOptions, private readonly started: () => boolean) {
    super(id, name, server, options);
  }

  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, this.started() ? showNotification : false);
  }
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

function currentSettings(): StartSettings {
  const config = vscode.workspace.getConfiguration('codewhale');
  return startSettings(<T>(key: string) => config.inspect<T>(key), config.get<number>('approvalTimeoutSeconds', 300));
}

/** The first bytes of file, to tell a wrong-platform build (serverFailure.ts); empty when unreadable. */
function fileHeader(file: string): Uint8Array {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(64);
      const n = fs.readSync(fd, buf, 0, 64, 0);
      return buf.subarray(0, n);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return new Uint8Array();
  }
}

/** Waits for done, or ms at most: a process that neither exits nor answers must not hold a report back. */
function boundedWait(done: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void done.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The window's folders on disk. */
function fileFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

function firstFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}
