// Why codewhale-ls failed, in words, with what fixes it. No `vscode`
// import, so the unit tests run under plain `node --test`.

/** How the server process ended, as the extension saw it. */
export interface ServerExit {
  /** The exit code; null when a signal ended it or it never ran. */
  code: number | null;
  signal: string | null;
  /** The spawn error's code (ENOENT, EACCES, ENOEXEC, …) when it never ran. */
  spawnError?: string;
  /** The end of what it wrote to stderr. */
  stderr: string;
}

export interface FailureContext {
  command: string;
  /** Where the binary came from (serverPath.ts). */
  source: 'setting' | 'bundled' | 'PATH';
  platform: string;
  arch: string;
  /** The binary's first bytes, to tell a wrong-platform build; empty when unreadable. */
  header: Uint8Array;
  exit: ServerExit | undefined;
  /** It exited this many times in a row, the last restarts given up. */
  crashes: number;
  /** It never answered initialize. */
  neverStarted: boolean;
}

const elfMachines: Record<number, string> = { 0x03: 'x86 (32-bit)', 0x28: 'arm (32-bit)', 0x3e: 'x64', 0xb7: 'arm64' };
const machoCPUs: Record<number, string> = { 0x01000007: 'x64', 0x0100000c: 'arm64' };

/** A platform's executable format and CPU, as in a .vsix target name. */
function expected(platform: string, arch: string): string {
  return `${platform}-${arch}`;
}

/**
 * What the binary is built for, from its first bytes: "linux-arm64",
 * "darwin-x64", "win32", "script", or "unknown" when it is no executable
 * format at all; undefined when there are too few bytes to tell.
 */
export function binaryTarget(header: Uint8Array): string | undefined {
  if (header.length < 2) {
    return undefined;
  }
  if (header[0] === 0x23 && header[1] === 0x21) {
    return 'script';
  }
  if (header[0] === 0x4d && header[1] === 0x5a) {
    return 'win32';
  }
  if (header.length >= 20 && header[0] === 0x7f && header[1] === 0x45 && header[2] === 0x4c && header[3] === 0x46) {
    const machine = header[18] | (header[19] << 8);
    return `linux-${elfMachines[machine] ?? `machine 0x${machine.toString(16)}`}`;
  }
  if (header.length >= 8) {
    const magic = (header[0] | (header[1] << 8) | (header[2] << 16) | (header[3] << 24)) >>> 0;
    if (magic === 0xfeedfacf) {
      const cpu = (header[4] | (header[5] << 8) | (header[6] << 16) | (header[7] << 24)) >>> 0;
      return `darwin-${machoCPUs[cpu] ?? `cpu 0x${cpu.toString(16)}`}`;
    }
    if (header[0] === 0xca && header[1] === 0xfe && header[2] === 0xba && header[3] === 0xbe) {
      return 'darwin-universal';
    }
  }
  return header.length >= 8 ? 'unknown' : undefined;
}

/** Whether a binary built for target runs on platform/arch. */
function runsHere(target: string, platform: string, arch: string): boolean {
  if (target === 'script') {
    return true;
  }
  if (platform === 'win32') {
    return target === 'win32';
  }
  if (platform === 'darwin' && target === 'darwin-universal') {
    return true;
  }
  return target === expected(platform, arch);
}

/** The fix for a binary that is wrong, by where it came from. */
function fixFor(ctx: FailureContext): string {
  const here = expected(ctx.platform, ctx.arch);
  switch (ctx.source) {
    case 'setting':
      return `Fix codewhale.server.path (in your user settings; in a remote window, the remote's settings) to name a codewhale-ls built for ${here}, then run Codewhale: Restart server.`;
    case 'bundled':
      return `Reinstall the Codewhale extension for ${here} (its .vsix is codewhale-${here}.vsix), or set codewhale.server.path to a codewhale-ls built for ${here}.`;
    case 'PATH':
      return `Replace that codewhale-ls with one built for ${here} (go install github.com/codewhale-ls/codewhale-ls/cmd/codewhale-ls@latest), or set codewhale.server.path, then run Codewhale: Restart server.`;
  }
}

/** The last few lines the server wrote to stderr, without stack traces' noise. */
export function stderrGist(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  // Go's panics and Node's traces: the lines that say what went wrong
  // come before "goroutine N [running]:" and "at …" frames.
  const meaningful = lines.filter((l) => !/^(goroutine \d+|at |\S+\.go:\d+|\/.+:\d+ \+0x|created by |\[Error)/.test(l));
  const gist = meaningful.slice(-3).join(' / ');
  return gist.length > 400 ? gist.slice(0, 400) + '…' : gist;
}

/** The server's failure, said in words: what failed, why if known, and what fixes it. */
export function failureText(ctx: FailureContext): string {
  const which = `codewhale-ls (${ctx.command}, ${ctx.source === 'setting' ? 'from codewhale.server.path' : ctx.source === 'bundled' ? 'bundled with the extension' : 'found on PATH'})`;
  const target = binaryTarget(ctx.header);
  if (target !== undefined && !runsHere(target, ctx.platform, ctx.arch)) {
    const what = target === 'unknown' ? 'is not a program at all (its first bytes are no executable format)' : `is a build for ${target}, and this machine is ${expected(ctx.platform, ctx.arch)}`;
    return `${which} cannot run here: it ${what}. ${fixFor(ctx)}`;
  }
  const exit = ctx.exit;
  if (exit?.spawnError === 'EACCES') {
    return `${which} cannot run: it is not executable (permission denied). Make it executable (chmod +x ${ctx.command}) or ${fixFor(ctx).charAt(0).toLowerCase()}${fixFor(ctx).slice(1)}`;
  }
  if (exit?.spawnError === 'ENOENT') {
    return `${which} cannot run: the file does not exist (any more). ${fixFor(ctx)}`;
  }
  if (exit?.spawnError) {
    return `${which} cannot run (${exit.spawnError}). ${fixFor(ctx)}`;
  }
  const how = exit === undefined
    ? 'stopped'
    : exit.signal
      ? `was ended by ${exit.signal}`
      : `exited with code ${exit.code}`;
  const said = exit && stderrGist(exit.stderr) !== '' ? ` It said: “${stderrGist(exit.stderr)}”.` : ' It wrote nothing to stderr.';
  if (ctx.neverStarted) {
    return `${which} ${how} before it started.${said} See the Codewhale output for all it wrote; ${fixFor(ctx).charAt(0).toLowerCase()}${fixFor(ctx).slice(1)}`;
  }
  if (ctx.crashes > 1) {
    return `${which} ${how}, the ${ordinal(ctx.crashes)} time in a row, and is not restarted again.${said} Run Codewhale: Restart server once it is fixed; the Codewhale output has all it wrote.`;
  }
  return `${which} ${how}.${said} Run Codewhale: Restart server; the Codewhale output has all it wrote.`;
}

function ordinal(n: number): string {
  return n === 1 ? '1st' : n === 2 ? '2nd' : n === 3 ? '3rd' : `${n}th`;
}

/**
 * Whether the client restarts a server that exited: up to `max` exits
 * within `windowMs`, as vscode-languageclient's own default (5 in 3
 * minutes); exits is the times of the exits so far, the last one included.
 */
export function shouldRestart(exits: number[], windowMs = 3 * 60_000, max = 5): boolean {
  const last = exits[exits.length - 1] ?? 0;
  return exits.filter((t) => last - t < windowMs).length < max;
}
