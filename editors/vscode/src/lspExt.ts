// codewhale-ls's own LSP methods (docs/codewhale/contract.md §4), as typed
// request and notification constants, after rust-analyzer's lsp_ext.ts:
// every codewhale/* message the extension and its tests send or handle
// goes through these, so a method's name and its params and result types
// are said once. No `vscode` import: the protocol tests use them too.
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type { ApprovalAnswer, ApprovalPrompt } from './approvals';
import type { Decision } from './decision';
import type { ServerStatus } from './status';

/**
 * AuthorizeRequest (contract.md §3): one tool call to decide. The server
 * checks every field and answers a missing or mistyped one with an error
 * naming it, so a call from another extension is passed on as it came.
 */
export interface AuthorizeParams {
  tool: string;
  input: Record<string, unknown>;
  workspace?: string;
  mode?: 'plan' | 'agent' | 'operate' | 'yolo';
  posture?: 'ask' | 'auto-review' | 'full-access' | 'never';
  origin?: 'interactive' | 'background' | 'headless';
  callId?: string;
  allowedTools?: string[];
  disallowedTools?: string[];
}

/** client → server: decides a call, prompting by codewhale/approve if it must; the Decision is final (allow or deny). */
export const AuthorizeRequest = new RequestType<AuthorizeParams, Decision, void>('codewhale/authorize');

/** client → server: the Decision the call would get, with its trace; never prompts, may be `ask`. */
export const ExplainRequest = new RequestType<AuthorizeParams, Decision, void>('codewhale/explain');

/**
 * client → server: the status of the server's workspace, sent without
 * params. A typed request with a param would send an absent one as
 * `[null]`; the folder form is FolderStatusRequest.
 */
export const StatusRequest = new RequestType0<ServerStatus, void>('codewhale/status');

/** codewhale/status's params for one folder of a multi-root window (one the editor opened). */
export interface FolderStatusParams {
  workspace: string;
}

/** client → server: codewhale/status for one folder of a multi-root window. */
export const FolderStatusRequest = new RequestType<FolderStatusParams, ServerStatus, void>('codewhale/status');

/** server → client: a prompt for the user; the answer is an offered choice, or null (a deny). */
export const ApproveRequest = new RequestType<ApprovalPrompt, ApprovalAnswer, void>('codewhale/approve');

/** codewhale/approvalWithdrawn's params. */
export interface ApprovalWithdrawnParams {
  /** The codewhale/approve prompt's id. */
  id: string;
  /** `timeout` or `cancelled`. */
  reason: string;
}

/** server → client: the server stopped waiting for a prompt (deadline, cancelled, shutdown); the call is already denied. */
export const ApprovalWithdrawnNotification = new NotificationType<ApprovalWithdrawnParams>('codewhale/approvalWithdrawn');

/** server → client: the final Decision of every authorize call, for the decision log. */
export const DecisionNotification = new NotificationType<Decision>('codewhale/decision');

// The asynchronous form of approvals (`approvalsAsync: true`, for clients
// whose handlers cannot wait for a person, such as Neovim 0.7). This
// extension answers codewhale/approve and never asks for it; the types
// are here so that the list of methods is whole.

/** server → client, with approvalsAsync: the prompt codewhale/approve would carry. */
export const ApprovalRequestedNotification = new NotificationType<ApprovalPrompt>('codewhale/approvalRequested');

/** codewhale/answerApproval's params: exactly these two keys; a null choice is a dismissal. */
export interface AnswerApprovalParams {
  id: string;
  choice: string | null;
}

/** client → server, with approvalsAsync: the answer to a codewhale/approvalRequested prompt; the result is `{}`. */
export const AnswerApprovalRequest = new RequestType<AnswerApprovalParams, Record<string, never>, void>('codewhale/answerApproval');
