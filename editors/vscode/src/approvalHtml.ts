// The approval panel's page. No `vscode` import: client.ts passes the
// webview's CSP source and a fresh nonce.
import { ApprovalPrompt, buttonOrder, countdownText, InputField, restrictedText } from './approvals';
import { visible, visibleText } from './visibleText';

export const panelTitle = 'Codewhale approval';

/**
 * How long a page's buttons take nothing after it appears, and how long
 * an approve button stays inert after the last key pressed in the page
 * (or after the page was hidden): a key meant for an editor or a chat,
 * typed as the card opens, must not answer a card nobody has read.
 */
export const ARM_MS = 1000;

/** The non-everyday key that approves from the keyboard: Alt+Enter on a focused approve button. */
export const approveKeyText = 'Alt+Enter';

/** An input longer than this many lines or characters also gets its end shown on its own. */
const LONG_LINES = 12;
const LONG_CHARS = 1200;
/** How much of a long input's end is shown under it. */
const TAIL_LINES = 3;
const TAIL_CHARS = 400;

/** The nine layers' names, as the server's Decision says them (docs/codewhale/pipeline.md §1–§9). */
const layerNames = ['', 'posture', 'admission', 'hooks', 'baseline', 'permissions', 'auto-review', 'repo-law', 'approval', 'sandbox'];

/** The agents `codewhale-ls hook AGENT` serves, by the names their users know (docs/agents.md). */
const agentNames: Record<string, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  gemini: 'Gemini CLI',
  'copilot-cli': 'Copilot CLI',
  cursor: 'Cursor',
  codewhale: 'Codewhale',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/**
 * Server text for the page: made visible (visibleText), HTML-escaped,
 * each `⟪…⟫` escape and `⏎` marker in a span the page colours, so that
 * they stand out from the text around them.
 */
export function markedHtml(text: string): string {
  return visible(text)
    .split(/(⟪[^⟫]*⟫|⏎)/)
    .map((part, i) => {
      if (i % 2 === 0) {
        return escapeHtml(part);
      }
      return `<span class="${part === '⏎' ? 'nl' : 'esc'}">${escapeHtml(part)}</span>`;
    })
    .join('');
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
  /** The window's folder is not trusted (Restricted Mode): Deny alone is offered. */
  restricted?: boolean;
}

/** Who asks, as the card's heading says it. */
export function askerName(agent: string | undefined): string {
  if (!agent) {
    return 'An agent in VS Code';
  }
  return agentNames[agent] ?? visible(agent);
}

/** "layer 6 (auto-review)". */
export function layerText(layer: number): string {
  const name = layerNames[layer];
  return name ? `layer ${layer} (${name})` : `layer ${layer}`;
}

