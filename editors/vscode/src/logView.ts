// The decision log view (Codewhale: Open decision log): the receipts
// `codewhale-ls log --json` reads, as a table with filters, and
// `codewhale-ls log show ID` for the one selected. The extension never
// parses the log file itself: the server's binary is the one reader
// (docs/codewhale/contract.md §4 "Receipts"). No `vscode` import, so the
// unit tests run under plain `node --test`; logPanel.ts shows the page.
import * as path from 'node:path';
import { escapeHtml, markedHtml } from './approvalHtml';
import { visible } from './visibleText';

/** The view's filters, as `codewhale-ls log` takes them. */
export interface LogFilters {
  agent: string;
  /** "" for every decision. */
  decision: '' | 'allow' | 'ask' | 'deny';
  /** `2h`, `2026-12-05` or an RFC 3339 time; "" for no bound. */
  since: string;
  /** A repository folder: absolute, `~/…`, or `.` for the window's first folder. */
  repo: string;
  tool: string;
  limit: number;
}

/** How many receipts the view asks for unless told otherwise. */
export const defaultLimit = 200;
/** The most it asks for: each receipt with its trace is a few KiB. */
export const maxLimit = 2000;
/** A filter longer than this is not a filter anyone typed. */
const maxFilterChars = 500;

export const noFilters: LogFilters = { agent: '', decision: '', since: '', repo: '', tool: '', limit: defaultLimit };

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim().slice(0, maxFilterChars) : '';
}

/** The filters the page posted, each checked: anything else is no filter. */
export function filtersFrom(raw: unknown): LogFilters {
  const r = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const decision = text(r.decision);
  const limit = typeof r.limit === 'number' ? r.limit : Number.parseInt(text(r.limit), 10);
  return {
    agent: text(r.agent),
    decision: decision === 'allow' || decision === 'ask' || decision === 'deny' ? decision : '',
    since: text(r.since),
    repo: text(r.repo),
    tool: text(r.tool),
    limit: Number.isInteger(limit) && limit > 0 ? Math.min(limit, maxLimit) : defaultLimit,
  };
}

/**
 * The repository filter as `--repo` takes it: `.` is the window's first
 * folder, `~/…` is under home; a relative path is refused (it would be
 * taken from wherever the extension host runs).
 */
export function repoFilter(value: string, folder: string | undefined, home: string): { repo?: string; error?: string } {
  if (value === '') {
    return {};
  }
  if (value === '.') {
    return folder ? { repo: folder } : { error: 'Repository ".": this window has no folder on disk. Give the repository\'s absolute path.' };
  }
  if (value === '~' || value.startsWith('~/')) {
    return { repo: path.join(home, value.slice(1)) };
  }
  if (!path.isAbsolute(value)) {
    return { error: `Repository "${value}" is not an absolute path: give one, or . for this window's folder.` };
  }
  return { repo: value };
}

/**
 * The log file to read: codewhale.decisionLog when it names one, else
 * the binary's default (the file the server writes, in the same
 * Codewhale home); an error when the setting turned the log off.
 */
export function logFile(setting: string): { file?: string; error?: string } {
  const value = setting.trim();
  if (value === 'off') {
    return { error: 'codewhale.decisionLog is off: no decision log is written, so there is nothing to show. Codewhale: Show output has this session\'s decisions.' };
  }
  return value === '' ? {} : { file: value };
}

/**
 * `codewhale-ls log --json` with the filters. Every value goes as
 * `--flag=value`, one argument each (no shell), so a value starting with
 * `-` is never taken for a flag.
 */
export function logArgs(f: LogFilters, repo: string | undefined, file: string | undefined): string[] {
  const args = ['log', '--json', `--limit=${f.limit}`];
  const flags: [string, string | undefined][] = [['since', f.since], ['agent', f.agent], ['decision', f.decision], ['repo', repo], ['tool', f.tool], ['file', file]];
  for (const [flag, value] of flags) {
    if (value) {
      args.push(`--${flag}=${value}`);
    }
  }
  return args;
}

