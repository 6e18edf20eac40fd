// Builds one .vsix per platform, each with that platform's codewhale-ls
// inside (bin/), so installing the extension is the whole install.
//   node scripts/package.mjs [--out DIR] [target ...]   (default: all five)
// Output: DIR/codewhale-<target>.vsix (DIR defaults to dist/). Needs Go
// and the devDependencies. Everything is staged in a temporary folder, so
// the source tree is never changed and two runs never meet.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
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

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const outDir = resolve(outAt >= 0 ? args.splice(outAt, 2)[1] ?? '' : join(extension, 'dist'));
for (const t of args) {
  if (!(t in goTargets)) {
    console.error(`unknown target ${t}; known: ${Object.keys(goTargets).join(', ')}`);
    process.exit(2);
  }
}
const targets = args.length > 0 ? args : Object.keys(goTargets);

const stage = mkdtempSync(join(tmpdir(), 'codewhale-vsix-'));
try {
  // The manifest without scripts or devDependencies: vsce runs no
  // prepublish step and looks for no node_modules; the bundle has all.
  const manifest = JSON.parse(readFileSync(join(extension, 'package.json'), 'utf8'));
  delete manifest.scripts;
  delete manifest.devDependencies;
  writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  for (const file of ['README.md', '.vscodeignore']) {
    copyFileSync(join(extension, file), join(stage, file));
  }
  // The repository's one LICENSE (MIT), which vsce puts in every .vsix.
  copyFileSync(join(repository, 'LICENSE'), join(stage, 'LICENSE'));
  execFileSync('node', [join(extension, 'scripts', 'copy-schemas.mjs'), join(stage, 'schemas')], { stdio: 'inherit' });
  execFileSync(join(extension, 'node_modules', '.bin', 'esbuild'), [
    join(extension, 'src', 'extension.ts'), '--bundle', `--outfile=${join(stage, 'out', 'extension.js')}`,
    '--external:vscode', '--format=cjs', '--platform=node', '--target=node20', '--log-level=warning',
  ], { cwd: extension, stdio: 'inherit' });
  mkdirSync(outDir, { recursive: true });
  for (const target of targets) {
    const started = Date.now();
    const [goos, goarch] = goTargets[target];
    // Only this target's binary may be inside its .vsix.
    const bin = join(stage, 'bin');
    rmSync(bin, { recursive: true, force: true });
    execFileSync('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', join(bin, goos === 'windows' ? 'codewhale-ls.exe' : 'codewhale-ls'), './cmd/codewhale-ls'], {
      cwd: repository,
      stdio: 'inherit',
      env: { ...process.env, CGO_ENABLED: '0', GOOS: goos, GOARCH: goarch },
    });
    const out = join(outDir, `codewhale-${target}.vsix`);
    execFileSync(join(extension, 'node_modules', '.bin', 'vsce'), ['package', '--target', target, '--no-dependencies', '--out', out], { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'] });
    console.log(`${target}: ${out} ${statSync(out).size} bytes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
} finally {
  rmSync(stage, { recursive: true, force: true });
}
