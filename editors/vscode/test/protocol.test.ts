// The extension's side of the protocol, against the real codewhale-ls:
// the initializationOptions settings.ts builds, the methods client.ts
// calls, and the codewhale/approve answers the approval panel sends.
// CODEWHALE_LS_BIN names the binary (editors/vscode_test.go builds it);
// without it these tests skip.
import * as assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { previewText } from '../src/approvalHtml';
import { after, before, describe, test } from 'node:test';
import { StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import * as P from 'vscode-languageserver-protocol/node';
import { ApprovalAnswer, ApprovalPrompt } from '../src/approvals';
import { Decision, decisionLine } from '../src/decision';
import { logArgs, logViewHtml, noFilters, parseReceipts, rowOf, runLog, showArgs } from '../src/logView';
import { ApprovalWithdrawnNotification, ApproveRequest, AuthorizeRequest, DecisionNotification, ExplainRequest, StatusRequest } from '../src/lspExt';
import { documentSelector } from '../src/selector';
import { initializationOptions, type Settings } from '../src/settings';

const binary = process.env.CODEWHALE_LS_BIN;

interface World {
  tmp: string;
  home: string;
  codewhaleHome: string;
  ws: string;
}

function makeWorld(): World {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'codewhale-vscode-')));
  const home = path.join(tmp, 'home');
  const codewhaleHome = path.join(home, '.codewhale');
  const ws = path.join(tmp, 'ws');
  for (const dir of [codewhaleHome, path.join(ws, '.git'), path.join(ws, '.codewhale')]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  // Keep the load away from the machine's managed config.
  fs.writeFileSync(path.join(codewhaleHome, 'config.toml'),
    `managed_config_path = ${JSON.stringify(path.join(tmp, 'managed.toml'))}\nrequirements_path = ${JSON.stringify(path.join(tmp, 'requirements.toml'))}\n`);
  return { tmp, home, codewhaleHome, ws };
}

