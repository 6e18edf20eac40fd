import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApprovalAnswer, ApprovalPrompt, ApprovalQueue, buttonOrder, countdownText } from '../src/approvals';
import { approvalHtml } from '../src/approvalHtml';

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
  assert.match(html, /2 more waiting/);
  assert.ok(!html.includes('<script>alert'), 'the summary is escaped');
  assert.match(html, /echo &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /&quot;quoted&quot; &amp; &lt;b&gt;/);
  assert.equal([...html.matchAll(/<script nonce="NONCE">/g)].length, 1, 'one script, with the nonce');
  assert.match(html, /e\.key === 'Escape'\) \{ e\.preventDefault\(\); answer\(null\); \}/);
});

test('the panel without an "always" choice shows no preview', () => {
  const html = approvalHtml({ prompt: prompt('p', { choices: [{ id: 'deny', title: 'Deny' }, { id: 'once', title: 'Approve once' }] }), behind: 0, nonce: 'N', cspSource: 'x', nowMs: 0 });
  assert.ok(!html.includes('class="preview"'));
  assert.ok(!html.includes('more waiting'));
});

/**
 * Runs the panel's script against a minimal DOM: what it posts for a
 * click, for Esc, for Space, and that only the first answer is posted.
 */
function runPanelScript(html: string): { posted: unknown[]; click: (choice: string) => void; key: (key: string) => void; tick: () => void; arm: () => void; countdown: { textContent: string }; focused: () => string | undefined } {
  const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(script, 'the page has its script');
  const posted: unknown[] = [];
  const buttons = [...html.matchAll(/data-choice="([^"]+)"/g)].map((m) => {
    const listeners: (() => void)[] = [];
    return { dataset: { choice: m[1] }, listeners, addEventListener: (_: string, f: () => void) => listeners.push(f), focus: () => { focused = m[1]; } };
  });
  let focused: string | undefined;
  const keyListeners: ((e: { key: string; preventDefault: () => void }) => void)[] = [];
  const countdown = { textContent: '' };
  let tickers: (() => void)[] = [];
  const fakeDocument = {
    querySelectorAll: () => buttons,
    querySelector: (sel: string) => buttons.find((b) => sel.includes(`"${b.dataset.choice}"`)),
    getElementById: () => countdown,
  };
  const fakeWindow = { addEventListener: (_: string, f: (e: { key: string; preventDefault: () => void }) => void) => keyListeners.push(f) };
  const timeouts: (() => void)[] = [];
  const run = new Function('acquireVsCodeApi', 'document', 'window', 'setInterval', 'setTimeout', script);
  run(() => ({ postMessage: (m: unknown) => posted.push(m) }), fakeDocument, fakeWindow, (f: () => void) => { tickers.push(f); }, (f: () => void) => { timeouts.push(f); });
  return {
    posted,
    click: (choice) => buttons.find((b) => b.dataset.choice === choice)?.listeners.forEach((f) => f()),
    key: (key) => keyListeners.forEach((f) => f({ key, preventDefault: () => {} })),
    tick: () => tickers.forEach((f) => f()),
    arm: () => timeouts.splice(0).forEach((f) => f()),
    countdown,
    focused: () => focused,
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
