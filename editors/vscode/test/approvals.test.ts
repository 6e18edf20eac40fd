import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApprovalAnswer, ApprovalPrompt, ApprovalQueue, buttonOrder, countdownText, panelUpdate, restrictedText } from '../src/approvals';
import { approvalHtml, nextCard, queueText } from '../src/approvalHtml';

function prompt(id: string, extra: Partial<ApprovalPrompt> = {}): ApprovalPrompt {
  return {
    id,
    tool: 'bash',
    summary: 'bash: cargo test',
    detail: 'cargo test',
    reason: 'approval required',
    layer: 8,
    rule: null,
    workspace: '/ws',
    choices: [
      { id: 'once', title: 'Approve once' },
      { id: 'session', title: 'Approve for session: every later "bash" call' },
      { id: 'always', title: 'Always allow in this repo', preview: '[[rules]]\ntool = "exec_shell"\ncommand = "cargo test"\n' },
      { id: 'deny', title: 'Deny' },
    ],
    default: 'deny',
    deadline: '2030-01-01T00:00:00Z',
    ...extra,
  };
}

function recordingQueue(): { queue: ApprovalQueue; answers: Map<string, ApprovalAnswer>; changes: () => number } {
  const answers = new Map<string, ApprovalAnswer>();
  let changes = 0;
  const queue = new ApprovalQueue(() => changes++);
  const add = queue.add.bind(queue);
  queue.add = (p, respond) => add(p, (a) => {
    assert.ok(!answers.has(p.id), `prompt ${p.id} answered twice`);
    answers.set(p.id, a);
    respond(a);
  });
  return { queue, answers, changes: () => changes };
}

test('the oldest prompt is shown first; the others queue behind it', () => {
  const { queue, answers } = recordingQueue();
  queue.add(prompt('a'), () => {});
  queue.add(prompt('b'), () => {});
  queue.add(prompt('c'), () => {});
  assert.equal(queue.current()?.id, 'a');
  assert.equal(queue.size(), 3);
  assert.ok(queue.answer('a', 'once'));
  assert.deepEqual(answers.get('a'), { choice: 'once' });
  assert.equal(queue.current()?.id, 'b');
  // Answering one that is not shown (e.g. a withdraw raced) works by id.
  assert.ok(queue.answer('c', 'session'));
  assert.equal(queue.current()?.id, 'b');
  assert.equal(queue.size(), 1);
});

test('the queue names the other agents whose calls wait, each once', () => {
  const { queue } = recordingQueue();
  queue.add(prompt('a', { agent: 'codex' }), () => {});
  queue.add(prompt('b'), () => {});
  queue.add(prompt('c', { agent: 'codex' }), () => {});
  queue.add(prompt('d', { agent: 'claude-code' }), () => {});
  assert.deepEqual(queue.askedBy(), ['codex', 'claude-code']);
  queue.answer('a', 'deny');
  queue.answer('c', 'deny');
  assert.deepEqual(queue.askedBy(), ['claude-code']);
});

test('each offered choice is sent as {choice}', () => {
  for (const choice of ['once', 'session', 'always', 'deny']) {
    const { queue, answers } = recordingQueue();
    queue.add(prompt('p'), () => {});
    queue.answer('p', choice);
    assert.deepEqual(answers.get('p'), { choice });
  }
});

test('Esc, a closed panel or a choice not offered answers null, which the server denies', () => {
  const { queue, answers } = recordingQueue();
  queue.add(prompt('esc'), () => {});
  queue.add(prompt('forged', { choices: [{ id: 'once', title: 'Approve once' }, { id: 'deny', title: 'Deny' }] }), () => {});
  queue.answer('esc', null);
  queue.answer('forged', 'always');
  assert.equal(answers.get('esc'), null);
  assert.equal(answers.get('forged'), null);
  assert.equal(queue.size(), 0);
});

test('a withdrawn prompt leaves the queue; a late click on it does nothing', () => {
  const { queue, answers, changes } = recordingQueue();
  queue.add(prompt('a'), () => {});
  queue.add(prompt('b'), () => {});
  const before = changes();
  assert.ok(queue.withdraw('a'));
  assert.ok(changes() > before, 'the panel is told to redraw');
  assert.equal(queue.current()?.id, 'b');
  assert.equal(answers.get('a'), null);
  assert.equal(queue.answer('a', 'once'), false);
  assert.equal(queue.withdraw('a'), false);
  assert.equal(answers.get('a'), null);
});

