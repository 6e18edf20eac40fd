// The queue of codewhale/approve prompts waiting for the user, and what an
// answer sends back. No `vscode` import: the panel in client.ts only
// shows what this holds.

export interface ApprovalChoice {
  id: string;
  title: string;
  /** For "always": the exact [[rules]] TOML that would be appended. */
  preview?: string;
}

/**
 * One field of the call's input, whole, as the server escaped it
 * (docs/codewhale/contract.md §4): `text` has each newline as `⏎` and a
 * line break, every other character that is not printable ASCII as
 * `⟪…⟫`; `bytes` is the value's size, `escaped` how many characters are
 * escapes, `hidden` how many bytes were left out in the middle (only past
 * 64 KiB, marked `⟪… N bytes hidden …⟫` in the text).
 */
export interface InputField {
  field: string;
  text: string;
  bytes: number;
  escaped: number;
  hidden: number;
}

/** codewhale/approve's params (docs/codewhale/contract.md §4). */
export interface ApprovalPrompt {
  id: string;
  tool: string;
  summary: string;
  detail?: string;
  reason: string;
  layer: number;
  rule?: string | null;
  workspace?: string;
  /** The other agent whose pre-tool hook asked (`codewhale-ls hook AGENT`); absent for the editor's own agent. */
  agent?: string;
  /** The Codewhale release whose rules decided the card. */
  codewhale?: string;
  /** Every field of the input, the summary's first; absent from older servers. */
  inputs?: InputField[];
  choices: ApprovalChoice[];
  default: string;
  /** RFC 3339, UTC. */
  deadline: string;
}

/** codewhale/approve's result: an offered choice, or null (a deny). */
export type ApprovalAnswer = { choice: string } | null;

/**
 * The one rule of Restricted Mode, for the card and for
 * codewhale.authorize alike: in a window whose folder is not trusted
 * nothing can be approved.
 */
export const restrictedText =
  'This window is in Restricted Mode (its folder is not trusted): nothing can be approved in it, ' +
  'so every call that needs your approval is denied. To approve calls here, trust the folder ' +
  '(Workspaces: Manage Workspace Trust).';

/**
 * The choices the user can take: in Restricted Mode Deny alone, else
 * every offered one.
 */
export function allowedChoices(prompt: ApprovalPrompt, trusted: boolean): ApprovalChoice[] {
  return trusted ? prompt.choices : prompt.choices.filter((c) => c.id === 'deny');
}

interface Pending {
  prompt: ApprovalPrompt;
  respond: (answer: ApprovalAnswer) => void;
}

/**
 * Prompts in the order they arrived; the oldest is the one shown. Each is
 * answered exactly once: by the user, or with null when it is withdrawn
 * or the queue is disposed. The server decides deny itself when its
 * deadline passes and then withdraws the prompt, so nothing here times out.
 */
export class ApprovalQueue {
  private readonly pending: Pending[] = [];

  /**
   * trusted says whether the window's folder is trusted now: when it is
   * not, an answer other than Deny is taken as null (a deny), whatever
   * the page sent.
   */
  constructor(private readonly changed: () => void, private readonly trusted: () => boolean = () => true) {}

  add(prompt: ApprovalPrompt, respond: (answer: ApprovalAnswer) => void): void {
    this.pending.push({ prompt, respond });
    this.changed();
  }

  /** The prompt on screen: the oldest still waiting. */
  current(): ApprovalPrompt | undefined {
    return this.pending[0]?.prompt;
  }

  size(): number {
    return this.pending.length;
  }
  /** The other agents whose calls wait, each once, oldest first. */
  askedBy(): string[] {
    return [...new Set(this.pending.map((p) => p.prompt.agent).filter((a): a is string => !!a))];
  }


  /**
   * The user's answer to prompt id. A choice the prompt did not offer, or
   * none (Esc, the panel closed), is answered null, which the server
   * takes as a deny. Returns false when id is no longer waiting (already
   * answered or withdrawn: a late click does nothing).
   */
  answer(id: string, choice: string | null | undefined): boolean {
    const entry = this.take(id);
    if (!entry) {
      return false;
    }
    const offered = typeof choice === 'string' && allowedChoices(entry.prompt, this.trusted()).some((c) => c.id === choice);
    entry.respond(offered ? { choice: choice as string } : null);
    return true;
  }