/** A receipt id as the server makes them (approvals.newReceiptID). */
const receiptId = /^[A-Za-z0-9_-]{1,64}$/;

/** `codewhale-ls log show ID`, or undefined for something that is not a receipt id. */
export function showArgs(id: string, file: string | undefined): string[] | undefined {
  if (!receiptId.test(id) || id.startsWith('-')) {
    return undefined;
  }
  return file ? ['log', 'show', id, `--file=${file}`] : ['log', 'show', id];
}

/** One receipt, the fields the view reads (schema v1; older lines have fewer). */
export interface Receipt {
  v?: number;
  id?: string;
  time?: string;
  agent?: string;
  repo?: string;
  tool?: string;
  input?: { field: string; text: string; bytes?: number; cut?: boolean }[];
  decision?: string;
  layer?: number;
  layerName?: string;
  rule?: string | null;
  approval?: { choice: string; source: string } | null;
  decider?: { kind?: string; summary?: string; where?: string; answer?: string };
  /** Lines written before receipts: the title field of a call a person answered. */
  shown?: string;
}

/** The receipts of `log --json`'s output, and how many lines were not one. */
export function parseReceipts(stdout: string): { receipts: Receipt[]; unreadable: number } {
  const receipts: Receipt[] = [];
  let unreadable = 0;
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') {
      continue;
    }
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        receipts.push(value as Receipt);
        continue;
      }
    } catch {
      // counted below
    }
    unreadable++;
  }
  return { receipts, unreadable };
}

/** One row of the table, every cell text (made visible; escaped when drawn). */
export interface LogRow {
  /** The receipt's id; absent in lines written before receipts, which `log show` cannot find. */
  id?: string;
  time: string;
  agent: string;
  repo: string;
  decision: string;
  what: string;
  decidedBy: string;
}

