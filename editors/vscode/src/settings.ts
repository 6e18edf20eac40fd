// The extension's settings as the server's initializationOptions. No
// `vscode` import, so the protocol tests send exactly this.

export interface Settings {
  approvalTimeoutSeconds: number;
  /** codewhale.decisionLog: a path, "" for the server's default, "off" for none. */
  decisionLog: string;
  /** codewhale.codewhaleVersion: the Codewhale release to decide as; "" detects it. */
  codewhaleVersion?: string;
  /** codewhale.hardening: false for Codewhale's decision alone (docs/hardening.md). */
  hardening?: boolean;
  /** codewhale.logInputs: false keeps receipts without the call's input (docs/codewhale/contract.md §4 "Receipts"). */
  logInputs?: boolean;
}

/** initializationOptions (docs/codewhale/contract.md §4). */
export function initializationOptions(settings: Settings): Record<string, unknown> {
  const options: Record<string, unknown> = { approvals: 'codewhale' };
  if (Number.isInteger(settings.approvalTimeoutSeconds) && settings.approvalTimeoutSeconds > 0) {
    options.approvalTimeoutSeconds = settings.approvalTimeoutSeconds;
  }
  const log = settings.decisionLog.trim();
  if (log === 'off') {
    options.decisionLog = false;
  } else if (log !== '') {
    options.decisionLog = log;
  }
  const version = settings.codewhaleVersion?.trim() ?? '';
  if (version !== '') {
    options.codewhaleVersion = version;
  }
  if (settings.hardening === false) {
    options.hardening = false;
  }
  if (settings.logInputs === false) {
    options.logInputs = false;
  }
  return options;
}

/** What WorkspaceConfiguration.inspect() says about one setting, the parts read here. */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/**
 * The settings that are the user's alone: which binary runs
 * (codewhale.server.path), which Codewhale release decides
 * (codewhale.codewhaleVersion), which file the server appends to
 * (codewhale.decisionLog) and whether it keeps the calls' input
 * (codewhale.logInputs: a repository must not make a log the user keeps
 * free of commands record them), whether the hardening layer, which only
 * tightens, runs (codewhale.hardening) and whether every folder serves
 * approvals (codewhale.serveAllFolders: a repository must not take its
 * approvals away from the person's editor). A repository's .vscode/settings.json or
 * .code-workspace must never choose them, trusted or not: package.json
 * gives them scopes a workspace cannot set, and they are read here from
 * the user's (or, in a remote window, the remote's) settings alone.
 */
export const userOnly = ['server.path', 'codewhaleVersion', 'decisionLog', 'logInputs', 'hardening', 'serveAllFolders'] as const;

/** The user's own value of a setting: user or remote settings, else the default; never a workspace's. */
export function userValue<T>(inspected: Inspected<T> | undefined, fallback: T): T {
  return inspected?.globalValue ?? inspected?.defaultValue ?? fallback;
}

/** Everything the server is started with that comes from settings. */
export interface StartSettings extends Settings {
  serverPath: string;
}

/**
 * The settings as the server is started with them: user-only ones by
 * userValue, approvalTimeoutSeconds from wherever VS Code takes it (a
 * workspace may shorten or lengthen its prompts' wait; an expiry is a deny).
 */
export function startSettings(inspect: <T>(key: string) => Inspected<T> | undefined, timeout: number): StartSettings {
  return {
    serverPath: userValue<string>(inspect('server.path'), ''),
    codewhaleVersion: userValue<string>(inspect('codewhaleVersion'), ''),
    decisionLog: userValue<string>(inspect('decisionLog'), ''),
    logInputs: userValue<boolean>(inspect('logInputs'), true),
    hardening: userValue<boolean>(inspect('hardening'), true),
    approvalTimeoutSeconds: timeout,
  };
}

/**
 * Whether a configuration change calls for a new server: only when what
 * the server would be started with differs from what the running one
 * was, so a workspace value of a user-only setting (ignored) or an
 * unrelated codewhale.* setting restarts nothing.
 */
export function needsRestart(running: StartSettings | undefined, next: StartSettings): boolean {
  if (!running) {
    return true;
  }
  return running.serverPath !== next.serverPath || running.codewhaleVersion !== next.codewhaleVersion ||
    running.decisionLog !== next.decisionLog || running.logInputs !== next.logInputs || running.hardening !== next.hardening ||
    running.approvalTimeoutSeconds !== next.approvalTimeoutSeconds;
}

/**
 * codewhale.serveAllFolders, the user's own value: true (the default)
 * serves every folder's approvals from start-up (serving.ts).
 */
export function serveAllFolders(inspect: <T>(key: string) => Inspected<T> | undefined): boolean {
  return userValue<boolean>(inspect('serveAllFolders'), true) !== false;
}
