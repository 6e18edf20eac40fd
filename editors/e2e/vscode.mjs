// Drives real VS Code (code-server in headless Chromium, over CDP with
// playwright-core) through what a user of the Codewhale extension does:
// open policy files and see their problems, and answer approval prompts that
// an agent extension (the harness) asks for, by clicking in the prompt.
// editors/vscode_e2e_test.go starts code-server, runs this script and checks
// the JSON report it prints on stdout; every wait here has a bound, and a
// step that fails throws, which ends the script with a non-zero exit.
//
// Environment (all set by the Go test):
//   CODEWHALE_E2E_DIR          where playwright-core is installed
//   CODEWHALE_E2E_URL          code-server's address
//   CODEWHALE_E2E_WORKSPACE    the fixture workspace (opened as the folder)
//   CODEWHALE_E2E_OPEN         JSON list of files to open, workspace-relative or absolute
//   CODEWHALE_E2E_HARNESS_DIR  where the harness reads calls and writes decisions
//   CODEWHALE_E2E_CALLS        JSON list of {call, answer}: answer is a choice id to
//                              click, "escape" to press Esc, or "wait" to let it time out
//   CODEWHALE_E2E_QUEUE        two {call, answer} asked at once, answered in order
//   CODEWHALE_E2E_CARDS        JSON list of {call, shot}: cards to inspect, photograph and deny
//   CODEWHALE_E2E_KEYS         two {call}: one typed at (then denied), one approved with Alt+Enter
//   CODEWHALE_E2E_SHOTS        directory for the screenshots
//   CODEWHALE_E2E_BROWSER_PID  file to write Chromium's pid to (the Go test kills its group)
import path from 'node:path';
import { env, launch, workbench } from './workbench.mjs';

const workspace = env('CODEWHALE_E2E_WORKSPACE');
const harnessDir = env('CODEWHALE_E2E_HARNESS_DIR');
const shots = env('CODEWHALE_E2E_SHOTS');
const filesToOpen = JSON.parse(env('CODEWHALE_E2E_OPEN'));
const calls = JSON.parse(env('CODEWHALE_E2E_CALLS'));

const report = { steps: [], files: [], approvals: [] };
const step = (what) => {
  report.steps.push(what);
  process.stderr.write(`e2e: ${what}\n`);
};

