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
export function statusBarText(status: ServerStatus | undefined, waiting: number, problem?: string, askedBy: string[] = [], folders: FolderStatus[] = []): StatusBarText {
  // Other agents' calls (codewhale-ls hook AGENT) say whose they are.
  const who = askedBy.length > 0 ? ` (${askedBy.join(', ')})` : '';
  const waitingText = waiting > 0 ? ` $(bell-dot) ${waiting} waiting${who}` : '';
  if (problem) {
    // Said in words, and clicking it offers the restart (client.ts).
    return { text: `$(error) Codewhale: server failed${waitingText}`, tooltip: `${problem}\n\nClick for the actions that fix it.`, attention: true };
  }
  if (!status) {
    return { text: `$(sync~spin) Codewhale${waitingText}`, tooltip: 'codewhale-ls is starting', attention: waiting > 0 };
  }
  const sandbox = sandboxName(status.sandbox);
  const folder = status.workspace ? baseName(status.workspace) : '';
  // folders: the other folders of a multi-root window, each with its own
  // status when the server gave it (codewhale/status {workspace}).
  const others = folders.filter((f) => f.path !== status.workspace);
  const each = [status, ...others.map((f) => f.status)]
    .map((st, i) => {
      const name = i === 0 ? folder : baseName(others[i - 1].path);
      return st ? `${name}: posture ${st.posture}, sandbox ${sandboxName(st.sandbox)}` : `${name}: status unknown`;
    });
  const scope = !status.workspace
    ? `posture ${status.posture}, sandbox ${sandbox} (no folder open)`
    : others.length === 0
      ? `posture ${status.posture}, sandbox ${sandbox}, for folder ${status.workspace}`
      : `each folder decides by its own .codewhale/ files: ${each.join('; ')}`;
  return {
    text: `$(shield) ${folder ? folder + ': ' : ''}${status.posture} · ${sandbox}${others.length > 0 ? ` (+${others.length} folder${others.length > 1 ? 's' : ''})` : ''}${waitingText}`,
    tooltip: `Codewhale ${scope}; ${waiting} approval(s) waiting. codewhale-ls ${status.version}. Click for the status.`,
    attention: waiting > 0,
  };
}

/** A folder of the window and, when known, its status. */
export interface FolderStatus {
  path: string;
  status?: ServerStatus;
}

/** The last element of a path, whichever separator it uses. */
function baseName(p: string): string {
  const parts = p.split(/[\\/]/).filter((x) => x !== '');
  return parts[parts.length - 1] ?? p;
}

/** codewhale/status as a Markdown page (Show status). */
export function statusMarkdown(status: ServerStatus): string {
  const lines = [
    `# Codewhale status${status.workspace ? ': ' + baseName(status.workspace) : ''}`,
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
