// Builds one .vsix per platform, each with that platform's codewhale-ls
// inside (bin/), so installing the extension is the whole install.
//   node scripts/package.mjs [target ...]   (default: all five)
// Output: dist/codewhale-<target>.vsix. Needs Go and the devDependencies;
// vsce runs the vscode:prepublish bundle itself.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const extension = join(dirname(fileURLToPath(import.meta.url)), '..');
const repository = join(extension, '..', '..');
const goTargets = {
  'linux-x64': ['linux', 'amd64'],
  'linux-arm64': ['linux', 'arm64'],
  'darwin-x64': ['darwin', 'amd64'],
  'darwin-arm64': ['darwin', 'arm64'],
  'win32-x64': ['windows', 'amd64'],
};
const wanted = process.argv.slice(2);
for (const t of wanted) {
  if (!(t in goTargets)) {
    console.error(`unknown target ${t}; known: ${Object.keys(goTargets).join(', ')}`);
    process.exit(2);
  }
}
const targets = wanted.length > 0 ? wanted : Object.keys(goTargets);
const run = (cmd, args, env) => execFileSync(cmd, args, { cwd: extension, stdio: 'inherit', env: { ...process.env, ...env } });

mkdirSync(join(extension, 'dist'), { recursive: true });
const bin = join(extension, 'bin');
for (const target of targets) {
  const started = Date.now();
  const [goos, goarch] = goTargets[target];
  // Only this target's binary may be inside its .vsix.
  rmSync(bin, { recursive: true, force: true });
  const exe = join(bin, goos === 'windows' ? 'codewhale-ls.exe' : 'codewhale-ls');
  execFileSync('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', exe, './cmd/codewhale-ls'], {
    cwd: repository,
    stdio: 'inherit',
    env: { ...process.env, CGO_ENABLED: '0', GOOS: goos, GOARCH: goarch },
  });
  const out = join(extension, 'dist', `codewhale-${target}.vsix`);
  run(join(extension, 'node_modules', '.bin', 'vsce'), ['package', '--target', target, '--no-dependencies', '--skip-license', '--out', out]);
  console.log(`${target}: ${out} ${statSync(out).size} bytes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
rmSync(bin, { recursive: true, force: true });
