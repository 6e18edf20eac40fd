// Being told that a card waits while the VS Code window is not focused.
// No `vscode` import: client.ts shows what this decides.
//
// What VS Code's stable API offers an extension (checked against
// @types/vscode 1.91 and the API's issues): window.state.focused and
// onDidChangeWindowState say whether the window has the focus; a
// notification (showWarningMessage, or a progress notification from
// withProgress) shows in the window's corner and, for the progress kind,
// can be closed by the extension; a modal message is a dialog the
// extension cannot close. No stable API flashes the taskbar, bounces the
// dock or posts an OS notification (microsoft/vscode#196165 asked for one;
// VS Code's own dock badge for chat is internal). So the window is told
// with a progress notification: it stays while the card waits and the
// window is away, and goes by itself once the card is answered, withdrawn
// or the window has the focus again, so it never outlives its card. It
// only tells: it has no button, and approving stays on the card.
import { askerName } from './approvalHtml';
import { ApprovalPrompt } from './approvals';

export type AttentionStep = 'notify' | 'update' | 'close' | 'none';

/**
 * The notification's next step. focused: the window has the focus;
 * waiting: cards in the queue; notifying: the notification is on screen.
 */
export function attentionStep(focused: boolean, waiting: number, notifying: boolean): AttentionStep {
  if (notifying) {
    return focused || waiting === 0 ? 'close' : 'update';
  }
  return !focused && waiting > 0 ? 'notify' : 'none';
}

/**
 * The notification's words about the oldest card, the most of it first
 * (a toast shows one line): who waits for the person and until when in
 * local time, then the tool and how many more wait. Never the input
 * itself (the card alone shows it whole, escaped); the agent's and the
 * tool's names only when they are plain names, since the agent chose them
 * and a notification renders [text](link) as a link.
 */
export function attentionMessage(prompt: ApprovalPrompt, waiting: number): string {
  const who = askerName(prompt.agent);
  const asker = /^[A-Za-z0-9 _.-]{1,40}$/.test(who) ? who : 'An agent';
  const tool = /^[A-Za-z0-9_.:-]{1,40}$/.test(prompt.tool) ? prompt.tool : 'a tool';
  const more = waiting > 1 ? `, ${waiting - 1} more waiting` : '';
  return `Codewhale: ${asker} awaits your answer by ${clockOf(prompt.deadline)} (${tool}${more}); it is on the card in this window.`;
}

/** "14:05:31", the deadline in local time; "its deadline" when unreadable. */
function clockOf(deadline: string): string {
  const end = new Date(deadline);
  if (isNaN(end.getTime())) {
    return 'its deadline';
  }
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(end.getHours())}:${pad(end.getMinutes())}:${pad(end.getSeconds())}`;
}
