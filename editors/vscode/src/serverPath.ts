// Which codewhale-ls binary the extension starts. No `vscode` import, so
// the unit tests run under plain `node --test`.
import * as path from 'node:path';

export const installCommand = 'go install github.com/codewhale-ls/codewhale-ls/cmd/codewhale-ls@latest';

export interface ServerLookup {
  /** codewhale.server.path; empty when unset (or ignored, untrusted). */
  configured: string;
  /** The extension's install folder, where bin/ holds a bundled binary. */
  extensionPath: string;
  platform: NodeJS.Platform;
  /** The PATH environment variable. */
  pathEnv: string;
  /** Whether path names an executable regular file. */
  isExecutable: (file: string) => boolean;
}

export type ServerChoice =
  | { command: string; source: 'setting' | 'bundled' | 'PATH' }
  | { error: string };

function executableName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'codewhale-ls.exe' : 'codewhale-ls';
}

/**
 * The setting first (an explicit choice that is wrong is an error, never
 * silently replaced by another binary), then the binary bundled in the
 * platform's .vsix, then one on PATH, else an error that says how to
 * install it.
 */
export function resolveServer(lookup: ServerLookup): ServerChoice {
  const exe = executableName(lookup.platform);
  const configured = lookup.configured.trim();
  if (configured !== '') {
    if (!path.isAbsolute(configured)) {
      return { error: `codewhale.server.path must be an absolute path; it is "${configured}".` };
    }
    if (!lookup.isExecutable(configured)) {
      return { error: `codewhale.server.path names ${configured}, which is not an executable file.` };
    }
    return { command: configured, source: 'setting' };
  }
  const bundled = path.join(lookup.extensionPath, 'bin', exe);
  if (lookup.isExecutable(bundled)) {
    return { command: bundled, source: 'bundled' };
  }
  const separator = lookup.platform === 'win32' ? ';' : ':';
  for (const dir of lookup.pathEnv.split(separator)) {
    // An empty or relative PATH entry would resolve against the workspace,
    // which the agent may control.
    if (dir === '' || !path.isAbsolute(dir)) {
      continue;
    }
    const candidate = path.join(dir, exe);
    if (lookup.isExecutable(candidate)) {
      return { command: candidate, source: 'PATH' };
    }
  }
  return {
    error: `codewhale-ls was not found: this extension has no bundled binary for ${lookup.platform}, ` +
      `codewhale.server.path is not set and no codewhale-ls is on PATH. Install it with: ${installCommand}`,
  };
}