class Server {
  readonly conn: P.ProtocolConnection;
  readonly prompts: ApprovalPrompt[] = [];
  readonly withdrawn: { id: string; reason: string }[] = [];
  readonly decisions: Decision[] = [];
  readonly cancelledPrompts: string[] = [];
  /** How the next prompt is answered; undefined leaves it open. */
  answer: ((p: ApprovalPrompt) => ApprovalAnswer) | undefined;
  private readonly proc: cp.ChildProcessWithoutNullStreams;
  private readonly diagnostics = new Map<string, P.PublishDiagnosticsParams>();
  private readonly waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly world: World) {
    this.proc = cp.spawn(binary as string, ['serve'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: world.home,
        CODEWHALE_HOME: world.codewhaleHome,
        XDG_CONFIG_HOME: path.join(world.tmp, 'xdg-config'),
        XDG_DATA_HOME: path.join(world.tmp, 'xdg-data'),
        XDG_CACHE_HOME: path.join(world.tmp, 'xdg-cache'),
      },
    });
    this.proc.stderr.resume();
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
    this.conn = P.createProtocolConnection(new StreamMessageReader(this.proc.stdout), new StreamMessageWriter(this.proc.stdin));
    this.conn.onRequest(ApproveRequest, (p, token) => {
      this.prompts.push(p);
      this.changed();
      const answer = this.answer;
      if (answer) {
        return answer(p);
      }
      return new Promise<ApprovalAnswer>((resolve) => token.onCancellationRequested(() => {
        this.cancelledPrompts.push(p.id);
        this.changed();
        resolve(null);
      }));
    });
    this.conn.onNotification(ApprovalWithdrawnNotification, (w) => {
      this.withdrawn.push(w);
      this.changed();
    });
    this.conn.onNotification(DecisionNotification, (d) => {
      this.decisions.push(d);
      this.changed();
    });
    this.conn.onNotification(P.PublishDiagnosticsNotification.type, (d) => {
      this.diagnostics.set(d.uri, d);
      this.changed();
    });
    this.conn.onRequest(P.ShowMessageRequest.type, () => null);
    this.conn.onRequest(P.RegistrationRequest.type, () => undefined);
    this.conn.onRequest(P.WorkDoneProgressCreateRequest.type, () => undefined);
    this.conn.onRequest(P.ConfigurationRequest.type, (p) => p.items.map(() => null));
    this.conn.listen();
  }

  private changed(): void {
    for (const wake of this.waiters.splice(0)) {
      wake();
    }
  }

  /** Resolves when cond holds, or fails after 20 s (a hang, not a speed check). */
  async until<T>(what: string, cond: () => T | undefined): Promise<T> {
    const end = Date.now() + 20_000;
    for (;;) {
      const v = cond();
      if (v !== undefined && v !== false) {
        return v;
      }
      if (Date.now() > end) {
        throw new Error(`timed out waiting for ${what}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  diagnosticsOf(uri: string): P.Diagnostic[] | undefined {
    return this.diagnostics.get(uri)?.diagnostics;
  }

  // The release is named, so a codewhale on the developer's PATH does not
  // change what the server decides.
  async initialize(settings: Settings = { approvalTimeoutSeconds: 300, decisionLog: '', codewhaleVersion: '0.10.1' }): Promise<P.InitializeResult> {
    const folder = pathToFileURL(this.world.ws).href;
    const result = await this.conn.sendRequest(P.InitializeRequest.type, {
      processId: process.pid,
      clientInfo: { name: 'Visual Studio Code', version: '1.139.1' },
      rootUri: folder,
      workspaceFolders: [{ uri: folder, name: 'ws' }],
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        workspace: { workspaceFolders: true, configuration: true, didChangeWatchedFiles: { dynamicRegistration: true } },
        textDocument: {
          synchronization: { dynamicRegistration: true, didSave: true },
          publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true },
          diagnostic: { dynamicRegistration: true },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source'] } }, isPreferredSupport: true },
          hover: { contentFormat: ['markdown', 'plaintext'] },
        },
        window: { workDoneProgress: true, showMessage: {} },
      },
      initializationOptions: initializationOptions(settings),
    });
    await this.conn.sendNotification(P.InitializedNotification.type, {});
    return result;
  }

  authorize(command: string, token?: P.CancellationToken): Promise<Decision> {
    const call = { tool: 'bash', input: { command }, workspace: this.world.ws };
    return this.conn.sendRequest(AuthorizeRequest, call, token);
  }

  async stop(): Promise<void> {
    await this.conn.sendRequest(P.ShutdownRequest.type);
    await this.conn.sendNotification(P.ExitNotification.type);
    const code = await this.exited;
    this.conn.dispose();
    assert.equal(code, 0, 'the server exits cleanly after shutdown and exit');
  }
}

describe('codewhale-ls as the extension drives it', { skip: binary ? false : 'CODEWHALE_LS_BIN is not set (editors/vscode_test.go sets it)' }, () => {
  let world: World;
  let server: Server;

  before(async () => {
    world = makeWorld();
    server = new Server(world);
    const init = await server.initialize();
    assert.equal(init.serverInfo?.name, 'codewhale-ls');
  });

  after(async () => {
    await server.stop();
    fs.rmSync(world.tmp, { recursive: true, force: true });
  });

  test('the selector attaches the home permissions.toml', () => {
    const home = documentSelector(world.home, world.codewhaleHome).map((e) => e.pattern);
    assert.ok(home.includes(`${world.codewhaleHome}/{config.toml,permissions.toml}`));
  });

  test('a broken permissions.toml gets diagnostics with codes and ranges, and a quick fix', async () => {
    const file = path.join(world.codewhaleHome, 'permissions.toml');
    const uri = pathToFileURL(file).href;
    const text = '[[rules]]\ntool = "exec_shell"\ncomand = "cargo test"\ndecision = "allow"\n';
    await server.conn.sendNotification(P.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'toml', version: 1, text } });
    const diags = await server.until('diagnostics of permissions.toml', () => {
      const d = server.diagnosticsOf(uri);
      return d && d.length > 0 ? d : undefined;
    });
    const typo = diags.find((d) => d.range.start.line === 2);
    assert.ok(typo, `a diagnostic on line 3: ${JSON.stringify(diags)}`);
    assert.match(String(typo.code), /^CW\d{3}$/);
    assert.equal(typo.source, 'codewhale');
    assert.deepEqual(typo.range, { start: { line: 2, character: 0 }, end: { line: 2, character: 6 } });
    const actions = await server.conn.sendRequest(P.CodeActionRequest.type, {
      textDocument: { uri }, range: typo.range, context: { diagnostics: [typo], only: ['quickfix'] },
    });
    const fix = (actions ?? []).find((a): a is P.CodeAction => 'edit' in a && a.edit !== undefined);
    assert.ok(fix, `a quick fix with an edit: ${JSON.stringify(actions)}`);
    const edits = fix.edit?.changes?.[uri] ?? [];
    assert.ok(edits.some((e) => e.newText.includes('command')), `the fix renames comand: ${JSON.stringify(fix.edit)}`);
    await server.conn.sendNotification(P.DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  });

  test('codewhale/status with no params, as the status bar asks', async () => {
    const status = await server.conn.sendRequest(StatusRequest);
    assert.equal(status.permissionsPath, path.join(world.codewhaleHome, 'permissions.toml'));
    assert.equal(status.configPath, path.join(world.codewhaleHome, 'config.toml'));
    assert.equal(typeof status.posture, 'string');
    assert.equal(status.pendingApprovals, 0);
  });

  test('codewhale/explain shows the layers and never prompts', async () => {
    const before = server.prompts.length;
    const d = await server.conn.sendRequest(ExplainRequest, { tool: 'bash', input: { command: 'cargo test' }, workspace: world.ws });
    assert.equal(d.decision, 'ask');
    assert.deepEqual(d.trace.map((t) => t.layer), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(server.prompts.length, before);
  });

  for (const [choice, command, decision, recorded] of [
    ['once', 'cargo test', 'allow', 'once'],
    ['deny', 'cargo build', 'deny', 'deny'],
    [null, 'cargo fmt', 'deny', 'dismissed'],
  ] as const) {
    test(`the panel answers ${choice === null ? 'Esc (null)' : choice}: ${decision}`, async () => {
      server.answer = () => (choice === null ? null : { choice });
      const d = await server.authorize(command);
      assert.equal(d.decision, decision, d.reason);
      assert.equal(d.approval?.choice, recorded);
      const p = server.prompts[server.prompts.length - 1];
      assert.equal(p.summary, `bash: ${command}`);
      assert.equal(p.default, 'deny');
      assert.ok(p.choices.some((c) => c.id === 'deny'));
      assert.ok(!isNaN(Date.parse(p.deadline)));
      assert.deepEqual(server.decisions[server.decisions.length - 1], d, 'codewhale/decision carries the same final decision');
    });
  }

  test('always appends the previewed rule to permissions.toml', async () => {
    server.answer = () => ({ choice: 'always' });
    const d = await server.authorize('cargo check');
    assert.equal(d.decision, 'allow', d.reason);
    assert.equal(d.approval?.choice, 'always');
    const preview = server.prompts[server.prompts.length - 1].choices.find((c) => c.id === 'always')?.preview;
    assert.ok(preview && preview.includes('cargo check'), `preview ${preview}`);
    const saved = fs.readFileSync(path.join(world.codewhaleHome, 'permissions.toml'), 'utf8');
    // The rule as the card shows it (previewText: the server marks its
    // line breaks ⏎) is the rule saved.
    assert.ok(saved.includes(previewText(preview).trim()), `permissions.toml:\n${saved}\npreview:\n${preview}`);
  });

  test('a cancelled call withdraws its prompt', async () => {
    server.answer = undefined;
    const source = new P.CancellationTokenSource();
    const count = server.prompts.length;
    const pending = server.authorize('make', source.token);
    const p = await server.until('the prompt for make', () => (server.prompts.length > count ? server.prompts[count] : undefined));
    source.cancel();
    await server.until('the withdrawal', () => server.withdrawn.find((w) => w.id === p.id));
    assert.deepEqual(server.withdrawn.find((w) => w.id === p.id), { id: p.id, reason: 'cancelled' });
    await server.until('$/cancelRequest for codewhale/approve', () => server.cancelledPrompts.includes(p.id));
    // The cancelled call is still answered, with a deny.
    const d = await pending;
    assert.equal(d.decision, 'deny');
    assert.equal(d.approval?.choice, 'dismissed');
    assert.match(d.reason, /cancelled/);
  });

  test('session approves the command family for the rest of the session, and only it', async () => {
    server.answer = () => ({ choice: 'session' });
    assert.equal((await server.authorize('npm test')).decision, 'allow');
    const count = server.prompts.length;
    const again = await server.authorize('npm test');
    assert.equal(again.decision, 'allow', again.reason);
    assert.equal(again.approval?.source, 'session-grant');
    assert.equal(server.prompts.length, count);
    // Since Codewhale 0.10.0 (0.9.12) a session grant covers its command
    // family, no longer the whole tool: another command asks again.
    const other = await server.authorize('npm run lint');
    assert.equal(other.approval?.source, 'prompt');
    assert.equal(server.prompts.length, count + 1);
  });
});

describe('a prompt nobody answers', { skip: binary ? false : 'CODEWHALE_LS_BIN is not set' }, () => {
  test('is denied at the deadline and withdrawn', async () => {
    const world = makeWorld();
    const server = new Server(world);
    try {
      await server.initialize({ approvalTimeoutSeconds: 1, decisionLog: 'off', codewhaleVersion: '0.10.1' });
      server.answer = undefined;
      const d = await server.authorize('cargo test');
      assert.equal(d.decision, 'deny');
      assert.equal(d.approval?.choice, 'timeout');
      const p = server.prompts[0];
      await server.until('the withdrawal', () => server.withdrawn.find((w) => w.id === p.id));
      assert.deepEqual(server.withdrawn, [{ id: p.id, reason: 'timeout' }]);
      await server.until('$/cancelRequest', () => server.cancelledPrompts.includes(p.id));
    } finally {
      await server.stop();
      fs.rmSync(world.tmp, { recursive: true, force: true });
    }
  });
});

// A token in a call: the person's answer gives a receipt that names them
// and VS Code; the output channel's line, the view's table and `log show`
// all show the token masked, as the server wrote it. The agent's own
// answer (codewhale/authorize's result) keeps its call whole.
describe('the decision log view and the output channel', { skip: binary ? false : 'CODEWHALE_LS_BIN is not set' }, () => {
  const token = 'ghp_' + 'Zq8rT2mW9xY4vB7nK3pL6sD1fG5hJ0aC8eR2';
  const command = `curl -H "Authorization: token ${token}" https://api.github.com/user`;

  async function decide(settings: Settings, answer: string): Promise<{ world: World; file: string; announced: Decision; result: Decision }> {
    const world = makeWorld();
    const server = new Server(world);
    try {
      await server.initialize(settings);
      server.answer = () => ({ choice: answer });
      const result = await server.authorize(command);
      const announced = await server.until('codewhale/decision', () => server.decisions.find((d) => d.callId === result.callId && d.decision === result.decision));
      return { world, file: settings.decisionLog, announced, result };
    } finally {
      await server.stop();
    }
  }

  function readLog(args: string[]): Promise<string> {
    return runLog(cp.execFile, binary as string, args, new AbortController().signal).then((r) => {
      assert.ok('stdout' in r, JSON.stringify(r));
      return r.stdout;
    });
  }

  test('a token is masked in the channel, the table and log show; the receipt names the person and VS Code', async () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'codewhale-log-')));
    const file = path.join(tmp, 'decisions.jsonl');
    const { world, announced, result } = await decide({ approvalTimeoutSeconds: 300, decisionLog: file, codewhaleVersion: '0.10.1' }, 'deny');
    try {
      assert.equal(result.decision, 'deny');
      assert.ok(JSON.stringify(result).includes(token), 'the agent\'s own answer keeps its call whole');
      const line = decisionLine(announced);
      assert.ok(!line.includes(token) && line.includes('⟪secret: '), line);

      const out = await readLog(logArgs({ ...noFilters, decision: 'deny' }, undefined, file));
      assert.ok(!out.includes(token), out);
      const { receipts, unreadable } = parseReceipts(out);
      assert.equal(unreadable, 0);
      const mine = receipts.filter((r) => r.decider?.kind === 'person');
      assert.equal(mine.length, 1, out);
      assert.equal(mine[0].decider?.answer, 'deny');
      assert.equal(mine[0].decider?.where, 'Visual Studio Code 1.139.1', 'named from the clientInfo VS Code sends');
      const html = logViewHtml({ filters: noFilters, rows: receipts.map((r) => rowOf(r, world.home)), summary: '' }, 'N', 'c');
      assert.ok(!html.includes(token) && html.includes('⟪secret: '), 'the table shows the token masked');
      const show = await readLog(showArgs(mine[0].id as string, file) as string[]);
      assert.ok(!show.includes(token) && show.includes(mine[0].id as string), show);

      // The filters select exactly: no allow among the deny receipts.
      assert.equal(parseReceipts(await readLog(logArgs({ ...noFilters, decision: 'allow' }, undefined, file))).receipts.length, 0);
    } finally {
      fs.rmSync(world.tmp, { recursive: true, force: true });
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('codewhale.logInputs off: the receipt keeps who decided, not the call', async () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'codewhale-log-')));
    const file = path.join(tmp, 'decisions.jsonl');
    const { world } = await decide({ approvalTimeoutSeconds: 300, decisionLog: file, codewhaleVersion: '0.10.1', logInputs: false }, 'once');
    try {
      const { receipts } = parseReceipts(await readLog(logArgs(noFilters, undefined, file)));
      assert.equal(receipts.length, 1);
      assert.equal(receipts[0].input, undefined);
      assert.equal(receipts[0].decider?.kind, 'person');
      assert.equal(receipts[0].decider?.answer, 'once');
      assert.ok(!fs.readFileSync(file, 'utf8').includes('api.github.com'), 'nothing of the call in the file');
    } finally {
      fs.rmSync(world.tmp, { recursive: true, force: true });
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
