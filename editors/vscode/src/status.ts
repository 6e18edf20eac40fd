// codewhale/status as the status bar shows it. No `vscode` import.

/** codewhale/status's result (docs/codewhale/contract.md §4). */
export interface ServerStatus {
  version: string;
  configPath: string;
  permissionsPath: string;
  workspace: string;
  posture: string;
  sandbox: unknown;
  pendingApprovals: number;
  files: { path: string; state: string; errors?: unknown }[];
}

function sandboxName(sandbox: unknown): string {
  if (typeof sandbox === 'string') {
    return sandbox;
  }
  if (typeof sandbox === 'object' && sandbox !== null && typeof (sandbox as { type?: unknown }).type === 'string') {
    return (sandbox as { type: string }).type;
  }
  return 'sandbox unknown';
}

export interface StatusBarText {
  text: string;
  tooltip: string;
  /** An approval waits: the item takes the warning colours. */
  attention: boolean;
}

/**
 * The status bar item: posture, sandbox and the approvals waiting here
 * (the queue's count, which is the one the user can act on).
 */
export function statusBarText(status: ServerStatus | undefined, waiting: number, problem?: string, askedBy: string[] = []): StatusBarText {
  // Other agents' calls (codewhale-ls hook AGENT) say whose they are.
  const who = askedBy.length > 0 ? ` (${askedBy.join(', ')})` : '';
  const waitingText = waiting > 0 ? ` $(bell-dot) ${waiting} waiting${who}` : '';
  if (problem) {
    return { text: `$(error) Codewhale${waitingText}`, tooltip: problem, attention: true };
  }
  if (!status) {
    return { text: `$(sync~spin) Codewhale${waitingText}`, tooltip: 'codewhale-ls is starting', attention: waiting > 0 };
  }
  const sandbox = sandboxName(status.sandbox);
  return {
    text: `$(shield) ${status.posture} · ${sandbox}${waitingText}`,
    tooltip: `Codewhale posture ${status.posture}, sandbox ${sandbox}; ${waiting} approval(s) waiting. codewhale-ls ${status.version}. Click for the status.`,
    attention: waiting > 0,
  };
}

/** codewhale/status as a Markdown page (Show status). */
export function statusMarkdown(status: ServerStatus): string {
  const lines = [
    '# Codewhale status',
    '',
    `- codewhale-ls: ${status.version}`,
    `- workspace: ${status.workspace || '(none)'}`,
    `- posture: ${status.posture}`,
    `- sandbox: ${JSON.stringify(status.sandbox)}`,
    `- approvals waiting: ${status.pendingApprovals}`,
    `- config.toml: ${status.configPath}`,
    `- permissions.toml: ${status.permissionsPath}`,
    '',
    '| file | state | errors |',
    '|---|---|---|',
  ];
  for (const f of status.files ?? []) {
    const errors = Array.isArray(f.errors) ? f.errors.length : 0;
    lines.push(`| ${f.path.replace(/\|/g, '\\|')} | ${f.state} | ${errors} |`);
  }
  return lines.join('\n') + '\n';
}
