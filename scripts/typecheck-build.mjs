// `npm test`'s one TypeScript compile (scripts/test.mjs runs it beside vitest; issue #39 item 9): the typecheck of
// tsconfig.json, and, when TEST_SHARED_BUILD names a file, also what `npm run build` writes to dist/, from the same
// program, so the run compiles the code once instead of twice.
//
// - The typecheck reports what `tsc --noEmit -p tsconfig.json` reports (options, syntax, globals, types of every file)
//   and exits 1 when there is any, 0 otherwise. Without TEST_SHARED_BUILD that is all it does.
// - The build takes tsconfig.build.json's options and roots, and emits the files `tsc -p tsconfig.build.json` would:
//   the roots and every module they import (never test support: hosts/build-input.test.ts). Then the run-time assets
//   and the migrations, as scripts/build.mjs copies them. It is checked first, so dist/ is ready early; it fails, as
//   `npm run build` would, on any error in those files or in their declarations. Its outcome is written as JSON
//   ({ ok, errors }) to TEST_SHARED_BUILD, which hosts/production-entry.test.ts waits for instead of running
//   `npm run build` again.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { copyBuildAssets } from './copy-build-assets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
process.chdir(ROOT);
const marker = process.env.TEST_SHARED_BUILD || undefined;

function parse(file) {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, file), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (parsed === undefined) throw new Error(`cannot read ${file}`);
  return parsed;
}

const check = parse('tsconfig.json');
const build = marker === undefined ? undefined : parse('tsconfig.build.json');
// The build's options differ from the typecheck's in what is emitted and where only (noEmit, outDir, rootDir,
// declaration, sourceMap): the types are checked the same.
const program = ts.createProgram({ rootNames: check.fileNames, options: build?.options ?? check.options, configFileParsingDiagnostics: [...check.errors, ...(build?.errors ?? [])] });
const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
const format = (diagnostics) => ts.formatDiagnostics(diagnostics, host);
const errorsOf = (files) => [
  ...(files === undefined ? [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()] : []),
  ...(files ?? program.getSourceFiles()).flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
];

/** The build's source files: its roots and what they import, transitively, outside node_modules (what tsc emits). */
function buildFiles() {
  const cache = ts.createModuleResolutionCache(ROOT, (f) => f, build.options);
  const seen = new Set();
  const queue = build.fileNames.map((f) => resolve(f));
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`the build's ${file} is not in the typecheck's program (tsconfig.json include)`);
    const { importedFiles, referencedFiles } = ts.preProcessFile(source.text, true, true);
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, build.options, ts.sys, cache).resolvedModule;
      if (resolved !== undefined && !resolved.isExternalLibraryImport && !resolved.resolvedFileName.endsWith('.d.ts')) queue.push(resolve(resolved.resolvedFileName));
    }
    for (const { fileName } of referencedFiles) queue.push(resolve(dirname(file), fileName));
  }
  return [...seen].map((file) => program.getSourceFile(file));
}

if (build !== undefined) {
  const files = buildFiles();
  const errors = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...errorsOf(files)];
  const outDir = build.options.outDir;
  rmSync(outDir, { recursive: true, force: true });
  for (const file of files) errors.push(...program.emit(file).diagnostics);
  copyBuildAssets(outDir);
  const result = JSON.stringify({ ok: errors.length === 0, files: files.length, errors: format(errors) });
  writeFileSync(`${marker}.tmp`, result);
  renameSync(`${marker}.tmp`, marker);
}

const errors = errorsOf(undefined);
if (errors.length > 0) {
  process.stdout.write(format(errors));
  process.stdout.write(`\nFound ${errors.length} error${errors.length === 1 ? '' : 's'}.\n`);
  process.exit(1);
}
