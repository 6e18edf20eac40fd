// Builds one .vsix per platform, each with that platform's codewhale-ls
// inside (bin/), so installing the extension is the whole install.
//   node scripts/package.mjs [--out DIR] [--binaries DIR] [--version V] [target ...]
//   (targets default to all five)
// Output: DIR/codewhale-<target>.vsix (DIR defaults to dist/). Needs Go
// and the devDependencies. Everything is staged in a temporary folder, so
// the source tree is never changed and two runs never meet.
// The release (tools/release, docs/release.md) packs the binaries it
// built, so the .vsix carry the same bytes as the archives:
//   --binaries DIR  takes DIR/<goos>_<goarch>/codewhale-ls[.exe] instead
//                   of building one;
//   --version V     stamps V into the staged package.json and names the
//                   output codewhale-<target>-<V>.vsix.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
// takeFlag removes `name value` from args and returns the value, or
// undefined when the flag is absent.
function takeFlag(name) {
  const at = args.indexOf(name);
  if (at < 0) {
    return undefined;
  }
  const value = args.splice(at, 2)[1];
  if (value === undefined || value.startsWith('--')) {
    console.error(`${name} needs a value`);
    process.exit(2);
  }
  return value;
}
const outDir = resolve(takeFlag('--out') ?? join(extension, 'dist'));
const binariesFlag = takeFlag('--binaries');
const binaries = binariesFlag === undefined ? undefined : resolve(binariesFlag);
const version = takeFlag('--version');
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
  if (version !== undefined) {
    manifest.version = version;
  }
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
    const binary = goos === 'windows' ? 'codewhale-ls.exe' : 'codewhale-ls';
    if (binaries !== undefined) {
      // The release's own binary; copyFileSync fails when it is missing.
      mkdirSync(bin, { recursive: true });
      copyFileSync(join(binaries, `${goos}_${goarch}`, binary), join(bin, binary));
      chmodSync(join(bin, binary), 0o755);
    } else {
      execFileSync('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', join(bin, binary), './cmd/codewhale-ls'], {
        cwd: repository,
        stdio: 'inherit',
        env: { ...process.env, CGO_ENABLED: '0', GOOS: goos, GOARCH: goarch },
      });
    }
    const out = join(outDir, version === undefined ? `codewhale-${target}.vsix` : `codewhale-${target}-${version}.vsix`);
    execFileSync(join(extension, 'node_modules', '.bin', 'vsce'), ['package', '--target', target, '--no-dependencies', '--out', out], { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'] });
    console.log(`${target}: ${out} ${statSync(out).size} bytes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
} finally {
  rmSync(stage, { recursive: true, force: true });
}