/** How much of a call the What column shows. */
const whatChars = 160;

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** A receipt's time in the local time zone, to the second: `2026-12-06 14:02:03`. */
export function localTime(iso: string): string {
  const t = new Date(iso);
  if (iso === '' || Number.isNaN(t.getTime())) {
    return iso;
  }
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}`;
}

/** A path under home as `~/…`. */
export function shortPath(p: string, home: string): string {
  if (home !== '' && (p === home || p.startsWith(home.endsWith(path.sep) ? home : home + path.sep))) {
    return '~' + p.slice(home.replace(/[\\/]+$/, '').length);
  }
  return p;
}

/** Text on one line, at most n characters: line breaks as `⏎ `. */
export function oneLine(s: string, n: number): string {
  const flat = visible(s.replace(/⏎?\r?\n/g, '⏎ '), false);
  const chars = [...flat];
  return chars.length > n ? chars.slice(0, n - 1).join('') + '…' : flat;
}

/** The tool and the first field of its input, as the receipt keeps them. */
function whatOf(r: Receipt): string {
  const first = Array.isArray(r.input) ? r.input.find((f) => typeof f?.text === 'string') : undefined;
  const shown = first ? first.text : str(r.shown);
  return oneLine(shown ? `${str(r.tool)} ${shown}` : str(r.tool), whatChars);
}

/** Who decided: the receipt's own line; for a line written before receipts, the layer and the answer. */
function deciderOf(r: Receipt): string {
  const summary = str(r.decider?.summary);
  if (summary !== '') {
    return oneLine(summary, whatChars);
  }
  const layer = typeof r.layer === 'number' ? `layer ${r.layer} ${str(r.layerName)}`.trim() : str(r.layerName);
  const rule = r.rule ? `, rule ${r.rule}` : '';
  const answer = r.approval ? `, ${r.approval.choice} (${r.approval.source})` : '';
  return oneLine(`${layer}${rule}${answer}`, whatChars);
}

export function rowOf(r: Receipt, home: string): LogRow {
  const row: LogRow = {
    time: localTime(str(r.time)),
    agent: oneLine(str(r.agent) || '—', 40),
    repo: oneLine(shortPath(str(r.repo), home), 80),
    decision: oneLine(str(r.decision), 10),
    what: whatOf(r),
    decidedBy: deciderOf(r),
  };
  if (typeof r.id === 'string' && receiptId.test(r.id)) {
    row.id = r.id;
  }
  return row;
}

/** What the page shows. */
export interface LogView {
  filters: LogFilters;
  /** Newest first. */
  rows: LogRow[];
  /** The line above the table: what was read, how many matched. */
  summary: string;
  /** What went wrong, in words with what to do; the table is then empty. */
  error?: string;
}

/** The summary line for receipts read (newest last, as `log --json` prints them). */
export function logSummary(count: number, f: LogFilters, file: string | undefined, unreadable: number): string {
  const from = file ? ` from ${file}` : '';
  const filtered = f.agent || f.decision || f.since || f.repo || f.tool ? ' matching the filters' : '';
  const what = count === 0 ? `No decisions${filtered}${from}.` : `${count} decision${count === 1 ? '' : 's'}${filtered}${from}, newest first${count >= f.limit ? ` (the newest ${f.limit}: raise Limit for more)` : ''}.`;
  return unreadable > 0 ? `${what} ${unreadable} line${unreadable === 1 ? ' was' : 's were'} not a receipt.` : what;
}

/**
 * What the page says once this window's server decided again after the
 * table was read ({@link LogNewer}): the table is not rebuilt under the
 * person's eyes or filters half typed, they refresh when they want.
 */
export const newerText = 'This window decided again since the table was read: Refresh shows it.';

/** The message that makes the page say {@link newerText}. */
export interface LogNewer {
  newer: true;
}

/** The message that shows one receipt's `log show` in the page. */
export interface LogDetail {
  detail: { id: string; text: string; error: boolean };
}

export function logDetail(id: string, output: string, error: boolean): LogDetail {
  return { detail: { id, text: visible(output, false), error } };
}

function input(name: string, label: string, value: string, placeholder: string): string {
  return `<label>${escapeHtml(label)} <input name="${name}" value="${escapeHtml(value)}" placeholder="${escapeHtml(placeholder)}" spellcheck="false"></label>`;
}

function rowHtml(r: LogRow): string {
  const id = r.id ? ` data-id="${escapeHtml(r.id)}" tabindex="0"` : '';
  // The title shows a cell the column cuts short, on hover.
  const cells = [r.time, r.agent, r.repo, r.decision, r.what, r.decidedBy].map((c, i) => `<td class="c${i}" title="${escapeHtml(c)}">${markedHtml(c)}</td>`).join('');
  return `<tr class="d-${escapeHtml(r.decision.replace(/[^a-z]/g, ''))}"${id}>${cells}</tr>`;
}

/**
 * The page: the filters, the table and the selected receipt's
 * explanation. Every text comes from a receipt the server wrote and is
 * made visible and HTML-escaped here; the page's script only posts the
 * filters, a refresh or a row's id, and puts `log show`'s output in the
 * page as text (textContent), never as HTML.
 */
export function logViewHtml(view: LogView, nonce: string, cspSource: string): string {
  const f = view.filters;
  const decisions = ['', 'allow', 'ask', 'deny']
    .map((d) => `<option value="${d}"${d === f.decision ? ' selected' : ''}>${d === '' ? 'any' : d}</option>`)
    .join('');
  const rows = view.rows.map(rowHtml).join('\n');
  const error = view.error ? `<p class="error" id="error" role="alert">${markedHtml(view.error)}</p>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<title>Codewhale decision log</title>