const { page, close } = await launch({ folder: workspace });
try {
  step('workbench loaded');

  const { quickInput, runCommand, openWithDiagnostics, authorize, decisionOf, watchForPrompt, promptSeenAt, prompt, promptTab, denyButton, promptText } = workbench(page, harnessDir);

  // Problems panel rows for one file: the file row ("config.toml  .codewhale
  // 1") is followed by its markers; markers carry "[Ln L, Col C]".
  async function problemsOf(fileName) {
    return page.evaluate((name) => {
      const rows = [...document.querySelectorAll('.markers-panel .monaco-list-row')];
      const out = [];
      let inFile = false;
      for (const row of rows) {
        const text = row.innerText.replace(/\s+/g, ' ').trim();
        if (row.querySelector('.file-icon, .resource-label, .monaco-icon-label.file-icon')) {
          inFile = row.getAttribute('aria-label')?.includes(name) || text.startsWith(name);
          continue;
        }
        if (inFile) out.push(text);
      }
      return out;
    }, fileName);
  }

  await page.keyboard.press('Control+Shift+M'); // the Problems panel
  await page.locator('.markers-panel').waitFor();
  step('problems panel open');

  const opened = [];
  for (const file of filesToOpen) {
    const absolute = path.isAbsolute(file) ? file : path.join(workspace, file);
    const name = path.basename(absolute);
    const ms = await openWithDiagnostics(absolute);
    opened.push({ absolute, name, ms });
    step(`${file}: diagnostics visible ${ms} ms after opening`);
  }
  // The Problems panel's list is virtual (only rows on screen exist):
  // maximised, it holds every row of the three files.
  await runCommand('View: Toggle Maximized Panel');
  for (const { absolute, name, ms } of opened) {
    const fileRow = page.locator('.markers-panel .monaco-list-row', { hasText: name }).filter({ hasText: path.basename(path.dirname(absolute)) });
    await fileRow.first().waitFor();
    const problems = await problemsOf(name);
    report.files.push({ path: absolute, openToDiagnosticsMs: ms, problems });
  }
  await runCommand('View: Toggle Maximized Panel');
  // The status bar's problem counts: each problem counted once.
  report.problemCounts = await page.locator('.statusbar-item[id="status.problems"]').getAttribute('aria-label');
  await page.screenshot({ path: path.join(shots, 'vscode-diagnostics.png') });
  step('diagnostics screenshot taken');
  // The prompt gets the whole editor area, as on a screen with the panel closed.
  await runCommand('View: Toggle Panel Visibility');
  await page.locator('.markers-panel').waitFor({ state: 'hidden' });

  // denyGetsFocus says whether Deny has the focus within 3 s.
  const denyGetsFocus = () => denyButton.evaluate((b) => new Promise((resolve) => {
    const deadline = Date.now() + 3000;
    const poll = () => (b === document.activeElement || Date.now() > deadline ? resolve(b === document.activeElement) : setTimeout(poll, 20));
    poll();
  }));

  // waitingInStatusBar is the text of the status bar item that counts the
  // prompts waiting, once it shows a count.
  async function waitingInStatusBar() {
    const item = page.locator('.statusbar-item', { hasText: /\d+ waiting/ }).first();
    await item.waitFor({ timeout: 10_000 });
    return (await item.innerText()).replace(/\s+/g, ' ').trim();
  }

  // answerPrompt answers the prompt on screen as a user would: a click on
  // a choice, Esc, or nothing at all ("wait").
  async function answerPrompt(answer) {
    if (answer === 'escape') {
      await denyButton.focus();
      await denyButton.press('Escape');
    } else if (answer !== 'wait') {
      await prompt.locator(`button[data-choice="${answer}"]`).click();
    }
  }

  for (const [index, { call, answer }] of calls.entries()) {
    await watchForPrompt();
    const startedAt = await authorize(call);
    const entry = { callId: call.callId, shows: call.input.command ?? call.input.path, answer, authorizeToPromptMs: (await promptSeenAt()) - startedAt };
    await denyButton.waitFor();
    entry.buttons = await prompt.locator('button[data-choice]').evaluateAll((buttons) => buttons.map((b) => b.dataset.choice));
    // The buttons arm (and Deny takes the focus) 500 ms after the page
    // appears, so that a double click cannot answer it unread.
    entry.denyFocused = await denyGetsFocus();
    entry.text = await promptText();
    const preview = prompt.locator('pre.preview');
    entry.preview = (await preview.count()) > 0 ? await preview.innerText() : null;
    if (index === 0) {
      await page.screenshot({ path: path.join(shots, 'vscode-approval.png') });
      step('approval screenshot taken');
    }
    entry.statusBar = await waitingInStatusBar();
    await answerPrompt(answer);
    Object.assign(entry, await decisionOf(call.callId, startedAt));
    // The prompt leaves the screen: answered, or withdrawn by the server.
    await promptTab.waitFor({ state: 'detached', timeout: 10_000 });
    entry.promptGoneAfterMs = Date.now() - startedAt;
    if (answer === 'always') {
      // The open, unmodified permissions.toml shows the saved rule.
      const rule = entry.preview.trim().split('\n').find((line) => line.startsWith('path'));
      await page.locator('.tabs-container .tab[aria-label*="permissions.toml"]').first().click();
      const editor = page.locator('.monaco-editor[data-uri$="/permissions.toml"] .view-lines');
      await editor.filter({ hasText: rule }).waitFor({ timeout: 10_000 });
      entry.editorShowsRule = rule;
    }
    report.approvals.push(entry);
    step(`${call.callId}: ${answer} -> ${entry.decision?.decision ?? entry.error}`);
  }

  // The spoofing strings: each card must show every invisible or
  // reordering character as a visible escape (no raw one reaches the
  // DOM), newlines as markers, and a long value's end; each is
  // photographed for the README, then denied.
  report.cards = [];
  for (const { call, shot } of JSON.parse(env('CODEWHALE_E2E_CARDS'))) {
    await watchForPrompt();
    const startedAt = await authorize(call);
    const card = { callId: call.callId, authorizeToPromptMs: (await promptSeenAt()) - startedAt };
    await denyButton.waitFor();
    Object.assign(card, await prompt.locator('body').evaluate((body) => ({
      text: body.innerText,
      // Direction controls, zero-width and other invisible characters,
      // anywhere in the page's text.
      rawInvisible: [...body.textContent.matchAll(/[\u0000-\u0009\u000b-\u001f\u007f-\u00a0\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202f\u205f-\u206f\u3164\ufeff]/gu)].map((m) => m[0].codePointAt(0).toString(16)),
      escapes: [...body.querySelectorAll('.esc')].map((e) => e.textContent),
      newlineMarkers: body.querySelectorAll('pre.value .nl').length,
      tail: body.querySelector('pre.tail')?.textContent ?? null,
      facts: [...body.querySelectorAll('.facts')].map((e) => e.textContent),
    })));
    await page.screenshot({ path: path.join(shots, shot) });
    await denyButton.click();
    Object.assign(card, await decisionOf(call.callId, startedAt));
    await promptTab.waitFor({ state: 'detached', timeout: 10_000 });
    report.cards.push(card);
    step(`${call.callId}: card photographed as ${shot}`);
  }

  // Keys cannot approve: typing that lands in the card as it opens, and
  // Enter and Space on a focused approve button, answer nothing; the
  // click on Deny that follows is what the call gets. Then the keyboard's
  // deliberate way: Alt+Enter on a focused approve button, untouched.
  const [typed, keyed] = JSON.parse(env('CODEWHALE_E2E_KEYS'));
  report.keys = {};
  {
    const startedAt = await authorize(typed.call);
    await denyButton.waitFor();
    await page.keyboard.type('yes\n ');
    const once = prompt.locator('button[data-choice="once"]');
    await prompt.locator('button[data-choice="once"]:enabled').waitFor();
    await once.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press(' ');
    await page.keyboard.press('Enter');
    report.keys.inertWhileTyping = (await once.getAttribute('aria-disabled')) === 'true';
    await denyButton.click();
    report.keys.typed = await decisionOf(typed.call.callId, startedAt);
    await promptTab.waitFor({ state: 'detached', timeout: 10_000 });
  }
  {
    const startedAt = await authorize(keyed.call);
    const once = prompt.locator('button[data-choice="once"]');
    await prompt.locator('button[data-choice="once"]:enabled').waitFor();
    await once.focus();
    await prompt.locator('button[data-choice="once"][aria-disabled="false"]').waitFor({ timeout: 10_000 });
    await page.keyboard.press('Alt+Enter');
    report.keys.altEnter = await decisionOf(keyed.call.callId, startedAt);
    await promptTab.waitFor({ state: 'detached', timeout: 10_000 });
  }
  step('keys: typing and Enter/Space approve nothing; Alt+Enter on a focused, untouched approve button does');

  // Two agents' calls at once: the panel shows the oldest and says another
  // waits; answering it brings up the next. The user opens the command
  // palette for the second call as soon as the first prompt shows, so its
  // buttons arm (500 ms after it appeared) before the palette opened or
  // while it is open, as the timing falls; the user waits until they have
  // armed before typing, and the keyboard must still be in the palette:
  // a prompt arming meanwhile leaves it alone.
  const [first, second] = JSON.parse(env('CODEWHALE_E2E_QUEUE'));
  report.queue = { answers: [] };
  const firstStarted = await authorize(first.call);
  await prompt.locator('body', { hasText: first.call.input.command }).waitFor();
  // A mark in the page: it survives only if the page is not rebuilt.
  await denyButton.evaluate(() => { window.e2eFirstPage = true; });
  const secondStarted = await authorize(second.call, async () => {
    report.queue.armedBeforePalette = await denyButton.isEnabled();
    await prompt.locator('button[data-choice="deny"]:enabled').waitFor({ timeout: 10_000 });
    if (!await quickInput.evaluate((input) => input === document.activeElement)) {
      throw new Error('the approval prompt took the keyboard from the open command palette as its buttons armed');
    }
  });
  await prompt.locator('body', { hasText: /1 more waiting/i }).waitFor({ timeout: 10_000 });
  report.queue.waitingText = await promptText();
  // The count changed in place: the page the user reads was not rebuilt.
  report.queue.samePage = await denyButton.evaluate(() => window.e2eFirstPage === true);
  // The palette closed: the keyboard is back on the prompt, on Deny.
  report.queue.denyFocusedAfterPalette = await denyGetsFocus();
  await page.locator('.statusbar-item', { hasText: '2 waiting' }).waitFor({ timeout: 10_000 });
  report.queue.statusBar = await waitingInStatusBar();
  await page.screenshot({ path: path.join(shots, 'vscode-approval-queue.png') });
  // From the click's arrival in the first card's page to the frame that
  // shows the next card.
  await denyButton.evaluate((b) => b.ownerDocument.addEventListener('click', () => { window.top.codewhaleE2EAnsweredAt = Date.now(); }, { capture: true, once: true }));
  await watchForPrompt();
  await answerPrompt(first.answer);
  report.queue.nextCardAfterAnswerMs = (await promptSeenAt()) - await page.evaluate(() => window.codewhaleE2EAnsweredAt);
  report.queue.answers.push({ callId: first.call.callId, answer: first.answer, ...await decisionOf(first.call.callId, firstStarted) });
  await prompt.locator('body', { hasText: second.call.input.command }).waitFor({ timeout: 10_000 });
  report.queue.nextText = await promptText();
  await answerPrompt(second.answer);
  report.queue.answers.push({ callId: second.call.callId, answer: second.answer, ...await decisionOf(second.call.callId, secondStarted) });
  await promptTab.waitFor({ state: 'detached', timeout: 10_000 });
  step('queued prompts answered in order');
} catch (err) {
  // What the screen showed when a step failed, for the failure's report.
  const shot = path.join(shots, 'failure.png');
  await page.screenshot({ path: shot }).catch(() => {});
  process.stderr.write(`e2e: failed; the screen is in ${shot}\n`);
  throw err;
} finally {
  await close();
}
process.stdout.write(JSON.stringify(report) + '\n');
