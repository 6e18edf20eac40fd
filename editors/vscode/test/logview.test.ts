// The decision log view (src/logView.ts) and the output channel's
// decision line: what they run, what they show, and that a receipt's
// text is never drawn as HTML nor a token shown that the server masked.
import * as assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { Decision, decisionLine } from '../src/decision';
import { defaultLimit, filtersFrom, localTime, logArgs, logDetail, logFile, LogFilters, logSummary, logViewHtml, maxLimit, newerText, noFilters, oneLine, parseReceipts, Receipt, repoFilter, rowOf, runLog, shortPath, showArgs } from '../src/logView';

const mask = '⟪secret: github token⟫';

/** A v1 receipt as the server writes it: its texts already masked and made visible. */
const personDeny: Receipt = {
  v: 1, id: 'k3f9x2ab7q', time: '2026-12-06T13:14:02.123456789Z', agent: 'codex', repo: '/home/u/src/app', tool: 'exec_shell',
  input: [{ field: 'command', text: `curl -H 'Authorization: token ${mask}' https://api.github.com/user⏎\necho done`, bytes: 96 }],
  decision: 'deny', layer: 8, layerName: 'approval', rule: null, approval: { choice: 'deny', source: 'prompt' },
  decider: { kind: 'person', summary: 'you, in Visual Studio Code 1.139.1: denied', answer: 'deny', where: 'Visual Studio Code 1.139.1' },
};

/** A line written before receipts (no "v"): no id, no input, no decider. */
const oldLine: Receipt = {
  time: '2026-12-01T08:00:00Z', tool: 'write_file', decision: 'allow', layer: 8, layerName: 'approval', rule: null,
  approval: { choice: 'once', source: 'prompt' }, agent: 'claude-code', shown: 'notes.txt',
};

test('filters from the page: each checked, the rest no filter', () => {
  assert.deepEqual(filtersFrom(undefined), noFilters);
  assert.deepEqual(filtersFrom({ agent: ' codex ', decision: 'deny', since: '2h', repo: '.', tool: 'exec_shell', limit: '50' }),
    { agent: 'codex', decision: 'deny', since: '2h', repo: '.', tool: 'exec_shell', limit: 50 });
  assert.equal(filtersFrom({ decision: 'maybe' }).decision, '');
  assert.equal(filtersFrom({ agent: 42 }).agent, '');
  assert.equal(filtersFrom({ limit: 0 }).limit, defaultLimit);
  assert.equal(filtersFrom({ limit: '1e9' }).limit, 1);
  assert.equal(filtersFrom({ limit: 10 ** 9 }).limit, maxLimit);
  assert.equal(filtersFrom({ tool: 'x'.repeat(10_000) }).tool.length, 500);
});

test('log --json arguments: one --flag=value each, so no value is taken for a flag', () => {
  const f: LogFilters = { agent: '--file=/etc/shadow', decision: 'ask', since: '2026-12-05', repo: '.', tool: '', limit: 20 };
  assert.deepEqual(logArgs(f, '/w/app', '/logs/d.jsonl'),
    ['log', '--json', '--limit=20', '--since=2026-12-05', '--agent=--file=/etc/shadow', '--decision=ask', '--repo=/w/app', '--file=/logs/d.jsonl']);
  assert.deepEqual(logArgs(noFilters, undefined, undefined), ['log', '--json', `--limit=${defaultLimit}`]);
  assert.deepEqual(showArgs('k3f9x2ab7q', undefined), ['log', 'show', 'k3f9x2ab7q']);
  assert.deepEqual(showArgs('k3f9x2ab7q', '/logs/d.jsonl'), ['log', 'show', 'k3f9x2ab7q', '--file=/logs/d.jsonl']);
  for (const bad of ['-h', '--file=/x', '../x', 'a b', '', 'x'.repeat(65)]) {
    assert.equal(showArgs(bad, undefined), undefined, bad);
  }
});

test('the repository filter: . is the window\'s folder, ~ is home, a relative path is refused', () => {
  assert.deepEqual(repoFilter('', '/w/app', '/home/u'), {});
  assert.deepEqual(repoFilter('.', '/w/app', '/home/u'), { repo: '/w/app' });
  assert.match(repoFilter('.', undefined, '/home/u').error ?? '', /no folder on disk/);
  assert.deepEqual(repoFilter('~/src/app', undefined, '/home/u'), { repo: '/home/u/src/app' });
  assert.deepEqual(repoFilter('/srv/app', undefined, '/home/u'), { repo: '/srv/app' });
  assert.match(repoFilter('src/app', '/w/app', '/home/u').error ?? '', /not an absolute path/);
});

test('the log file: the setting\'s, else the binary\'s default; off says there is none', () => {
  assert.deepEqual(logFile(''), {});
  assert.deepEqual(logFile(' /logs/d.jsonl '), { file: '/logs/d.jsonl' });
  assert.match(logFile('off').error ?? '', /codewhale.decisionLog is off/);
});