test('dispose answers every waiting prompt null exactly once', () => {
  const { queue, answers } = recordingQueue();
  queue.add(prompt('a'), () => {});
  queue.add(prompt('b'), () => {});
  queue.dispose();
  assert.equal(answers.size, 2);
  assert.equal(queue.current(), undefined);
  queue.dispose();
});

test('Deny is the first button and the others keep the server order; only offered ones', () => {
  assert.deepEqual(buttonOrder(prompt('p')).map((c) => c.id), ['deny', 'once', 'session', 'always']);
  const narrow = prompt('p', { choices: [{ id: 'once', title: 'Approve once' }, { id: 'deny', title: 'Deny' }] });
  assert.deepEqual(buttonOrder(narrow).map((c) => c.id), ['deny', 'once']);
});

test('the countdown says the time left and the deadline in local time', () => {
  const deadline = new Date(2030, 0, 1, 14, 5, 31); // local time
  const iso = deadline.toISOString(); // as the server sends it, in UTC
  assert.equal(countdownText(iso, deadline.getTime() - 23_000), '23 s left, until 14:05:31');
  assert.equal(countdownText(iso, deadline.getTime() - 22_500), '23 s left, until 14:05:31');
  assert.equal(countdownText(iso, deadline.getTime() - 243_000), '4 min 3 s left, until 14:05:31');
  assert.equal(countdownText(iso, deadline.getTime()), 'time is up (denied at 14:05:31)');
  assert.equal(countdownText('soon', 0), 'no valid deadline');
});

test('the panel: Deny first and focused, data-choice buttons, the rule preview, nothing unescaped', () => {
  const hostile = prompt('p', { summary: 'bash: echo <script>alert(1)</script>', reason: '"quoted" & <b>' });
  const html = approvalHtml({ prompt: hostile, behind: 2, nonce: 'NONCE', cspSource: 'vscode-resource:', nowMs: 0 });
  const buttons = [...html.matchAll(/<button[^>]*data-choice="([^"]+)"([^>]*)>/g)].map((m) => [m[1], m[2].includes('autofocus')]);
  assert.deepEqual(buttons, [['deny', true], ['once', false], ['session', false], ['always', false]]);
  assert.match(html, /<title>Codewhale approval<\/title>/);
  assert.match(html, /<pre class="preview"><code>\[\[rules\]\]\ntool = &quot;exec_shell&quot;\ncommand = &quot;cargo test&quot;\n<\/code><\/pre>/);
  assert.match(html, /<p class="queue" id="queue">2 more waiting<\/p>/);
  assert.ok(!html.includes('<script>alert'), 'the summary is escaped');
  assert.match(html, /echo &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /&quot;quoted&quot; &amp; &lt;b&gt;/);
  assert.equal([...html.matchAll(/<script nonce="NONCE">/g)].length, 1, 'one script, with the nonce');
  assert.equal([...html.matchAll(/&quot;quoted&quot;/g)].length, 1, 'the reason is said once');
});

