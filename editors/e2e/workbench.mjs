// What the real-VS Code scripts (vscode.mjs, vscode-edge.mjs, vscode-log.mjs) share:
// Chromium on code-server's workbench, the command palette, the harness
// agent's calls and the approval panel's locators. Every wait has a bound.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

export const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// waitForFile polls for a file the harness writes (atomically, by rename).
export async function waitForFile(file, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    if (Date.now() > end) throw new Error(`no ${path.basename(file)} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

// launch starts Chromium as a browser server, not launch(): its process id
// is known, so the Go test can kill Chromium's process group whatever
// happens to the script. It opens the workbench at code-server's address
// with params (folder or workspace) and waits until the explorer shows a
// folder (the remote extension host is up then).
export async function launch(params) {
  const { chromium } = createRequire(path.join(env('CODEWHALE_E2E_DIR'), 'node_modules', '/'))('playwright-core');
  const browserServer = await chromium.launchServer({
    executablePath: process.env.CODEWHALE_E2E_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  fs.writeFileSync(env('CODEWHALE_E2E_BROWSER_PID'), String(browserServer.process().pid));
  const browser = await chromium.connect(browserServer.wsEndpoint());
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(30_000);
  const close = async () => {
    await browser.close();
    await browserServer.close();
  };
  try {
    const url = new URL(env('CODEWHALE_E2E_URL'));
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    // The workbench's first load (megabytes of scripts) took over 30 s while
    // the whole suite ran beside it on two CPUs: the page's own "load" is
    // not waited for, the workbench is, with the explorer's bound.
    await page.goto(url.toString(), { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60_000 });
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
  return { page, close };
}

export function workbench(page, harnessDir) {
  const quickInput = page.locator('.quick-input-widget input.input');
  // runCommand runs a command from the command palette, as a user would;
  // whileOpen, if given, runs once the palette is open, before typing.
  async function runCommand(title, whileOpen) {
    await page.keyboard.press('F1');
    await quickInput.waitFor();
    await whileOpen?.();
    await quickInput.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    await row.waitFor();
    await quickInput.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  }

  // openWithDiagnostics opens a file by its absolute path (Quick Open) and
  // returns how long after the Enter its editor showed a squiggle (the
  // server may have published them before the file was opened: then they
  // show at once, which is what the user sees).
  async function openWithDiagnostics(absolute) {
    const name = path.basename(absolute);
    await page.keyboard.press('Control+P');
    await quickInput.waitFor();
    await quickInput.fill(absolute);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
    const openedAt = Date.now();
    await quickInput.press('Enter');
    await page.locator(`.monaco-editor[data-uri$="/${name}"] .view-overlays :is(.squiggly-error, .squiggly-warning, .squiggly-info)`).first().waitFor({ timeout: 60_000 });
    return Date.now() - openedAt;
  }

  // authorize has the harness (the agent) ask about call; it resolves when
  // the harness has called codewhale.authorize, with the time it did.
  async function authorize(call, whileOpen) {
    fs.writeFileSync(path.join(harnessDir, 'call.json'), JSON.stringify(call));
    await runCommand('Codewhale E2E: Authorize the next agent call', whileOpen);
    const { startedAt } = await waitForFile(path.join(harnessDir, `started-${call.callId}.json`), 30_000);
    return startedAt;
  }

  async function decisionOf(callId, startedAt) {
    const result = await waitForFile(path.join(harnessDir, `decision-${callId}.json`), 120_000);
    return { decision: result.decision ?? null, error: result.error ?? null, answeredAfterMs: result.finishedAt - startedAt };
  }

  // watchForPrompt, called before the call that brings a card up, starts
  // a watch in the workbench page; promptSeenAt then gives the time
  // (Date.now(), the clock of the harness's startedAt) of the first
  // animation frame in which a Deny button that was not on screen when the
  // watch began is visible through both webview iframes: what a person
  // sees, to a frame, rather than when Playwright's polling of the nested
  // frames (backing off to 100 ms and more) next looks. The webview frames
  // are the workbench's origin in code-server, so the page can look in.
  async function watchForPrompt() {
    await page.evaluate((timeoutMs) => {
      const shown = (el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) && el.getClientRects().length > 0;
      const denies = () => {
        const found = [];
        for (const outer of document.querySelectorAll('iframe.webview')) {
          const inner = outer.contentDocument?.querySelector('iframe#active-frame');
          const deny = inner?.contentDocument?.querySelector('button[data-choice="deny"]');
          if (deny && shown(outer) && shown(inner) && shown(deny)) found.push(deny);
        }
        return found;
      };
      const before = new Set(denies());
      const end = Date.now() + timeoutMs;
      window.codewhaleE2EPromptSeen = new Promise((resolve) => {
        const look = () => {
          if (denies().some((d) => !before.has(d))) resolve(Date.now());
          else if (Date.now() > end) resolve(null);
          else requestAnimationFrame(look);
        };
        requestAnimationFrame(look);
      });
    }, 30_000);
  }
  async function promptSeenAt() {
    const at = await page.evaluate(() => window.codewhaleE2EPromptSeen);
    if (at === null) throw new Error('no approval card became visible within 30 s');
    return at;
  }

  // The approval panel is a webview: an iframe holding the active frame.
  const prompt = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const promptTab = page.locator('.tabs-container .tab[aria-label*="Codewhale approval"]');
  const denyButton = prompt.locator('button[data-choice="deny"]');
  const promptText = async () => (await prompt.locator('body').innerText()).replace(/\s+/g, ' ').trim();

  // logView finds the decision log view's page (Codewhale: Open decision
  // log), the frame holding table#log, once matches(frame) holds: each
  // new set of filters renders a new page, so the frame is looked up
  // again until one matches.
  async function logView(what, matches = async () => true) {
    const end = Date.now() + 30_000;
    for (;;) {
      for (const frame of page.frames()) {
        try {
          if (!frame.isDetached() && (await frame.locator('table#log').count()) > 0 && (await matches(frame))) {
            return frame;
          }
        } catch {
          // Detached while looked at: the next round sees its successor.
        }
      }
      if (Date.now() > end) throw new Error(`no decision log view ${what} within 30 s`);
      await sleep(100);
    }
  }

  return { quickInput, runCommand, openWithDiagnostics, authorize, decisionOf, watchForPrompt, promptSeenAt, prompt, promptTab, denyButton, promptText, logView };
}
