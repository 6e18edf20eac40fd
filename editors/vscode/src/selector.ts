// The files the extension attaches to, by path: Codewhale's policy files
// are TOML and JSON, and every other TOML or JSON file is left to other
// extensions. No `vscode` import.
import * as path from 'node:path';

/** Policy file names inside a workspace's .codewhale (or legacy .deepseek). */
export const workspaceFiles = ['config.toml', 'permissions.toml', 'hooks.toml', 'constitution.json'];
/** The user's own policy files in the Codewhale home. */
export const homeFiles = ['config.toml', 'permissions.toml'];

/** Glob patterns for every workspace's policy files, at any depth. */
export function workspacePatterns(): string[] {
  return ['.codewhale', '.deepseek'].map((dir) => `**/${dir}/{${workspaceFiles.join(',')}}`);
}

/**
 * Absolute glob patterns of the user's files: ~/.codewhale, the legacy
 * ~/.deepseek, and $CODEWHALE_HOME when it is set.
 */
export function homePatterns(home: string, codewhaleHome: string | undefined): string[] {
  const dirs = [path.join(home, '.codewhale'), path.join(home, '.deepseek')];
  if (codewhaleHome && codewhaleHome.trim() !== '') {
    const expanded = codewhaleHome.startsWith('~') ? path.join(home, codewhaleHome.slice(1)) : codewhaleHome;
    dirs.push(path.resolve(expanded));
  }
  const patterns: string[] = [];
  for (const dir of new Set(dirs)) {
    // Globs use forward slashes on every platform.
    patterns.push(`${dir.split(path.sep).join('/')}/{${homeFiles.join(',')}}`);
  }
  return patterns;
}

export interface SelectorEntry {
  scheme: 'file';
  pattern: string;
}

/** The language client's documentSelector: by path only, never by language. */
export function documentSelector(home: string, codewhaleHome: string | undefined): SelectorEntry[] {
  return [...workspacePatterns(), ...homePatterns(home, codewhaleHome)].map((pattern) => ({ scheme: 'file', pattern }));
}
