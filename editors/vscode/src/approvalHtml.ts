// The approval panel's page. No `vscode` import: extension.ts passes the
// webview's CSP source and a fresh nonce.
import { ApprovalPrompt, buttonOrder, countdownText } from './approvals';

export const panelTitle = 'Codewhale approval';

/** How long a newly shown prompt's buttons ignore clicks and Enter. */
export const ARM_MS = 500;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/**
 * The line under the buttons: "2 more waiting", or nothing. Self-contained
 * because the page runs this same function's source when the extension
 * posts it a new count ({@link QueueCount}).
 */
export function queueText(behind: number): string {
  return behind > 0 ? behind + ' more waiting' : '';
}

/** The message that updates the page's count of prompts waiting behind it. */
export interface QueueCount {
  behind: number;
}

export interface ApprovalView {
  prompt: ApprovalPrompt;
  /** Prompts queued behind this one. */
  behind: number;
  nonce: string;
  cspSource: string;
  nowMs: number;
}

/**
 * The page for the oldest prompt. Deny comes first and has the focus once
 * the page has the keyboard, so a stray Enter denies; Esc denies; Space
 * does nothing (a button would take it as a click); every other answer
 * needs a click or Tab then Enter. The page posts {id, choice} (choice
 * null for Esc), counts down to the deadline in the user's local time and
 * takes a {@link QueueCount} for its "N more waiting" line.
 */
export function approvalHtml(view: ApprovalView): string {
  const p = view.prompt;
  const always = p.choices.find((c) => c.id === 'always');
  const buttons = buttonOrder(p)
    .map((c) => {
      const focus = c.id === 'deny' ? ' autofocus' : '';
      const kind = c.id === 'deny' ? 'deny' : 'approve';
      return `<button type="button" class="${kind}" data-choice="${escapeHtml(c.id)}"${focus}>${escapeHtml(c.title)}</button>`;
    })
    .join('\n      ');
  const rows: string[] = [
    ['Asked by', p.agent ?? ''],
    ['Tool', p.tool],
    ['Call', p.summary],
    ['Reason', p.reason],
    ['Layer', String(p.layer) + (p.rule ? ` — rule ${p.rule}` : '')],
    ['Workspace', p.workspace ?? ''],
    ['Rules of', p.codewhale ? `Codewhale ${p.codewhale}` : ''],
  ]
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`);
  const detail = p.detail ? `<pre class="detail">${escapeHtml(p.detail)}</pre>` : '';
  const preview = always?.preview
    ? `<h2>“${escapeHtml(always.title)}” would append to permissions.toml</h2>\n    <pre class="preview"><code>${escapeHtml(always.preview)}</code></pre>`
    : '';
  const state = JSON.stringify({ id: p.id, deadline: p.deadline }).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${view.cspSource} 'nonce-${view.nonce}'; script-src 'nonce-${view.nonce}';">
<title>${panelTitle}</title>
<style nonce="${view.nonce}">
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1.5em; }
  th { text-align: left; padding-right: 1em; vertical-align: top; }
  pre { background: var(--vscode-textCodeBlock-background); padding: .6em; white-space: pre-wrap; }
  .countdown { font-weight: bold; color: var(--vscode-editorWarning-foreground); }
  .buttons button { margin: .3em .6em .3em 0; padding: .4em 1em; }
  button.deny { background: var(--vscode-button-background); color: var(--vscode-button-foreground); }
  button.approve { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
</style>
</head>
<body>
  <h1>Codewhale asks: allow this call?</h1>
  <p class="countdown" id="countdown">${escapeHtml(countdownText(p.deadline, view.nowMs))}</p>
  <table>${rows.join('')}</table>
  ${detail}
  ${preview}
  <p>Deny is the default: Esc or closing this panel denies. No answer by the deadline denies.</p>
  <div class="buttons">
      ${buttons}
  </div>
  <p class="queue" id="queue">${escapeHtml(queueText(view.behind))}</p>
<script nonce="${view.nonce}">
  const vscode = acquireVsCodeApi();
  const state = ${state};
  const countdownText = ${countdownText.toString()};
  const queueText = ${queueText.toString()};
  let answered = false;
  let armed = false;
  function answer(choice) {
    if (answered || (!armed && choice !== null)) return;
    answered = true;
    vscode.postMessage({ id: state.id, choice: choice });
  }
  // The buttons take no click or Enter for a moment after the page
  // appears: the next queued prompt replaces an answered one in the same
  // place, and a double click, or an Enter meant for the editor, must not
  // answer a prompt nobody has read. Esc (a deny) always works.
  const buttons = document.querySelectorAll('button[data-choice]');
  for (const b of buttons) {
    b.disabled = true;
    b.addEventListener('click', () => answer(b.dataset.choice));
  }
  // Deny takes the focus only while the page has the keyboard: a prompt
  // that arms while the user types elsewhere (the command palette, an
  // editor) must not take their keys, nor the Enter meant for them. It
  // takes it when the page gets the keyboard, unless the user already
  // focused something in it.
  const deny = document.querySelector('button[data-choice="deny"]');
  function focusDeny() {
    if (armed && deny && (!document.activeElement || document.activeElement === document.body)) deny.focus();
  }
  setTimeout(() => {
    armed = true;
    for (const b of buttons) b.disabled = false;
    if (document.hasFocus()) focusDeny();
  }, ${ARM_MS});
  window.addEventListener('focus', focusDeny);
  window.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); answer(null); }
    else if (e.key === ' ') { e.preventDefault(); }
  });
  const el = document.getElementById('countdown');
  setInterval(() => { el.textContent = countdownText(state.deadline, Date.now()); }, 1000);
  // The extension changes only this line when prompts queue behind this
  // one or leave: a new page would re-arm the buttons and take the focus.
  const queueLine = document.getElementById('queue');
  window.addEventListener('message', (e) => {
    const behind = e.data && e.data.behind;
    if (Number.isInteger(behind) && behind >= 0) queueLine.textContent = queueText(behind);
  });
</script>
</body>
</html>
`;
}
