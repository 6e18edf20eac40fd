// Drives real VS Code (code-server in headless Chromium) as the person at
// the editor while agents ask from a repository without .codewhale/
// (issue 25): it opens the repository's source file, then answers each
// card that comes as the plan says, by clicking or typing in the card.
// editors/vscode_repos_e2e_test.go starts code-server and the agents (or
// hook calls), runs this script beside them and checks the JSON report it
// prints on stdout. The two meet through files in CODEWHALE_E2E_SYNC.
//
// Environment (set by the Go test), besides workbench.mjs's:
//   CODEWHALE_E2E_OPEN_PARAMS  JSON {folder} for the workbench URL
//   CODEWHALE_E2E_SOURCE_FILE  a source file of the repository, opened first
//   CODEWHALE_E2E_SYNC         the directory the script and the test meet in:
//                              the script writes ready.json once the file is
//                              open and card-N.json once card N is answered
//                              and gone; it opens policy-N.json's {path}
//                              when the test writes one, before card N; it
//                              ends when the test writes done.json
//   CODEWHALE_E2E_PLAN         JSON list of {name, answer}: answer is deny
//                              (click), esc (Escape in the card), once
//                              (click, once the buttons have armed) or
//                              deadline (no answer); name names the
//                              screenshot (vscode-NAME.png)
//   CODEWHALE_E2E_AWAY         "1": before each card, once the test writes
//                              away-N.json, the window loses the focus
//                              (the page says so; then away-N-ready.json),
//                              and the report says what the person is told
import fs from 'node:fs';
import path from 'node:path';
import { env, launch, sleep, waitForFile, workbench } from './workbench.mjs';

const shots = env('CODEWHALE_E2E_SHOTS');
const sync = env('CODEWHALE_E2E_SYNC');
const plan = JSON.parse(env('CODEWHALE_E2E_PLAN'));
const away = process.env.CODEWHALE_E2E_AWAY === '1';
const report = { steps: [], cards: [] };
const step = (what) => {
  report.steps.push(what);
  process.stderr.write(`e2e: ${what}\n`);
};
// writeSync writes a file for the test, atomically (by rename).
const writeSync = (name, value) => {
  const file = path.join(sync, name);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value));
  fs.renameSync(`${file}.tmp`, file);
};
// setFocus has the workbench's page say it has the focus or lost it
// (CODEWHALE_E2E_AWAY).
async function setFocus(page, focused) {
  await page.evaluate((f) => {
    Object.defineProperty(document, 'hasFocus', { value: () => f, configurable: true });
    window.dispatchEvent(new FocusEvent(f ? 'focus' : 'blur'));
  }, focused);
}
// The longest a card is waited for: the agent starts, thinks with the
// fake model and calls its hook in well under this.
const cardWaitMs = 120_000;

const { page, close } = await launch(JSON.parse(env('CODEWHALE_E2E_OPEN_PARAMS')));
try {
  step('workbench loaded');
  const w = workbench(page, sync);
  const source = env('CODEWHALE_E2E_SOURCE_FILE');
  await page.keyboard.press('Control+P');
  await w.quickInput.waitFor();
  await w.quickInput.fill(source);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: path.basename(source) }).first().waitFor();
  await w.quickInput.press('Enter');
  await page.locator(`.monaco-editor[data-uri$="/${path.basename(source)}"]`).first().waitFor({ timeout: 60_000 });
  report.sourceTab = (await page.locator('.tabs-container .tab.active').first().innerText()).replace(/\s+/g, '');
  step(`source file open: ${report.sourceTab}`);
  writeSync('ready.json', { at: Date.now() });

  for (const [i, { name, answer }] of plan.entries()) {
    // The test may have a policy file opened first (codewhale.serveAllFolders off).
    const policy = path.join(sync, `policy-${i}.json`);
    const cardOrPolicy = async () => {
      const end = Date.now() + cardWaitMs;
      while (Date.now() < end) {
        if (fs.existsSync(policy)) return 'policy';
        if (await w.denyButton.isVisible().catch(() => false)) return 'card';
        await sleep(100);
      }
      throw new Error(`no card ${i} (${name}) within ${cardWaitMs} ms`);
    };
    if (away) {
      // Once the test says the window serves, the window loses the focus,
      // as when the person switches to another application (not before:
      // a workbench in a background tab never finished its start-up,
      // onStartupFinished included, in this test). Headless Chromium
      // keeps every page focused (Playwright's focus emulation), so the
      // page says what a browser says then: document.hasFocus() false and a
      // blur event, which VS Code's host service turns into
      // window.state.focused false for extensions.
      await waitForFile(path.join(sync, `away-${i}.json`), cardWaitMs);
      await setFocus(page, false);
      writeSync(`away-${i}-ready.json`, { at: Date.now() });
    }
    if ((await cardOrPolicy()) === 'policy') {
      const { path: file } = await waitForFile(policy, 1000);
      await w.openWithDiagnostics(file);
      step(`policy file open: ${path.basename(file)}`);
      writeSync(`policy-${i}-open.json`, { at: Date.now() });
      await cardOrPolicy();
    }
    await w.denyButton.waitFor({ timeout: cardWaitMs });
    const card = {
      name,
      answer,
      buttons: await w.prompt.locator('button[data-choice]').evaluateAll((bs) => bs.map((b) => b.dataset.choice)),
      text: await w.promptText(),
    };
    if (away) {
      // What the person away is told: the notification, in the workbench.
      const toast = page.locator('.notification-toast', { hasText: 'awaits your answer' });
      card.told = await toast.first().waitFor({ timeout: 15_000 }).then(() => toast.first().innerText(), () => null);
      card.told = card.told && card.told.replace(/\s+/g, ' ').trim();
      await page.screenshot({ path: path.join(shots, `vscode-${name}-away.png`) });
      await setFocus(page, true);
      // Back in the window: the notification goes, the card stays.
      card.toldGoneWhenBack = await toast.first().waitFor({ state: 'hidden', timeout: 15_000 }).then(() => true, () => false);
    }
    await page.screenshot({ path: path.join(shots, `vscode-${name}.png`) });
    const answeredAt = Date.now();
    switch (answer) {
      case 'deny':
        await w.prompt.locator('button[data-choice="deny"]:enabled').click();
        break;
      case 'esc':
        await w.denyButton.press('Escape');
        break;
      case 'once':
        // The approve buttons arm after a second on screen without a key.
        await w.prompt.locator('button[data-choice="once"]:enabled').click({ timeout: 15_000 });
        break;
      case 'deadline':
        break;
      default:
        throw new Error(`unknown answer ${answer}`);
    }
    await w.denyButton.waitFor({ state: 'hidden', timeout: cardWaitMs });
    card.goneAfterMs = Date.now() - answeredAt;
    report.cards.push(card);
    step(`card ${i} (${name}): ${answer}, gone after ${card.goneAfterMs} ms`);
    writeSync(`card-${i}.json`, { at: Date.now() });
  }
  await waitForFile(path.join(sync, 'done.json'), 300_000);
} catch (err) {
  const shot = path.join(shots, 'failure-repos.png');
  await page.screenshot({ path: shot }).catch(() => {});
  process.stderr.write(`e2e: failed; the screen is in ${shot}\n`);
  throw err;
} finally {
  await close();
}
process.stdout.write(JSON.stringify(report) + '\n');
