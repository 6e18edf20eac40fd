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

/** One prompt's card. */
export interface CardView {
  prompt: ApprovalPrompt;
  /** Prompts queued behind this one. */
  behind: number;
  nowMs: number;
  /** The window's folder is not trusted (Restricted Mode): Deny alone is offered. */
  restricted?: boolean;
}

/** A page with its first card. */
export interface ApprovalView extends CardView {
  nonce: string;
  cspSource: string;
}

/**
 * The message that puts the next prompt's card into the page on screen
 * (panelUpdate's 'card'): its markup, made by {@link cardHtml} as for a
 * new page, and what the page's script needs of it.
 */
export interface NextCard {
  card: { id: string; deadline: string; html: string };
}

export function nextCard(view: CardView): NextCard {
  return { card: { id: view.prompt.id, deadline: view.prompt.deadline, html: cardHtml(view) } };
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
 * One prompt's card: what the page shows of it, from its heading to its
 * buttons and "N more waiting" line. Deny comes first; the approve
 * buttons start inert (the page's script arms them).
 */
export function cardHtml(view: CardView): string {
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
  return `  <div class="head">
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
  <p class="queue" id="queue">${escapeHtml(queueText(view.behind))}</p>`;
}

/**
 * The page for the oldest prompt. Deny comes first and has the focus once
 * the page has the keyboard, so a stray Enter denies; Esc denies; Space
 * does nothing. An approve button takes only a pointer click, or
 * {@link approveKeyText} while it has the focus, and only once the card
 * has been on screen for {@link ARM_MS} without a key pressed in it: every
 * key re-arms that wait, and Enter or Space on an approve button does
 * nothing. The page posts {id, choice} (choice null for Esc), counts down
 * to the deadline in the user's local time, takes a {@link QueueCount}
 * for its "N more waiting" line and a {@link NextCard} for the next
 * prompt, whose card replaces the one shown whole and waits ARM_MS as a
 * new page would; it posts {shown: id} once each card is in it.
 * In Restricted Mode only Deny is offered.
 */
export function approvalHtml(view: ApprovalView): string {
  const state = JSON.stringify({ id: view.prompt.id, deadline: view.prompt.deadline }).replace(/</g, '\\u003c');
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
<div id="card">
${cardHtml(view)}
</div>
<script nonce="${view.nonce}">
  const vscode = acquireVsCodeApi();
  const countdownText = ${countdownText.toString()};
  const queueText = ${queueText.toString()};
  // The card on screen and its own state. A card the extension posts (the
  // next prompt, a NextCard) replaces it whole: nothing of the card before
  // (an answer given, a timer running, a press begun) carries over, and
  // its buttons wait ARM_MS as on a new page. armed: the card has been up
  // for ARM_MS (every button). approveArmed: besides, no key was pressed
  // in the page and it was not hidden for ARM_MS (the approve buttons).
  let card;
  function answer(choice) {
    if (card.answered || (!card.armed && choice !== null)) return;
    card.answered = true;
    vscode.postMessage({ id: card.id, choice: choice });
  }
  function setApproveArmed(on) {
    card.approveArmed = on;
    for (const b of card.approvers) b.setAttribute('aria-disabled', on ? 'false' : 'true');
  }
  // Every key pressed in the page, and the page being hidden, makes the
  // approve buttons wait ARM_MS again from then.
  function touch() {
    setApproveArmed(false);
    clearTimeout(card.rearm);
    if (document.visibilityState !== 'hidden') card.rearm = setTimeout(() => setApproveArmed(true), ${ARM_MS});
  }
  // Deny takes the focus only while the page has the keyboard: a prompt
  // that arms while the user types elsewhere (the command palette, an
  // editor) must not take their keys, nor the Enter meant for them. It
  // takes it when the page gets the keyboard, unless the user already
  // focused something in it.
  function focusDeny() {
    if (card.armed && card.deny && (!document.activeElement || document.activeElement === document.body)) card.deny.focus();
  }
  // show takes the card now in the page as the one on screen.
  function show(id, deadline) {
    if (card) {
      clearTimeout(card.arming);
      clearTimeout(card.rearm);
    }
    const buttons = [...document.querySelectorAll('button[data-choice]')];
    const c = {
      id: id, deadline: deadline, answered: false, armed: false, approveArmed: false, arming: undefined, rearm: undefined, pressed: null,
      approvers: buttons.filter((b) => b.dataset.choice !== 'deny'), deny: document.querySelector('button[data-choice="deny"]'),
    };
    card = c;
    for (const b of buttons) {
      b.disabled = true;
      // A pointer press that began on this button while it could answer.
      b.addEventListener('pointerdown', (e) => { c.pressed = e.isTrusted && c.armed && (b.dataset.choice === 'deny' || c.approveArmed) ? b : null; });
      b.addEventListener('click', (e) => {
        if (card !== c) return;
        if (b.dataset.choice === 'deny') { answer('deny'); return; }
        // Only a real pointer click (detail counts the presses; a click
        // made by Enter or Space has none) that began and ended here.
        if (!e.isTrusted || !(e.detail >= 1) || c.pressed !== b || !c.approveArmed) return;
        answer(b.dataset.choice);
      });
    }
    c.arming = setTimeout(() => {
      c.armed = true;
      for (const b of buttons) b.disabled = false;
      if (document.hasFocus()) focusDeny();
    }, ${ARM_MS});
    touch();
    const trust = document.getElementById('trust');
    if (trust) trust.addEventListener('click', (e) => { e.preventDefault(); vscode.postMessage({ command: 'manageTrust' }); });
    vscode.postMessage({ shown: id });
  }
  const first = ${state};
  show(first.id, first.deadline);
  window.addEventListener('focus', focusDeny);
  document.addEventListener('visibilitychange', touch);
  const modifiers = ['Shift', 'Control', 'Alt', 'Meta', 'AltGraph', 'CapsLock', 'OS'];
  window.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); answer(null); return; }
    const focused = document.activeElement;
    const choice = focused && focused.dataset ? focused.dataset.choice : undefined;
    const onApprover = choice !== undefined && choice !== 'deny';
    if (onApprover && e.key === 'Enter' && e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && !e.repeat && card.approveArmed) {
      e.preventDefault();
      answer(choice);
      return;
    }
    // A modifier alone is the start of the approve key, not typing.
    if (modifiers.includes(e.key)) return;
    if (e.key === ' ' || (onApprover && e.key === 'Enter')) e.preventDefault();
    touch();
  }, true);
  setInterval(() => { document.getElementById('countdown').textContent = countdownText(card.deadline, Date.now()); }, 1000);
  window.addEventListener('message', (e) => {
    const next = e.data && e.data.card;
    if (next && typeof next.id === 'string' && typeof next.deadline === 'string' && typeof next.html === 'string') {
      document.getElementById('card').innerHTML = next.html;
      window.scrollTo(0, 0);
      show(next.id, next.deadline);
      return;
    }
    // A count alone changes only this line: a new card would re-arm the
    // buttons and take the focus.
    const behind = e.data && e.data.behind;
    if (Number.isInteger(behind) && behind >= 0) document.getElementById('queue').textContent = queueText(behind);
  });
</script>
</body>
</html>
`;
}
