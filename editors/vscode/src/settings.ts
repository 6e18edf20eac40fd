// The extension's settings as the server's initializationOptions. No
// `vscode` import, so the protocol tests send exactly this.

export interface Settings {
  approvalTimeoutSeconds: number;
  /** codewhale.decisionLog: a path, "" for the server's default, "off" for none. */
  decisionLog: string;
  /** codewhale.codewhaleVersion: the Codewhale release to decide as; "" detects it. */
  codewhaleVersion?: string;
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
  return options;
}
