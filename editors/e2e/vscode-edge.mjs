// Drives real VS Code (code-server in headless Chromium) through what the
// Codewhale extension must do outside the usual trusted, single, Codewhale
// repository (issue 15): lint the home policy files in a folder without
// .codewhale/, name the folders in the status bar of a multi-root window,
// deny everything in Restricted Mode (a hook call's card offers Deny
// alone), and say in words why a server failed (a crash loop, a binary for
// another platform). editors/vscode_e2e_test.go starts code-server, runs
// this script and checks the JSON report it prints on stdout.
//
// Environment (set by the Go test), besides workbench.mjs's:
//   CODEWHALE_E2E_MODE         "restricted" or "failures"
//   CODEWHALE_E2E_OPEN_PARAMS  JSON {folder} or {workspace} for the workbench URL
//   CODEWHALE_E2E_HOME_FILE    a policy file in the Codewhale home, to open
//   CODEWHALE_E2E_HARNESS_DIR  the harness's directory
//   CODEWHALE_E2E_CALL         restricted: a call for codewhale.authorize
//   CODEWHALE_E2E_HOOK         restricted: {bin, args, cwd, event} of a hook call to run
//   CODEWHALE_E2E_MACHINE_SETTINGS  failures: the remote (Machine) settings file
//   CODEWHALE_E2E_BROKEN       failures: JSON list of {name, path}: server.path values to try
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { env, launch, workbench } from './workbench.mjs';

const mode = env('CODEWHALE_E2E_MODE');
const shots = env('CODEWHALE_E2E_SHOTS');
const report = { steps: [] };
const step = (what) => {
  report.steps.push(what);
  process.stderr.write(`e2e: ${what}\n`);
};

