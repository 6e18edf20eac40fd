// The decision log panel: one webview that owns the `codewhale-ls log`
// processes it starts (one at a time for the table, one for the
// explanation; a newer run or the panel closing kills the older). What it
// shows is made by logView.ts, which has the tests.
import * as childProcess from 'node:child_process';
import * as crypto from 'node:crypto';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { filtersFrom, logArgs, logDetail, LogFilters, LogNewer, logSummary, logViewHtml, noFilters, parseReceipts, repoFilter, rowOf, runLog, showArgs } from './logView';

/** Where the log is read from: the server's binary and codewhale.decisionLog's file, or why it cannot be. */
export type LogSource = { command: string; file?: string } | { error: string };

export const logPanelTitle = 'Codewhale decision log';

export class DecisionLogPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private filters: LogFilters = noFilters;
  /** The table's run under way, if any. */
  private listing: AbortController | undefined;
  /** The explanation's run under way, if any. */
  private explaining: AbortController | undefined;

  constructor(private readonly source: () => LogSource, private readonly log: vscode.LogOutputChannel) {}

  /** Shows the panel (a new one, or the one open) with the receipts read now. */
  async show(): Promise<void> {
    if (this.panel) {
      this.panel.reveal(undefined, false);
    } else {
      this.panel = this.createPanel();
    }
    await this.refresh();
  }

  /** This window's server made a decision: an open view says the table is behind (it is not rebuilt). */
  decided(): void {
    void this.panel?.webview.postMessage({ newer: true } satisfies LogNewer);
  }

  dispose(): void {
    this.panel?.dispose();
    this.stopRuns();
  }

  private stopRuns(): void {
    this.listing?.abort();
    this.explaining?.abort();
    this.listing = undefined;
    this.explaining = undefined;
  }

  private createPanel(): vscode.WebviewPanel {
    const own = vscode.window.createWebviewPanel('codewhale.decisionLog', logPanelTitle, { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
      enableScripts: true,
      localResourceRoots: [],
    });
    own.webview.onDidReceiveMessage((message: { filters?: unknown; refresh?: unknown; show?: unknown }) => {
      if (this.panel !== own) {
        return;
      }
      if (message.filters !== undefined) {
        this.filters = filtersFrom(message.filters);
        void this.refresh();
      } else if (message.refresh === true) {
        void this.refresh();
      } else if (typeof message.show === 'string') {
        void this.explain(own, message.show);
      }
    });
    own.onDidDispose(() => {
      if (this.panel === own) {
        this.panel = undefined;
        this.stopRuns();
      }
    });
    return own;
  }

  /** Reads the receipts with the filters and puts the table in the page. */
  private async refresh(): Promise<void> {
    const own = this.panel;
    if (!own) {
      return;
    }
    this.listing?.abort();
    const run = new AbortController();
    this.listing = run;
    const filters = this.filters;
    const render = (view: { rows: ReturnType<typeof rowOf>[]; summary: string; error?: string }) => {
      if (this.panel === own && this.listing === run) {
        own.webview.html = logViewHtml({ filters, ...view }, crypto.randomBytes(16).toString('base64'), own.webview.cspSource);
      }
    };
    const source = this.source();
    if ('error' in source) {
      render({ rows: [], summary: '', error: source.error });
      return;
    }
    const repo = repoFilter(filters.repo, firstFolder(), os.homedir());
    if (repo.error) {
      render({ rows: [], summary: '', error: repo.error });
      return;
    }
    const started = Date.now();
    const result = await runLog(childProcess.execFile, source.command, logArgs(filters, repo.repo, source.file), run.signal, os.homedir());
    if ('aborted' in result) {
      return;
    }
    if ('error' in result) {
      this.log.warn(`decision log: ${result.error}`);
      render({ rows: [], summary: '', error: result.error });
      return;
    }
    const { receipts, unreadable } = parseReceipts(result.stdout);
    // log --json prints the newest last; the view shows it first.
    const rows = receipts.reverse().map((r) => rowOf(r, os.homedir()));
    this.log.info(`decision log: ${rows.length} receipts in ${Date.now() - started} ms`);
    render({ rows, summary: logSummary(rows.length, filters, source.file, unreadable) });
  }

  /** `codewhale-ls log show ID`, posted to the page as text. */
  private async explain(own: vscode.WebviewPanel, id: string): Promise<void> {
    const source = this.source();
    const args = 'error' in source ? undefined : showArgs(id, source.file);
    if ('error' in source || !args) {
      void own.webview.postMessage(logDetail(id, 'error' in source ? source.error : `"${id}" is not a receipt id.`, true));
      return;
    }
    this.explaining?.abort();
    const run = new AbortController();
    this.explaining = run;
    const result = await runLog(childProcess.execFile, source.command, args, run.signal, os.homedir());
    if ('aborted' in result || this.panel !== own) {
      return;
    }
    void own.webview.postMessage('error' in result ? logDetail(id, result.error, true) : logDetail(id, result.stdout, false));
  }
}

function firstFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}