/** The fields the card shows: the server's inputs, else the summary alone (an older server). */
export function cardFields(p: ApprovalPrompt): InputField[] {
  if (Array.isArray(p.inputs) && p.inputs.length > 0) {
    return p.inputs;
  }
  // escaped 0: the server escaped nothing here; fieldFacts counts what
  // visibleText escapes itself.
  return [{ field: 'call', text: p.summary, bytes: Buffer.byteLength(p.summary), escaped: 0, hidden: 0 }];
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * What the field's heading says about its size: lines, bytes, escapes
 * and anything hidden, so that nothing is cut without saying how much.
 */
export function fieldFacts(f: InputField): string {
  const shown = visibleText(f.text);
  const lines = shown.text.split('\n').length;
  const escaped = (Number.isInteger(f.escaped) ? f.escaped : 0) + shown.escaped;
  const facts = [plural(lines, 'line', 'lines'), plural(Number.isInteger(f.bytes) ? f.bytes : 0, 'byte', 'bytes')];
  if (escaped > 0) {
    facts.push(`${plural(escaped, 'character', 'characters')} shown as ⟪escapes⟫`);
  }
  if (f.hidden > 0) {
    facts.push(`${plural(f.hidden, 'byte', 'bytes')} in the middle not shown (past 64 KiB)`);
  }
  return facts.join(' · ');
}

/**
 * The end of a long value, shown under it so that what comes last (where
 * a payload hides behind a harmless start) is on screen without
 * scrolling; undefined when the whole value fits in its box.
 */
export function tailOf(text: string): string | undefined {
  const shown = visible(text);
  const lines = shown.split('\n');
  if (lines.length <= LONG_LINES && shown.length <= LONG_CHARS) {
    return undefined;
  }
  let tail = lines.slice(-TAIL_LINES).join('\n');
  if (tail.length > TAIL_CHARS) {
    tail = tail.slice(-TAIL_CHARS);
    // Never start inside an escape: from the first whole one on.
    const close = tail.indexOf('⟫');
    const open = tail.indexOf('⟪');
    if (close >= 0 && (open < 0 || close < open)) {
      tail = tail.slice(close + 1);
    }
    tail = '…' + tail;
  }
  return tail;
}

/**
 * What the detail adds to the reason and the inputs (a forced hold, why
 * "always" is not offered): the server's detail is the card's
 * description, often the reason itself, followed by such notes; what
 * only repeats something shown is left out, so nothing is said twice.
 */
export function detailExtra(p: ApprovalPrompt): string {
  let detail = (p.detail ?? '').trim();
  for (const shown of [p.reason, p.summary, ...cardFields(p).map((f) => f.text)]) {
    if (shown && detail.startsWith(shown.trim())) {
      detail = detail.slice(shown.trim().length).trim();
    }
  }
  return detail;
}

/**
 * The TOML "always" would append, as it would be written: its line breaks
 * are its layout, so the server's `⏎` before each is dropped (a `⏎` in
 * the text itself comes escaped, `⟪⏎ U+23CE⟫`); anything invisible is
 * still escaped.
 */
export function previewText(preview: string): string {
  return visible(preview.replace(/⏎\n/g, '\n'), false);
}

function fieldHtml(f: InputField): string {
  const tail = tailOf(f.text);
  const end = tail === undefined
    ? ''
    : `\n    <p class="label">It ends with:</p>\n    <pre class="tail">${markedHtml(tail)}</pre>`;
  return `<section class="field" data-field="${escapeHtml(visible(f.field))}">
    <p class="label"><span class="name">${escapeHtml(visible(f.field))}</span> <span class="facts">${escapeHtml(fieldFacts(f))}</span></p>
    <pre class="value" tabindex="0">${markedHtml(f.text)}</pre>${end}
  </section>`;
}

/**
 * The page for the oldest prompt. Deny comes first and has the focus once
 * the page has the keyboard, so a stray Enter denies; Esc denies; Space
 * does nothing. An approve button takes only a pointer click, or
 * {@link approveKeyText} while it has the focus, and only once the page
 * has been on screen for {@link ARM_MS} without a key pressed in it: every
 * key re-arms that wait, and Enter or Space on an approve button does
 * nothing. The page posts {id, choice} (choice null for Esc), counts down
 * to the deadline in the user's local time and takes a {@link QueueCount}
 * for its "N more waiting" line. In Restricted Mode only Deny is offered.
 */
export function approvalHtml(view: ApprovalView): string {
  const p = view.prompt;
  const restricted = view.restricted === true;
  const always = restricted ? undefined : p.choices.find((c) => c.id === 'always');
  const buttons = buttonOrder(p, !restricted)
    .map((c) => {
      const focus = c.id === 'deny' ? ' autofocus' : '';
      const kind = c.id === 'deny' ? 'deny' : 'approve';
      const inert = kind === 'approve' ? ' aria-disabled="true"' : '';
      return `<button type="button" class="${kind}" data-choice="${escapeHtml(c.id)}"${focus}${inert}>${escapeHtml(visible(c.title))}</button>`;
    })
    .join('\n      ');
  const rows: string[] = [
    ['Decided by', layerText(p.layer) + (p.rule ? `, rule ${visible(p.rule)}` : '')],
    ['Workspace', p.workspace ? visible(p.workspace) : ''],
    ['Rules of', p.codewhale ? `Codewhale ${visible(p.codewhale)}` : ''],
  ]
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`);
  const fields = cardFields(p).map(fieldHtml).join('\n  ');
  const extra = detailExtra(p);
  const detail = extra ? `<p class="detail">${markedHtml(extra)}</p>` : '';
  let preview = '';
  if (always?.preview) {
    preview = `<p class="label">“${escapeHtml(visible(always.title))}” would append to permissions.toml:</p>\n  <pre class="preview"><code>${escapeHtml(previewText(always.preview))}</code></pre>`;
  } else if (!restricted && !/is not offered|forced hold/.test(p.detail ?? '')) {
    // The server says why when it knows (a forced hold, a refusal); else this.
    preview = `<p class="note">“Always allow in this repo” is not offered for this call: Codewhale offers it only where a saved rule could describe the call (docs/codewhale/pipeline.md §8.3).</p>`;
  }
  const restrictedNote = restricted
    ? `<p class="restricted" id="restricted">${escapeHtml(restrictedText)} <a href="#" id="trust">Manage Workspace Trust</a></p>`
    : '';
  const how = restricted
    ? 'Deny is the only answer here. Esc or closing this panel denies too.'
    : `To approve, click a button. From the keyboard: focus it with Tab, then press ${approveKeyText} once no key has been pressed for a second. ` +
      'Enter or Space never approves. Enter on Deny, Esc or closing this panel denies; no answer by the deadline denies.';
  const state = JSON.stringify({ id: p.id, deadline: p.deadline }).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${view.cspSource} 'nonce-${view.nonce}'; script-src 'nonce-${view.nonce}';">
<title>${panelTitle}</title>
<style nonce="${view.nonce}">
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 10px 20px; max-width: 72em; line-height: 1.4; }
  .head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 16px; border-bottom: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, transparent)); padding-bottom: 6px; margin-bottom: 8px; }
  .who { font-weight: 600; font-size: 1.1em; margin: 0; }
  .who code { font-family: var(--vscode-editor-font-family); }
  .countdown { margin: 0 0 0 auto; color: var(--vscode-editorWarning-foreground); }
  .reason { margin: 4px 0 10px; }
  .label { margin: 8px 0 2px; color: var(--vscode-descriptionForeground); }
  .label .name { font-family: var(--vscode-editor-font-family); color: var(--vscode-foreground); font-weight: 600; }
  pre { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); background: var(--vscode-textCodeBlock-background); border: 1px solid var(--vscode-widget-border, transparent); border-radius: 2px; padding: 6px 8px; margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  pre.value { max-height: 16em; overflow: auto; }
  pre:focus { outline: 1px solid var(--vscode-focusBorder); }
  .esc { color: var(--vscode-editorWarning-foreground); background: var(--vscode-inputValidation-warningBackground, transparent); outline: 1px solid var(--vscode-editorWarning-foreground); border-radius: 2px; }
  .nl { color: var(--vscode-descriptionForeground); }
  .detail, .note { color: var(--vscode-descriptionForeground); }
  .restricted { border-left: 3px solid var(--vscode-editorWarning-foreground); padding: 2px 8px; }
  a { color: var(--vscode-textLink-foreground); }
  dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 10px 0; color: var(--vscode-descriptionForeground); }
  dl.meta dd { margin: 0; color: var(--vscode-foreground); overflow-wrap: anywhere; }
  .buttons { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0 4px; }
  button { font-family: inherit; font-size: inherit; padding: 4px 14px; border: 1px solid var(--vscode-button-border, transparent); border-radius: 2px; cursor: pointer; }
  button.deny { background: var(--vscode-button-background); color: var(--vscode-button-foreground); }
  button.deny:hover { background: var(--vscode-button-hoverBackground); }
  button.approve { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
  button.approve:hover { background: var(--vscode-button-secondaryHoverBackground); }
  button:disabled, button[aria-disabled="true"] { opacity: .5; cursor: default; }
  button:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
  .how, .queue { color: var(--vscode-descriptionForeground); margin: 4px 0; }
</style>
</head>
<body>
  <div class="head">
    <p class="who">${escapeHtml(askerName(p.agent))} asks to use <code>${escapeHtml(visible(p.tool))}</code></p>
    <p class="countdown" id="countdown">${escapeHtml(countdownText(p.deadline, view.nowMs))}</p>
  </div>
  <p class="reason">${markedHtml(p.reason)}</p>
  ${fields}
  ${detail}
  <dl class="meta">${rows.join('')}</dl>
  ${preview}
  ${restrictedNote}
  <div class="buttons">
      ${buttons}
  </div>
  <p class="how" id="how">${escapeHtml(how)}</p>
  <p class="queue" id="queue">${escapeHtml(queueText(view.behind))}</p>
<script nonce="${view.nonce}">
  const vscode = acquireVsCodeApi();
  const state = ${state};
  const countdownText = ${countdownText.toString()};
  const queueText = ${queueText.toString()};
  let answered = false;
  // armed: the page has been up for ARM_MS (every button). approveArmed:
  // besides, no key was pressed in the page and it was not hidden for
  // ARM_MS (the approve buttons).
  let armed = false;
  let approveArmed = false;
  let rearm;
  let pressed = null;
  function answer(choice) {
    if (answered || (!armed && choice !== null)) return;
    answered = true;
    vscode.postMessage({ id: state.id, choice: choice });
  }
  const buttons = document.querySelectorAll('button[data-choice]');
  const approvers = [];
  for (const b of buttons) if (b.dataset.choice !== 'deny') approvers.push(b);
  function setApproveArmed(on) {
    approveArmed = on;
    for (const b of approvers) b.setAttribute('aria-disabled', on ? 'false' : 'true');
  }
  // Every key pressed in the page, and the page being hidden, makes the
  // approve buttons wait ARM_MS again from then.
  function touch() {
    setApproveArmed(false);
    clearTimeout(rearm);
    if (document.visibilityState !== 'hidden') rearm = setTimeout(() => setApproveArmed(true), ${ARM_MS});
  }
  for (const b of buttons) {
    b.disabled = true;
    // A pointer press that began on this button while it could answer.
    b.addEventListener('pointerdown', (e) => { pressed = e.isTrusted && armed && (b.dataset.choice === 'deny' || approveArmed) ? b : null; });
    b.addEventListener('click', (e) => {
      if (b.dataset.choice === 'deny') { answer('deny'); return; }
      // Only a real pointer click (detail counts the presses; a click
      // made by Enter or Space has none) that began and ended here.
      if (!e.isTrusted || !(e.detail >= 1) || pressed !== b || !approveArmed) return;
      answer(b.dataset.choice);
    });
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
  touch();
  window.addEventListener('focus', focusDeny);
  document.addEventListener('visibilitychange', touch);
  const modifiers = ['Shift', 'Control', 'Alt', 'Meta', 'AltGraph', 'CapsLock', 'OS'];
  window.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); answer(null); return; }
    const focused = document.activeElement;
    const choice = focused && focused.dataset ? focused.dataset.choice : undefined;
    const onApprover = choice !== undefined && choice !== 'deny';
    if (onApprover && e.key === 'Enter' && e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && !e.repeat && approveArmed) {
      e.preventDefault();
      answer(choice);
      return;
    }
    // A modifier alone is the start of the approve key, not typing.
    if (modifiers.includes(e.key)) return;
    if (e.key === ' ' || (onApprover && e.key === 'Enter')) e.preventDefault();
    touch();
  }, true);
  const trust = document.getElementById('trust');
  if (trust) trust.addEventListener('click', (e) => { e.preventDefault(); vscode.postMessage({ command: 'manageTrust' }); });
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