<style nonce="${nonce}">
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 8px 16px; }
  form { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; margin-bottom: 8px; }
  label { color: var(--vscode-descriptionForeground); }
  input, select { font-family: inherit; font-size: inherit; color: var(--vscode-input-foreground); background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, transparent); padding: 2px 4px; }
  input[name="limit"] { width: 5em; }
  button { font-family: inherit; font-size: inherit; padding: 3px 12px; border: 1px solid var(--vscode-button-border, transparent); background: var(--vscode-button-background); color: var(--vscode-button-foreground); cursor: pointer; }
  button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
  .summary { color: var(--vscode-descriptionForeground); margin: 4px 0; }
  .newer { color: var(--vscode-editorWarning-foreground); margin: 4px 0; }
  .error { border-left: 3px solid var(--vscode-errorForeground); padding: 2px 8px; white-space: pre-wrap; }
  table { border-collapse: collapse; width: 100%; table-layout: fixed; }
  th { text-align: left; color: var(--vscode-descriptionForeground); font-weight: 600; border-bottom: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, transparent)); padding: 2px 6px; }
  td { padding: 2px 6px; vertical-align: top; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  td.c4 { font-family: var(--vscode-editor-font-family); }
  td.c4, td.c5 { white-space: normal; overflow-wrap: anywhere; }
  th.c0 { width: 12em; } th.c1 { width: 7em; } th.c2 { width: 11em; } th.c3 { width: 4.5em; } th.c5 { width: 28%; }
  tr[data-id] { cursor: pointer; }
  tr[data-id]:hover { background: var(--vscode-list-hoverBackground); }
  tr.selected { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
  tr:focus { outline: 1px solid var(--vscode-focusBorder); }
  tr.d-deny td.c3 { color: var(--vscode-errorForeground); }
  tr.d-allow td.c3 { color: var(--vscode-testing-iconPassed, var(--vscode-foreground)); }
  .esc { color: var(--vscode-editorWarning-foreground); outline: 1px solid var(--vscode-editorWarning-foreground); border-radius: 2px; }
  .nl { color: var(--vscode-descriptionForeground); }
  #detail { margin-top: 10px; }
  #detail-text { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); background: var(--vscode-textCodeBlock-background); padding: 6px 8px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 40vh; overflow: auto; }
  #detail-text:empty { display: none; }
  #detail-text.failed { border-left: 3px solid var(--vscode-errorForeground); }
</style>
</head>
<body>
<form id="filters">
  ${input('agent', 'Agent', f.agent, 'codex')}
  <label>Decision <select name="decision">${decisions}</select></label>
  ${input('since', 'Since', f.since, '2h or 2026-12-05')}
  ${input('repo', 'Repository', f.repo, '. or /abs/repo')}
  ${input('tool', 'Tool', f.tool, 'exec_shell')}
  <label>Limit <input name="limit" type="number" min="1" max="${maxLimit}" value="${f.limit}"></label>
  <button type="submit">Apply</button>
  <button type="button" class="secondary" id="clear">Clear</button>
  <button type="button" class="secondary" id="refresh">Refresh</button>
</form>
<p class="summary" id="summary">${escapeHtml(view.summary)}</p>
<p class="newer" id="newer" hidden>${escapeHtml(newerText)}</p>
${error}
<table id="log">
<thead><tr><th class="c0">Time</th><th class="c1">Agent</th><th class="c2">Repository</th><th class="c3">Decision</th><th class="c4">What</th><th class="c5">Decided by</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<section id="detail"><pre id="detail-text" tabindex="0"></pre></section>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  const form = document.getElementById('filters');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const filters = {};
    for (const el of form.elements) if (el.name) filters[el.name] = el.value;
    vscode.postMessage({ filters: filters });
  });
  document.getElementById('clear').addEventListener('click', () => vscode.postMessage({ filters: {} }));
  document.getElementById('refresh').addEventListener('click', () => vscode.postMessage({ refresh: true }));
  const detail = document.getElementById('detail-text');
  let wanted = null;
  function select(row) {
    for (const r of document.querySelectorAll('tr.selected')) r.classList.remove('selected');
    row.classList.add('selected');
    wanted = row.dataset.id;
    detail.classList.remove('failed');
    detail.textContent = 'codewhale-ls log show ' + wanted + ' …';
    vscode.postMessage({ show: wanted });
  }
  for (const row of document.querySelectorAll('tr[data-id]')) {
    row.addEventListener('click', () => select(row));
    row.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); select(row); } });
  }
  // log show's output, as text: the page never renders a receipt as HTML.
  window.addEventListener('message', (e) => {
    if (e.data && e.data.newer === true) {
      document.getElementById('newer').hidden = false;
      return;
    }
    const d = e.data && e.data.detail;
    if (!d || typeof d.id !== 'string' || typeof d.text !== 'string' || d.id !== wanted) return;
    detail.textContent = d.text;
    detail.classList.toggle('failed', d.error === true);
  });