const { page, close } = await launch(JSON.parse(env('CODEWHALE_E2E_OPEN_PARAMS')));
try {
  step('workbench loaded');
  const w = workbench(page, env('CODEWHALE_E2E_HARNESS_DIR'));
  const statusItem = page.locator('.statusbar-item', { hasText: /Codewhale|\$\(shield\)|: [a-z-]+ · / });
  const itemText = async (locator) => (await locator.first().innerText()).replace(/\s+/g, ' ').trim();

  // The home file, in a window without .codewhale/: stock VS Code has no
  // TOML language, so only the extension's own activation gets it linted.
  // The home file is the first document opened (it starts the extension):
  // in this untrusted two-folder window the second folder once cleared its
  // findings (fixed in rpc/diagnostics.go), so no other file goes first.
  report.homeFileMs = await w.openWithDiagnostics(env('CODEWHALE_E2E_HOME_FILE'));
  step(`home policy file: diagnostics visible ${report.homeFileMs} ms after opening`);
  report.language = await itemText(page.locator('.statusbar-item[id="status.editor.mode"]'));

  if (mode === 'restricted') {
    const shield = page.locator('.statusbar-item', { hasText: /· .*folder/ });
    await shield.first().waitFor({ timeout: 30_000 });
    report.statusBar = await itemText(shield);
    report.statusBarLabel = await shield.first().getAttribute('aria-label');
    // The tooltip, as a user sees it on hover.
    await shield.first().hover();
    const hover = page.locator('.monaco-hover, .workbench-hover', { hasText: 'beta: ' });
    await hover.first().waitFor({ timeout: 15_000 });
    report.statusBarTooltip = (await hover.first().innerText()).replace(/\s+/g, ' ').trim();
    await page.mouse.move(0, 0);
    report.restrictedIndicator = await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first()
      .waitFor({ timeout: 30_000 }).then(() => true, () => false);
    step(`status bar: ${report.statusBar}`);

    // codewhale.authorize: denied without a prompt.
    const call = JSON.parse(env('CODEWHALE_E2E_CALL'));
    const started = await w.authorize(call);
    report.authorize = await w.decisionOf(call.callId, started);
    step('codewhale.authorize in Restricted Mode answered');

    // A hook call from the same window's folder: its card offers Deny alone
    // and says why; the click on Deny is what the agent gets.
    const hook = JSON.parse(env('CODEWHALE_E2E_HOOK'));
    const child = spawn(hook.bin, hook.args, { cwd: hook.cwd, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    child.stdin.end(JSON.stringify(hook.event));
    await w.denyButton.waitFor({ timeout: 30_000 });
    report.hookCard = {
      buttons: await w.prompt.locator('button[data-choice]').evaluateAll((bs) => bs.map((b) => b.dataset.choice)),
      text: await w.promptText(),
    };
    await page.screenshot({ path: path.join(shots, 'vscode-approval-restricted.png') });
    await w.prompt.locator('button[data-choice="deny"]:enabled').waitFor();
    await w.denyButton.click();
    report.hook = { code: await exited, stdout: out, stderr: err };
    step('hook call in Restricted Mode answered');

    // Open decision log: the receipts, as codewhale-ls log reads them, in
    // a view; the hook call's deny is there, answered by the person.
    await w.runCommand('Codewhale: Open decision log');
    const view = await w.logView('listing the hook call', async (f) => (await f.locator('#log tbody tr', { hasText: 'claude-code' }).count()) > 0);
    report.decisionLog = {
      text: (await view.locator('body').innerText()).slice(0, 4000),
      rows: await view.locator('#log tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent))),
    };
    step('decision log view opened');
  }

  if (mode === 'failures') {
    // Show status, while the server runs: a read-only Markdown preview,
    // no Untitled buffer for VS Code to ask about saving later.
    await w.runCommand('Codewhale: Show status');
    const statusTab = page.locator('.tabs-container .tab', { hasText: 'Codewhale status' });
    await statusTab.first().waitFor({ timeout: 30_000 });
    const preview = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame').locator('body');
    await preview.filter({ hasText: 'posture' }).waitFor({ timeout: 30_000 });
    report.statusPage = {
      text: (await preview.innerText()).trim(),
      tabs: await page.locator('.tabs-container .tab').allInnerTexts(),
      dirtyTabs: await page.locator('.tabs-container .tab.dirty').count(),
    };
    step('Show status: a read-only preview');
    const machine = env('CODEWHALE_E2E_MACHINE_SETTINGS');
    report.failures = [];
    for (const { name, path: serverPath } of JSON.parse(env('CODEWHALE_E2E_BROKEN'))) {
      // The notification center, emptied, lists what comes next (toasts
      // that do not fit the window are not drawn).
      await w.runCommand('Notifications: Clear All Notifications');
      await w.runCommand('Notifications: Show Notifications');
      // The user points codewhale.server.path at the binary in the remote's
      // settings (a remote window: code-server), as the README says.
      fs.mkdirSync(path.dirname(machine), { recursive: true });
      fs.writeFileSync(machine, JSON.stringify({ 'codewhale.server.path': serverPath }));
      const item = page.locator('.notifications-center .notification-list-item', { hasText: serverPath });
      await item.first().waitFor({ timeout: 60_000 });
      const failed = page.locator('.statusbar-item', { hasText: 'Codewhale: server failed' });
      await failed.first().waitFor({ timeout: 30_000 });
      const entry = {
        name,
        message: (await item.first().locator('.notification-list-item-message').innerText()).trim(),
        actions: await item.first().locator('.notification-list-item-buttons-container .monaco-button').allInnerTexts(),
        notifications: await page.locator('.notifications-center .notification-list-item-message').allInnerTexts(),
        statusBar: await itemText(failed),
        spinning: await page.locator('.statusbar-item .codicon-sync.codicon-modifier-spin').count(),
      };
      await page.screenshot({ path: path.join(shots, `vscode-server-${name}.png`) });
      report.failures.push(entry);
      step(`${name}: ${entry.message}`);
    }
  }
} catch (err) {
  const shot = path.join(shots, `failure-${mode}.png`);
  await page.screenshot({ path: shot }).catch(() => {});
  process.stderr.write(`e2e: failed; the screen is in ${shot}\n`);
  throw err;
} finally {
  await close();
}
process.stdout.write(JSON.stringify(report) + '\n');