test('receipts: v1 and older lines both read; a line that is not one is counted', () => {
  const out = [JSON.stringify(oldLine), '', 'not json', '[1]', JSON.stringify(personDeny)].join('\n') + '\n';
  const { receipts, unreadable } = parseReceipts(out);
  assert.equal(receipts.length, 2);
  assert.equal(unreadable, 2);
  assert.equal(logSummary(2, noFilters, '/logs/d.jsonl', unreadable), '2 decisions from /logs/d.jsonl, newest first. 2 lines were not a receipt.');
  assert.equal(logSummary(0, { ...noFilters, decision: 'deny' }, undefined, 0), 'No decisions matching the filters.');
  assert.match(logSummary(20, { ...noFilters, limit: 20 }, undefined, 0), /the newest 20: raise Limit/);
});

test('a row: local time, ~-shortened repository, the call on one line, who decided', () => {
  const row = rowOf(personDeny, '/home/u');
  assert.equal(row.id, 'k3f9x2ab7q');
  assert.equal(row.time, localTime(personDeny.time as string));
  assert.match(row.time, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  assert.equal(row.agent, 'codex');
  assert.equal(row.repo, '~/src/app');
  assert.equal(row.decision, 'deny');
  assert.equal(row.what, `exec_shell curl -H 'Authorization: token ${mask}' https://api.github.com/user⏎ echo done`);
  assert.equal(row.decidedBy, 'you, in Visual Studio Code 1.139.1: denied');
  const old = rowOf(oldLine, '/home/u');
  assert.equal(old.id, undefined, 'an older line has no id for log show');
  assert.equal(old.what, 'write_file notes.txt');
  assert.equal(old.decidedBy, 'layer 8 approval, once (prompt)');
  assert.equal(rowOf({ tool: 'bash', id: '../etc' }, '/home/u').id, undefined);
  assert.equal(rowOf({ tool: 'bash' }, '/home/u').agent, '—', 'the editor\'s own calls have no agent');
});

test('shortPath and oneLine', () => {
  assert.equal(shortPath('/home/u', '/home/u'), '~');
  assert.equal(shortPath('/home/user2/x', '/home/u'), '/home/user2/x');
  assert.equal(oneLine('a\nb\r\nc', 80), 'a⏎ b⏎ c');
  assert.equal(oneLine('x'.repeat(200), 10), 'x'.repeat(9) + '…');
  // Anything invisible that still reached the view is escaped.
  assert.equal(oneLine('ls \u202e#', 80), 'ls ⟪RLO U+202E⟫#');
});

test('the page: every receipt text escaped, no script but its own, a strict CSP', () => {
  const hostile: Receipt = {
    ...personDeny, id: 'h1', agent: '<b>codex</b>\u202e', repo: '/w/"><script>alert(1)</script>',
    input: [{ field: 'command', text: '<img src=x onerror=alert(1)> &amp; ⟪secret: password⟫', bytes: 40 }],
    decider: { kind: 'rule', summary: '</td></tr><script>alert(2)</script>' },
  };
  const html = logViewHtml({ filters: { ...noFilters, agent: '"><script>alert(3)</script>' }, rows: [rowOf(hostile, '/home/u')], summary: '1 <decision>' }, 'NONCE', 'vscode-resource:');
  assert.equal(html.match(/<script/g)?.length, 1, 'only the page\'s own script');
  assert.ok(!html.includes('<img'), 'no tag from a receipt');
  assert.ok(!html.includes('<b>codex'), 'no tag from a receipt');
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt; &amp;amp;'));
  assert.ok(html.includes('⟪RLO U+202E⟫'), 'a direction control in a receipt shows as an escape');
  assert.ok(html.includes('value="&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"'), 'a typed filter goes back escaped');
  assert.ok(html.includes('1 &lt;decision&gt;'));
  assert.match(html, /content="default-src 'none'; style-src vscode-resource: 'nonce-NONCE'; script-src 'nonce-NONCE';"/);
  assert.ok(!/innerHTML|insertAdjacentHTML|outerHTML|eval\(|new Function/.test(html), 'the script never renders HTML');
  assert.ok(html.includes('detail.textContent = d.text'), 'log show\'s output goes in as text');
  assert.match(html, /<tr class="d-deny" data-id="h1" tabindex="0"><td class="c0" title="[^"<>]*">/);
  assert.ok(html.includes('title="&lt;b&gt;codex&lt;/b&gt;⟪RLO U+202E⟫"'), 'a cell\'s title is escaped too');
  assert.ok(html.includes('<option value="" selected>any</option>'));
  assert.ok(html.includes(`<p class="newer" id="newer" hidden>${newerText}</p>`), 'a later decision is said, the table kept');
  const error = logViewHtml({ filters: noFilters, rows: [], summary: '', error: 'codewhale-ls log failed: <x>' }, 'N', 'c');
  assert.ok(error.includes('role="alert">codewhale-ls log failed: &lt;x&gt;</p>'));
});

test('log show\'s output goes to the page as visible text', () => {
  assert.deepEqual(logDetail('k1', 'layer 8\u200b approval\n', false), { detail: { id: 'k1', text: 'layer 8⟪ZWSP U+200B⟫ approval\n', error: false } });
});

test('the output channel prints the decision the server announced, masked, and nothing else', () => {
  // codewhale/decision as the server sends it: its input masked
  // (approvals.MaskDecision). The line is made from it alone.
  const announced: Decision = {
    decision: 'deny', layer: 8, layerName: 'approval', reason: 'denied by you', rule: null, callId: 'c1', trace: [],
    approval: { choice: 'deny', source: 'prompt' }, input: { command: `curl -H 'Authorization: token ${mask}' https://api.github.com/user` },
  };
  const line = decisionLine(announced);
  assert.ok(line.includes(mask), line);
  assert.ok(!/ghp_/.test(line), line);
  // No input in the notification: the line names no command, however the
  // call was made (the extension never looks for it elsewhere).
  const withoutInput: Decision = { ...announced };
  delete withoutInput.input;
  assert.equal(decisionLine(withoutInput), 'DENY at layer 8 approval (approval: deny/prompt): denied by you');
});

// runLog, on scripts standing in for codewhale-ls: what each failure says,
// and that no child outlives its bound or its abort.
const scripts = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'codewhale-logview-')));
after(() => fs.rmSync(scripts, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const file = path.join(scripts, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o700 });
  return file;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pidFile: string): Promise<void> {
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  const end = Date.now() + 5000;
  while (alive(pid) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(!alive(pid), `the child ${pid} is still running`);
}

test('runLog: what the binary printed, with its arguments as given', { skip: process.platform === 'win32' }, async () => {
  const echo = script('echo', 'for a in "$@"; do printf "%s\\n" "$a"; done');
  const r = await runLog(cp.execFile, echo, ['log', '--json', '--agent=-x y'], new AbortController().signal);
  assert.deepEqual(r, { stdout: 'log\n--json\n--agent=-x y\n' });
});

test('runLog: each failure in words, with what to do', { skip: process.platform === 'win32' }, async () => {
  const signal = new AbortController().signal;
  const missing = await runLog(cp.execFile, path.join(scripts, 'nope'), ['log'], signal);
  assert.match((missing as { error: string }).error, /Could not run .*nope \(ENOENT\)\. Set codewhale\.server\.path/);
  const usage = await runLog(cp.execFile, script('usage', 'echo "codewhale-ls log: unknown flag --sinse" >&2; exit 2'), ['log'], signal);
  assert.match((usage as { error: string }).error, /usage log failed \(exit 2\): codewhale-ls log: unknown flag --sinse\. Check the filters\./);
  const unreadable = await runLog(cp.execFile, script('unreadable', 'echo "codewhale-ls log: /x/d.jsonl is a FIFO, not a file" >&2; exit 1'), ['log'], signal);
  assert.match((unreadable as { error: string }).error, /exit 1\): codewhale-ls log: \/x\/d\.jsonl is a FIFO, not a file\.$/);
  // A codewhale-ls from before the log command: its message, not the usage after it.
  const older = await runLog(cp.execFile, script('older', 'printf \'codewhale-ls: unknown command "log"\\nusage: codewhale-ls [serve]\\n       codewhale-ls check\\n\' >&2; exit 1'), ['log'], signal);
  assert.match((older as { error: string }).error, /older log failed \(exit 1\): codewhale-ls: unknown command "log"\. \S+ may be older than the log command: update codewhale-ls\.$/);
  const big = await runLog(cp.execFile, script('big', 'head -c 2000 /dev/zero'), ['log'], signal, undefined, { maxBytes: 1000 });
  assert.match((big as { error: string }).error, /printed more than .*: lower Limit or narrow the filters/);
});

test('runLog: a binary that hangs is stopped at the bound', { skip: process.platform === 'win32' }, async () => {
  const pidFile = path.join(scripts, 'hang.pid');
  const hang = script('hang', `echo $$ > ${pidFile}; exec sleep 60`);
  const started = Date.now();
  const r = await runLog(cp.execFile, hang, ['log'], new AbortController().signal, undefined, { timeoutMs: 300 });
  assert.match((r as { error: string }).error, /did not finish within 0\.3 s and was stopped/);
  assert.ok(Date.now() - started < 10_000);
  await gone(pidFile);
});

test('runLog: an abort (a newer run, the panel closing) ends the child', { skip: process.platform === 'win32' }, async () => {
  const pidFile = path.join(scripts, 'abort.pid');
  const hang = script('abort', `echo $$ > ${pidFile}; exec sleep 60`);
  const run = new AbortController();
  const pending = runLog(cp.execFile, hang, ['log'], run.signal);
  const end = Date.now() + 5000;
  while (!fs.existsSync(pidFile) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 20));
  }
  run.abort();
  assert.deepEqual(await pending, { aborted: true });
  await gone(pidFile);
});