test('the panel says who asked, in words, the layer by name, and whose rules decided, escaped', () => {
  const fromHook = prompt('p', { agent: 'claude-code', codewhale: '0.10.1', layer: 6, rule: 'exec_shell' });
  const html = approvalHtml({ prompt: fromHook, behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  assert.match(html, /<p class="who">Claude Code asks to use <code>bash<\/code><\/p>/);
  assert.match(html, /<dt>Decided by<\/dt><dd>layer 6 \(auto-review\), rule exec_shell<\/dd>/);
  assert.match(html, /<dt>Rules of<\/dt><dd>Codewhale 0\.10\.1<\/dd>/);
  assert.ok(!html.includes('Codewhale asks'));
  const own = approvalHtml({ prompt: prompt('q'), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  assert.match(own, /An agent in VS Code asks to use/);
  const odd = approvalHtml({ prompt: prompt('r', { agent: 'x<y>\u202e' }), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  assert.match(odd, /x&lt;y&gt;⟪RLO U\+202E⟫ asks/);
});

test('the panel without an "always" choice shows no preview and says why', () => {
  const html = approvalHtml({ prompt: prompt('p', { choices: [{ id: 'deny', title: 'Deny' }, { id: 'once', title: 'Approve once' }] }), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  assert.ok(!html.includes('class="preview"'));
  assert.match(html, /“Always allow in this repo” is not offered for this call/);
  assert.match(html, /<p class="queue" id="queue"><\/p>/, 'no prompt waits behind it: an empty line');
  // The server's own reason, in the detail, is not doubled.
  const refused = approvalHtml({ prompt: prompt('p', { detail: 'cargo test ("Always allow in this repo" is not offered: a forced hold)', choices: [{ id: 'deny', title: 'Deny' }] }), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  assert.equal([...refused.matchAll(/is not offered/g)].length, 1);
});

test('Restricted Mode: Deny alone, the rule said, and any other answer is a deny', () => {
  const html = approvalHtml({ prompt: prompt('p'), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0, restricted: true });
  const buttons = [...html.matchAll(/<button[^>]*data-choice="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(buttons, ['deny']);
  assert.ok(html.includes(restrictedText.replace(/\(/g, '(')), 'the card says the rule');
  assert.ok(!html.includes('class="preview"'));
  assert.deepEqual(buttonOrder(prompt('p'), false).map((c) => c.id), ['deny']);
  let trusted = false;
  const answers: ApprovalAnswer[] = [];
  const queue = new ApprovalQueue(() => {}, () => trusted);
  queue.add(prompt('a'), (a) => answers.push(a));
  queue.add(prompt('b'), (a) => answers.push(a));
  queue.add(prompt('c'), (a) => answers.push(a));
  queue.answer('a', 'once');
  queue.answer('b', 'deny');
  trusted = true;
  queue.answer('c', 'once');
  assert.deepEqual(answers, [null, { choice: 'deny' }, { choice: 'once' }]);
});

interface FakeEvent { key?: string; altKey?: boolean; ctrlKey?: boolean; metaKey?: boolean; shiftKey?: boolean; repeat?: boolean; isTrusted?: boolean; detail?: number; preventDefault: () => void }

/**
 * Runs the panel's script against a minimal DOM: what it posts for a
 * click (a pointer's, or one a key made), for keys, that only the first
 * answer is posted, where the focus goes, and what a message from the
 * extension changes (a count, or the next card, whose markup replaces the
 * card's). hasFocus says whether the page has the keyboard
 * (document.hasFocus()). Timers run only when the test says (arm).
 * posted holds what the page posts but the cards it says it shows, which
 * shown holds.
 */
function runPanelScript(html: string, hasFocus = true) {
  const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(script, 'the page has its script');
  const posted: unknown[] = [];
  const shown: string[] = [];
  const body = { id: 'body' };
  let active: { id: string } = body;
  type Listener = (e: FakeEvent) => void;
  type FakeButton = ReturnType<typeof makeButtons>[number];
  const makeButtons = (markup: string) => [...markup.matchAll(/<button[^>]*data-choice="([^"]+)"/g)].map((m) => {
    const listeners = new Map<string, Listener[]>();
    const attributes = new Map<string, string>();
    const button = {
      id: m[1], dataset: { choice: m[1] }, disabled: false, listeners, attributes,
      addEventListener: (type: string, f: Listener) => listeners.set(type, [...(listeners.get(type) ?? []), f]),
      setAttribute: (k: string, v: string) => attributes.set(k, v),
      focus: () => { if (!button.disabled) active = button; },
    };
    return button;
  });
  const makeTexts = (markup: string) => {
    const texts = new Map<string, { textContent: string }>();
    for (const m of markup.matchAll(/<p [^>]*id="([^"]+)"[^>]*>([^<]*)<\/p>/g)) {
      texts.set(m[1], { textContent: m[2] });
    }
    return texts;
  };
  let buttons = makeButtons(html);
  let texts = makeTexts(html);
  // #card: new markup is a new card, and the focus leaves with the old one.
  const card = {
    set innerHTML(markup: string) {
      buttons = makeButtons(markup);
      texts = makeTexts(markup);
      active = body;
    },
  };
  const text = (id: string) => {
    const element = texts.get(id);
    assert.ok(element, `the page has a #${id} line`);
    return element;
  };
  const windowListeners = new Map<string, ((e: unknown) => void)[]>();
  const documentListeners = new Map<string, ((e: unknown) => void)[]>();
  const tickers: (() => void)[] = [];
  let visibility = 'visible';
  const fakeDocument = {
    body,
    get activeElement() { return active; },
    get visibilityState() { return visibility; },
    hasFocus: () => hasFocus,
    querySelectorAll: () => buttons,
    querySelector: (sel: string) => buttons.find((b) => sel.includes(`"${b.dataset.choice}"`)),
    getElementById: (id: string) => (id === 'card' ? card : texts.get(id)),
    addEventListener: (type: string, f: (e: unknown) => void) => documentListeners.set(type, [...(documentListeners.get(type) ?? []), f]),
  };
  const fakeWindow = {
    addEventListener: (type: string, f: (e: unknown) => void) => windowListeners.set(type, [...(windowListeners.get(type) ?? []), f]),
    scrollTo: () => {},
  };
  const dispatch = (type: string, e: unknown) => windowListeners.get(type)?.forEach((f) => f(e));
  let timeouts = new Map<number, () => void>();
  let nextTimer = 1;
  const run = new Function('acquireVsCodeApi', 'document', 'window', 'setInterval', 'setTimeout', 'clearTimeout', script);
  const postMessage = (m: unknown) => {
    const said = (m as { shown?: unknown } | null)?.shown;
    if (typeof said === 'string') {
      shown.push(said);
    } else {
      posted.push(m);
    }
  };
  run(() => ({ postMessage }), fakeDocument, fakeWindow, (f: () => void) => { tickers.push(f); },
    (f: () => void) => { timeouts.set(nextTimer, f); return nextTimer++; }, (id: number) => { timeouts.delete(id); });
  const button = (choice: string) => buttons.find((b) => b.dataset.choice === choice);
  const fire = (b: FakeButton | undefined, type: string, e: Partial<FakeEvent>) =>
    b?.listeners.get(type)?.forEach((f) => f({ preventDefault: () => {}, ...e }));
  const pointerClick = (b: FakeButton | undefined) => {
    fire(b, 'pointerdown', { isTrusted: true });
    fire(b, 'click', { isTrusted: true, detail: 1 });
  };
  let prevented = false;
  return {
    posted,
    shown,
    /** A pointer's click: pressed and released on the button. */
    click: (choice: string) => pointerClick(button(choice)),
    /** The button of choice in the card now: a click on it later is one on a button that may have left the page. */
    button,
    clickButton: pointerClick,
    /** The click a browser makes for Enter or Space on a focused button (detail 0). */
    keyClick: (choice: string) => fire(button(choice), 'click', { isTrusted: true, detail: 0 }),
    key: (key: string, mods: Partial<FakeEvent> = {}) => {
      prevented = false;
      dispatch('keydown', { key, ...mods, preventDefault: () => { prevented = true; } });
      return prevented;
    },
    tick: () => tickers.forEach((f) => f()),
    /** The timers run out (the page has been up, untouched, for ARM_MS). */
    arm: () => { const due = [...timeouts.values()]; timeouts = new Map(); due.forEach((f) => f()); },
    hide: () => { visibility = 'hidden'; documentListeners.get('visibilitychange')?.forEach((f) => f({})); },
    show: () => { visibility = 'visible'; documentListeners.get('visibilitychange')?.forEach((f) => f({})); },
    approveInert: (choice: string) => button(choice)?.attributes.get('aria-disabled') === 'true',
    /** The page gets the keyboard (VS Code focuses the webview, or the user clicks into it). */
    gainFocus: () => { hasFocus = true; dispatch('focus', {}); },
    /** The user moves the focus inside the page (Tab). */
    focus: (choice: string) => button(choice)?.focus(),
    /** A message from the extension. */
    message: (data: unknown) => dispatch('message', { data }),
    get countdown() { return text('countdown'); },
    get queueLine() { return text('queue'); },
    focused: () => (active === body ? undefined : active.id),
  };
}

test('the panel script: Deny focused, a click posts its choice once, Esc posts null, Space nothing', () => {
  const html = approvalHtml({ prompt: prompt('cwp_1'), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  const page = runPanelScript(html);
  // Before the page is armed, a click (a double click's second half, on
  // the next queued prompt) answers nothing.
  page.click('once');
  page.click('deny');
  assert.deepEqual(page.posted, []);
  page.arm();
  assert.equal(page.focused(), 'deny');
  page.key(' ');
  assert.deepEqual(page.posted, []);
  page.arm();
  page.click('always');
  page.click('once');
  page.key('Escape');
  assert.deepEqual(page.posted, [{ id: 'cwp_1', choice: 'always' }]);
  const esc = runPanelScript(html);
  esc.key('Escape');
  assert.deepEqual(esc.posted, [{ id: 'cwp_1', choice: null }]);
  esc.tick();
  assert.match(esc.countdown.textContent, /^time is up|left, until \d\d:\d\d:\d\d$/);
});

test('no key typed into the card approves: Enter and Space on an approve button do nothing, every key re-arms', () => {
  const html = approvalHtml({ prompt: prompt('cwp_k'), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  const page = runPanelScript(html);
  page.arm();
  page.focus('once');
  // Enter and Space on a focused approve button: the key is swallowed and
  // the click the browser would make from it (detail 0) is ignored.
  assert.ok(page.key('Enter'), 'Enter on an approve button is prevented');
  page.keyClick('once');
  assert.ok(page.key(' '), 'Space is prevented');
  page.keyClick('once');
  assert.deepEqual(page.posted, []);
  // A key (typing meant for a chat) makes the approve buttons wait again:
  // a click right after it does nothing, nor Alt+Enter.
  page.key('x');
  assert.ok(page.approveInert('once'));
  page.click('once');
  page.key('Alt');
  page.key('Enter', { altKey: true });
  assert.deepEqual(page.posted, []);
  // Untouched for ARM_MS: Alt+Enter on the focused approve button approves.
  page.arm();
  assert.ok(!page.approveInert('once'));
  page.key('Alt');
  page.key('Enter', { altKey: true });
  assert.deepEqual(page.posted, [{ id: 'cwp_k', choice: 'once' }]);
  // Alt+Enter on Deny is no approval; a hidden page re-arms too.
  const other = runPanelScript(html);
  other.arm();
  other.key('Enter', { altKey: true });
  other.hide();
  other.show();
  other.click('session');
  assert.deepEqual(other.posted, []);
  other.arm();
  other.click('session');
  assert.deepEqual(other.posted, [{ id: 'cwp_k', choice: 'session' }]);
});

test('a prompt that arms while the user types elsewhere leaves the focus there; Deny takes it when the page gets it', () => {
  const html = approvalHtml({ prompt: prompt('cwp_2'), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  // The command palette (or an editor) has the keyboard when the buttons arm.
  const page = runPanelScript(html, false);
  page.arm();
  assert.equal(page.focused(), undefined, 'the page took the focus from where the user types');
  page.gainFocus();
  assert.equal(page.focused(), 'deny');
  // The user's own focus inside the page is kept when it comes back.
  page.focus('once');
  page.gainFocus();
  assert.equal(page.focused(), 'once');
  // Focus that comes before the buttons arm gives Deny the focus when they do.
  const early = runPanelScript(html, false);
  early.gainFocus();
  assert.equal(early.focused(), undefined, 'a disarmed button took the focus');
  early.arm();
  assert.equal(early.focused(), 'deny');
});

test('the panel\'s "N more waiting" line follows the counts the extension posts, nothing else', () => {
  const page = runPanelScript(approvalHtml({ prompt: prompt('cwp_3'), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 }));
  assert.equal(page.queueLine.textContent, '');
  page.message({ behind: 2 });
  assert.equal(page.queueLine.textContent, '2 more waiting');
  for (const junk of [{ behind: -1 }, { behind: 1.5 }, { behind: '3' }, null, 'behind']) {
    page.message(junk);
  }
  assert.equal(page.queueLine.textContent, '2 more waiting');
  page.message({ behind: 0 });
  assert.equal(page.queueLine.textContent, '');
  assert.deepEqual(page.posted, [], 'a count answers nothing');
  assert.equal(queueText(1), '1 more waiting');
});

test('the next prompt\'s card, posted into the page on screen, starts over: inert for ARM_MS, its own id and countdown; the old card answers nothing', () => {
  const page = runPanelScript(approvalHtml({ prompt: prompt('cwp_a', { deadline: '2000-01-01T00:00:00Z' }), behind: 1, nonce: 'N', cspSource: 'x', nowMs: 0 }));
  assert.deepEqual(page.shown, ['cwp_a'], 'the page says which card it has');
  assert.equal(page.queueLine.textContent, '1 more waiting');
  page.arm();
  assert.equal(page.focused(), 'deny');
  const oldOnce = page.button('once');
  page.click('deny');
  page.message(nextCard({ prompt: prompt('cwp_b'), behind: 0, nowMs: 0 }));
  assert.deepEqual(page.shown, ['cwp_a', 'cwp_b']);
  assert.equal(page.focused(), undefined, 'the focus left with the old card');
  assert.equal(page.queueLine.textContent, '');
  // A double click's second half, and a press on the card that left, answer nothing.
  page.click('deny');
  page.click('once');
  page.clickButton(oldOnce);
  assert.deepEqual(page.posted, [{ id: 'cwp_a', choice: 'deny' }]);
  assert.ok(page.approveInert('once'));
  page.arm();
  assert.equal(page.focused(), 'deny');
  page.click('once');
  page.click('deny');
  assert.deepEqual(page.posted, [{ id: 'cwp_a', choice: 'deny' }, { id: 'cwp_b', choice: 'once' }]);
  page.tick();
  assert.match(page.countdown.textContent, /left, until \d\d:\d\d:\d\d$/, 'the countdown is the new card\'s');
  // Anything but a whole card is no card.
  for (const junk of [{ card: null }, { card: { id: 1, deadline: 'd', html: '' } }, { card: { id: 'cwp_c', html: '' } }, { card: 'x' }]) {
    page.message(junk);
  }
  assert.deepEqual(page.shown, ['cwp_a', 'cwp_b']);
});

test('the panel: the next prompt goes into the page on screen, else a new page, revealed; a count change on screen only a message', () => {
  const a = prompt('a');
  const b = prompt('b');
  // Nothing waits: the panel closes.
  assert.deepEqual(panelUpdate({ shownId: 'a', htmlId: 'a', htmlBehind: 0, visible: true }, undefined, 0), { kind: 'close' });
  // The first prompt, no panel yet.
  assert.deepEqual(panelUpdate({ shownId: undefined, htmlId: undefined, htmlBehind: 0, visible: false }, a, 2), { kind: 'page', prompt: a, behind: 1, reveal: true });
  // The next one after an answer (or a page VS Code reloaded from an older
  // html, which says it shows a): into the page on screen; a hidden panel
  // has no page, so it gets a new one.
  assert.deepEqual(panelUpdate({ shownId: 'a', htmlId: 'a', htmlBehind: 1, visible: true }, b, 1), { kind: 'card', prompt: b, behind: 0 });
  assert.deepEqual(panelUpdate({ shownId: 'a', htmlId: 'a', htmlBehind: 1, visible: false }, b, 1), { kind: 'page', prompt: b, behind: 0, reveal: true });
  // A prompt queues behind (or leaves from behind) the one on screen: the
  // page the user reads is neither rebuilt nor revealed.
  assert.deepEqual(panelUpdate({ shownId: 'a', htmlId: 'a', htmlBehind: 0, visible: true }, a, 2), { kind: 'count', behind: 1 });
  assert.deepEqual(panelUpdate({ shownId: 'b', htmlId: 'a', htmlBehind: 3, visible: true }, b, 3), { kind: 'count', behind: 2 });
  // Hidden, the page is reloaded from its html when shown again: the html
  // gets the new count, or the card it was posted, without a reveal; once
  // current, nothing to do.
  assert.deepEqual(panelUpdate({ shownId: 'a', htmlId: 'a', htmlBehind: 0, visible: false }, a, 2), { kind: 'page', prompt: a, behind: 1, reveal: false });
  assert.deepEqual(panelUpdate({ shownId: 'b', htmlId: 'a', htmlBehind: 1, visible: false }, b, 2), { kind: 'page', prompt: b, behind: 1, reveal: false });
  assert.deepEqual(panelUpdate({ shownId: 'a', htmlId: 'a', htmlBehind: 1, visible: false }, a, 2), { kind: 'none' });
});
