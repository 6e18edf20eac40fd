// Whether this window runs codewhale-ls: every folder serves approvals
// from start-up (codewhale.serveAllFolders, the default), or only where
// Codewhale's policy files are, as before issue 25. No `vscode` import.

/** What the window holds that bears on running the server. */
export interface Holdings {
  /** codewhale.serveAllFolders, the user's own value (settings.ts serveAllFolders). */
  serveAllFolders: boolean;
  /** A folder of the window has a .codewhale/ (or .deepseek/) policy file, at any depth. */
  policyFileInFolder: boolean;
  /** A policy file is open (documentSelector matches it), the home's own included. */
  policyDocumentOpen: boolean;
}

/**
 * Whether the server should run. With serveAllFolders every folder is
 * served, so that an agent's hook in a repository without .codewhale/
 * finds this editor (the server's approval socket, one per folder);
 * linting stays with the policy files (documentSelector), so a folder
 * without them costs an idle server. Without it, only a window with a
 * policy file in a folder or open runs one, as the old activation events
 * did. A command run (codewhale.authorize, Show status, …) starts the
 * server whatever this says: the person asked for it.
 */
export function wantsServer(h: Holdings): boolean {
  return h.serveAllFolders || h.policyFileInFolder || h.policyDocumentOpen;
}