  /** The server stopped waiting for id (deadline, cancel, shutdown). */
  withdraw(id: string): boolean {
    const entry = this.take(id);
    entry?.respond(null);
    return entry !== undefined;
  }

  /** Answers every prompt null (the client is stopping). */
  dispose(): void {
    const all = this.pending.splice(0);
    for (const entry of all) {
      entry.respond(null);
    }
    if (all.length > 0) {
      this.changed();
    }
  }

  private take(id: string): Pending | undefined {
    const index = this.pending.findIndex((p) => p.prompt.id === id);
    if (index < 0) {
      return undefined;
    }
    const [entry] = this.pending.splice(index, 1);
    this.changed();
    return entry;
  }
}

/** What the approval panel holds when the queue or its visibility changes. */
export interface PanelState {
  /** The id of the prompt the panel's page shows; undefined when there is no panel. */
  shownId: string | undefined;
  /** The id of the prompt in the panel's webview.html (the page VS Code reloads). */
  htmlId: string | undefined;
  /** How many prompts behind it the panel's webview.html says wait. */
  htmlBehind: number;
  /** Whether the panel is on screen. */
  visible: boolean;
}

/**
 * What the panel does next. A new page (webview.html) makes VS Code build
 * the page's frame again (docs/performance.md), so a panel on screen gets
 * the next prompt's card posted into the page it has ('card', which arms
 * its buttons afresh as a new page would) and a new count as a message;
 * webview.html is set for a panel not yet made or hidden: VS Code drops a
 * hidden webview's page and reloads it from webview.html when it shows
 * again, so a hidden panel's html is brought up to date with what it
 * missed. A prompt not on screen yet is revealed.
 */
export type PanelUpdate =
  | { kind: 'close' }
  | { kind: 'page'; prompt: ApprovalPrompt; behind: number; reveal: boolean }
  | { kind: 'card'; prompt: ApprovalPrompt; behind: number }
  | { kind: 'count'; behind: number }
  | { kind: 'none' };

/**
 * The panel's next step for the queue's oldest prompt (current) and the
 * number of prompts waiting. Only a prompt that was not on screen yet is
 * revealed: a prompt queueing behind the one shown must not rebuild it,
 * take the focus or re-arm the buttons of the prompt the user is reading.
 */
export function panelUpdate(state: PanelState, current: ApprovalPrompt | undefined, waiting: number): PanelUpdate {
  if (!current) {
    return { kind: 'close' };
  }
  const behind = waiting - 1;
  if (current.id !== state.shownId) {
    return state.visible ? { kind: 'card', prompt: current, behind } : { kind: 'page', prompt: current, behind, reveal: true };
  }
  if (state.visible) {
    return { kind: 'count', behind };
  }
  return current.id === state.htmlId && behind === state.htmlBehind ? { kind: 'none' } : { kind: 'page', prompt: current, behind, reveal: false };
}

/**
 * The choices as buttons: Deny first (it is the default and takes the
 * focus), then the others in the server's order. Only offered choices.
 */
export function buttonOrder(prompt: ApprovalPrompt, trusted = true): ApprovalChoice[] {
  const choices = allowedChoices(prompt, trusted);
  const deny = choices.filter((c) => c.id === 'deny');
  return [...deny, ...choices.filter((c) => c.id !== 'deny')];
}

/**
 * "23 s left, until 14:05:31": the time left and the deadline in the
 * user's local time. Self-contained (no outside references) because the
 * webview runs this same function's source for its live countdown.
 */
export function countdownText(deadline: string, nowMs: number): string {
  const end = new Date(deadline);
  if (isNaN(end.getTime())) {
    return 'no valid deadline';
  }
  const pad = (n: number): string => (n < 10 ? '0' : '') + n;
  const clock = pad(end.getHours()) + ':' + pad(end.getMinutes()) + ':' + pad(end.getSeconds());
  const left = Math.ceil((end.getTime() - nowMs) / 1000);
  if (left <= 0) {
    return 'time is up (denied at ' + clock + ')';
  }
  const minutes = Math.floor(left / 60);
  const seconds = left % 60;
  const amount = minutes > 0 ? minutes + ' min ' + seconds + ' s' : seconds + ' s';
  return amount + ' left, until ' + clock;
}
