// Decisions as the extension hands them on and shows them. No `vscode`
// import.

export interface TraceEntry {
  layer: number;
  name: string;
  effect: string;
  detail: string;
}

/** A final Decision (docs/codewhale/contract.md §3), the fields read here. */
export interface Decision {
  decision: 'allow' | 'deny' | 'ask';
  layer: number;
  layerName: string;
  reason: string;
  rule: string | null;
  callId?: string | null;
  trace: TraceEntry[];
  approval: { choice: string; source: string } | null;
  [field: string]: unknown;
}

/**
 * What codewhale.authorize returns when anything on our side fails (no
 * server, an error, an untrusted workspace, a malformed answer): a deny,
 * never an exception a caller might treat as "go ahead". Layer 0 and
 * layerName "client": none of Codewhale's nine layers decided it.
 */
export function clientDeny(reason: string, call: unknown): Decision {
  const callId = isRecord(call) && typeof call.callId === 'string' ? call.callId : null;
  return { decision: 'deny', layer: 0, layerName: 'client', reason, rule: null, callId, trace: [], approval: null };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The server's answer to codewhale/authorize, checked: anything but a
 * well-formed allow or deny becomes a deny that says why.
 */
export function finalDecision(result: unknown, call: unknown): Decision {
  if (!isRecord(result) || (result.decision !== 'allow' && result.decision !== 'deny') || typeof result.reason !== 'string' || !Array.isArray(result.trace)) {
    return clientDeny('codewhale-ls answered codewhale/authorize with something that is not a final decision', call);
  }
  return result as Decision;
}

/** One line of the decision log channel. */
export function decisionLine(d: Decision): string {
  const tool = isRecord(d.input) && typeof d.input.command === 'string' ? ` ${JSON.stringify(d.input.command)}` : '';
  const approval = d.approval ? ` (approval: ${d.approval.choice}/${d.approval.source})` : '';
  const rule = d.rule ? ` rule ${JSON.stringify(d.rule)}` : '';
  return `${d.decision.toUpperCase()} at layer ${d.layer} ${d.layerName}${rule}${approval}${tool}: ${d.reason}`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

/** codewhale/explain's answer as a Markdown page: the verdict, then the layers. */
export function explainMarkdown(tool: string, command: string, d: Decision): string {
  const lines = [
    `# ${escapeMarkdown(tool)}: \`${command.replace(/`/g, "'")}\``,
    '',
    `**${d.decision}** at layer ${d.layer} (${escapeMarkdown(d.layerName)}): ${escapeMarkdown(d.reason)}`,
    '',
    '| layer | name | effect | detail |',
    '|---|---|---|---|',
  ];
  for (const entry of d.trace) {
    lines.push(`| ${entry.layer} | ${escapeMarkdown(entry.name)} | ${escapeMarkdown(entry.effect)} | ${escapeMarkdown(entry.detail).replace(/\n/g, ' ')} |`);
  }
  return lines.join('\n') + '\n';
}

/** What to do about an open permissions.toml after an "always" grant. */
export type GrantFollowUp = 'none' | 'reloads-itself' | 'warn-unsaved';

/**
 * After "always" the server appended a rule to permissions.toml on disk.
 * A clean open buffer is reloaded by VS Code itself; a buffer with unsaved
 * edits is never overwritten, so the user is told and offered a compare.
 */
export function grantFollowUp(d: Decision, permissionsOpen: boolean, dirty: boolean): GrantFollowUp {
  if (d.approval?.choice !== 'always' || d.decision !== 'allow' || !permissionsOpen) {
    return 'none';
  }
  return dirty ? 'warn-unsaved' : 'reloads-itself';
}