</script>
</body>
</html>
`;
}

/** How `codewhale-ls log` is run: bounded in time and in what it may print. */
export const logTimeoutMs = 15_000;
export const logMaxBytes = 16 << 20;

/** The part of child_process.execFile the view uses (injected, so the tests run it on scripts). */
export type ExecFile = (
  file: string,
  args: string[],
  options: { timeout: number; maxBuffer: number; signal: AbortSignal; encoding: 'utf8'; windowsHide: boolean; cwd?: string },
  callback: (error: (Error & { code?: string | number | null; killed?: boolean; signal?: NodeJS.Signals | null }) | null, stdout: string, stderr: string) => void,
) => unknown;

export type LogRun = { stdout: string } | { error: string } | { aborted: true };

function bytesText(n: number): string {
  return n >= 1 << 20 ? `${n / (1 << 20)} MiB` : `${n} bytes`;
}

/** stderr's first lines, for a message: what failed, without the usage text that may follow. */
function stderrText(stderr: string): string {
  const all = stderr.trim().split('\n');
  const usage = all.findIndex((l) => /^\s*usage:/i.test(l));
  const lines = all.slice(0, Math.min(usage < 0 ? all.length : Math.max(usage, 1), 6)).join('\n');
  return visible(lines.length > 2000 ? '…' + lines.slice(-2000) : lines, false);
}

/**
 * Runs `command args` (the server's binary) and returns what it printed,
 * or what went wrong in words with what to do. It never waits past
 * timeoutMs ({@link logTimeoutMs}) nor keeps more than maxBytes
 * ({@link logMaxBytes}); the child is killed then, or when signal aborts
 * (a newer run, the panel closing).
 */
export function runLog(execFile: ExecFile, command: string, args: string[], signal: AbortSignal, cwd?: string,
  { timeoutMs = logTimeoutMs, maxBytes = logMaxBytes } = {}): Promise<LogRun> {
  const shown = `${path.basename(command)} ${args[0] ?? ''}`.trim();
  return new Promise((resolve) => {
    try {
      execFile(command, args, { timeout: timeoutMs, maxBuffer: maxBytes, signal, encoding: 'utf8', windowsHide: true, cwd }, (err, stdout, stderr) => {
        if (!err) {
          resolve({ stdout });
          return;
        }
        if (err.name === 'AbortError' || signal.aborted) {
          resolve({ aborted: true });
          return;
        }
        if (err.code === 'ENOENT' || err.code === 'EACCES') {
          resolve({ error: `Could not run ${command} (${err.code}). Set codewhale.server.path to a codewhale-ls binary in your user settings, or reinstall the extension.` });
          return;
        }
        if (err.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          resolve({ error: `${shown} printed more than ${bytesText(maxBytes)}: lower Limit or narrow the filters.` });
          return;
        }
        if (err.killed) {
          resolve({ error: `${shown} did not finish within ${timeoutMs / 1000} s and was stopped. Is the log on a slow or hung file system? Try Refresh, or run it in a terminal.` });
          return;
        }
        const said = stderrText(stderr);
        const usage = err.code === 2 ? ' Check the filters.' : '';
        const older = /unknown (sub)?command "?log/i.test(said) ? ` ${command} may be older than the log command: update codewhale-ls.` : '';
        resolve({ error: `${shown} failed (exit ${String(err.code ?? err.signal)})${said ? `: ${said}` : ''}.${usage}${older}` });
      });
    } catch (err) {
      resolve({ error: `Could not run ${command}: ${err instanceof Error ? err.message : String(err)}` });
    }
  });
}
