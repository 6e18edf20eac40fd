// Drives real VS Code (code-server in headless Chromium) through the
// decision log (issue 26): the person answers cards (once, deny, always)
// for the harness agent and for a Claude Code hook call, one call is
// allowed by a rule, then Codewhale: Open decision log shows the
// receipts; the script selects one (log show), photographs the view, and
// filters it by decision and by agent; a call decided then is announced
// in the open view. editors/vscode_log_e2e_test.go
// starts code-server, runs this script and compares its report with the
// decisions.jsonl the server wrote.
//
// Environment (set by the Go test), besides workbench.mjs's:
//   CODEWHALE_E2E_WORKSPACE    the folder opened
//   CODEWHALE_E2E_HARNESS_DIR  the harness's directory
//   CODEWHALE_E2E_CALLS        JSON list of {call} (codewhale.authorize by the
//                              harness) or {hook: {bin, args, cwd, event}}, each
//                              with answer: a choice to click, or "none" (no card)
//   CODEWHALE_E2E_SELECT       text of the row to select (log show) before the screenshot
//   CODEWHALE_E2E_LATER        a call for codewhale.authorize made while the view is open
import { spawn } from 'node:child_process';
import path from 'node:path';
import { env, launch, sleep, workbench } from './workbench.mjs';

const shots = env('CODEWHALE_E2E_SHOTS');
const report = { steps: [], answers: [] };
const step = (what) => {
  report.steps.push(what);
  process.stderr.write(`e2e: ${what}\n`);
};

const { page, close } = await launch({ folder: env('CODEWHALE_E2E_WORKSPACE') });
try {
  step('workbench loaded');
  const w = workbench(page, env('CODEWHALE_E2E_HARNESS_DIR'));
  // The extensions are up once Codewhale's status bar item shows the
  // folder's posture: a command palette opened before lists neither the
  // harness's command nor ours, and does not learn them while open.
  await page.locator('.statusbar-item', { hasText: /: [a-z-]+ · / }).first().waitFor({ timeout: 60_000 });

  // answer clicks the card's choice once it has armed (Playwright waits
  // for aria-disabled to clear), as a person would.
  async function answer(choice) {
    await w.denyButton.waitFor({ timeout: 60_000 });
    await w.prompt.locator(`button[data-choice="${choice}"]`).click({ timeout: 15_000 });
    await w.promptTab.waitFor({ state: 'detached', timeout: 10_000 });
  }

  for (const entry of JSON.parse(env('CODEWHALE_E2E_CALLS'))) {
    if (entry.hook) {
      const { bin, args, cwd, event } = entry.hook;
      const child = spawn(bin, args, { cwd, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.resume();
      const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
      child.stdin.end(JSON.stringify(event));
      await answer(entry.answer);
      report.answers.push({ hook: event.tool_use_id, answer: entry.answer, code: await exited, stdout: out });
      step(`hook ${event.tool_use_id}: ${entry.answer}`);
      continue;
    }
    const startedAt = await w.authorize(entry.call);
    if (entry.answer !== 'none') {
      await answer(entry.answer);
    }
    const decided = await w.decisionOf(entry.call.callId, startedAt);
    report.answers.push({ callId: entry.call.callId, answer: entry.answer, decision: decided.decision, error: decided.error });
    step(`${entry.call.callId}: ${entry.answer} -> ${decided.decision?.decision ?? decided.error}`);
  }

  const viewState = (frame) => frame.locator('body').evaluate((body) => ({
    summary: body.querySelector('#summary')?.textContent ?? '',
    error: body.querySelector('#error')?.textContent ?? null,
    rows: [...body.querySelectorAll('#log tbody tr')].map((tr) => ({ id: tr.dataset.id ?? null, cells: [...tr.cells].map((td) => td.textContent) })),
    detail: body.querySelector('#detail-text')?.textContent ?? '',
    text: body.innerText,
  }));
  // apply submits the filters; the view's next page (not the page they
  // were typed in, marked stale) is the one whose filters are want.
  async function apply(view, want) {
    await view.evaluate(() => { window.e2eStale = true; });
    await view.locator('button[type="submit"]').click();
    return w.logView(`filtered by ${JSON.stringify(want)}`, async (f) => !(await f.evaluate(() => window.e2eStale === true)) && (await filtersAre(want)(f)));
  }
  const filtersAre = (want) => async (frame) => {
    for (const [name, value] of Object.entries(want)) {
      if ((await frame.locator(`[name="${name}"]`).inputValue()) !== value) return false;
    }
    return true;
  };

  // The view gets the window's width, as on a screen with the explorer closed.
  await w.runCommand('View: Close Primary Side Bar');
  const openedAt = Date.now();
  await w.runCommand('Codewhale: Open decision log');
  let view = await w.logView('with rows', async (f) => (await f.locator('#log tbody tr').count()) > 0 || (await f.locator('#error').count()) > 0);
  report.openMs = Date.now() - openedAt;
  report.all = await viewState(view);
  step(`decision log: ${report.all.summary} (${report.openMs} ms)`);

  // A row selected: log show's explanation under the table.
  const row = view.locator('tr[data-id]', { hasText: env('CODEWHALE_E2E_SELECT') }).first();
  const selectedId = await row.getAttribute('data-id');
  await row.click();
  const detail = view.locator('#detail-text');
  const end = Date.now() + 30_000;
  while (/^codewhale-ls log show .* …$|^$/.test((await detail.textContent()) ?? '')) {
    if (Date.now() > end) throw new Error('log show did not answer within 30 s');
    await sleep(100);
  }
  report.selected = { id: selectedId, detail: await detail.textContent() };
  await page.screenshot({ path: path.join(shots, 'vscode-decision-log.png') });
  step(`row ${selectedId} selected; screenshot taken`);

  // Filters: deny only, then one agent's.
  await view.locator('select[name="decision"]').selectOption('deny');
  view = await apply(view, { decision: 'deny' });
  report.deny = await viewState(view);
  step(`decision deny: ${report.deny.summary}`);

  await view.locator('select[name="decision"]').selectOption('');
  await view.locator('input[name="agent"]').fill('claude-code');
  view = await apply(view, { decision: '', agent: 'claude-code' });
  report.agent = await viewState(view);
  step(`agent claude-code: ${report.agent.summary}`);

  // A decision made while the view is open: the view says so, and keeps
  // its table and filters until the person refreshes.
  const later = JSON.parse(env('CODEWHALE_E2E_LATER'));
  await w.decisionOf(later.callId, await w.authorize(later));
  await view.locator('#newer').waitFor({ state: 'visible', timeout: 15_000 });
  report.newer = { text: await view.locator('#newer').textContent(), agent: await view.locator('input[name="agent"]').inputValue() };
  step(`a later decision: ${report.newer.text}`);
} catch (err) {
  const shot = path.join(shots, 'failure-log.png');
  await page.screenshot({ path: shot }).catch(() => {});
  process.stderr.write(`e2e: failed; the screen is in ${shot}\n`);
  throw err;
} finally {
  await close();
}
process.stdout.write(JSON.stringify(report) + '\n');
