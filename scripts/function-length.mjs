/**
 * Function-length check (house rule: a function fits on a screen, at most 60 lines). Parses the source of every
 * workspace (`packages/<name>/src`, and `app`, `lib`, `ui` of `apps/dashboard`) with the TypeScript compiler API,
 * measures every function, method and arrow function from its first line to its last, and fails on any longer
 * than the limit unless `scripts/function-length.baseline` lists it. The baseline may only shrink: a listed
 * function that grew, got short enough or is gone is an error too, so the list is trimmed as functions are split.
 * Test files are not measured. Usage: `node scripts/function-length.mjs [--print]` (`--print`: write the baseline
 * lines of today's long functions to stdout).
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import {
  isArrowFunction,
  isClassDeclaration,
  isConstructorDeclaration,
  isFunctionDeclaration,
  isFunctionExpression,
  isGetAccessorDeclaration,
  isMethodDeclaration,
  isPropertyAssignment,
  isPropertyDeclaration,
  isSetAccessorDeclaration,
  isVariableDeclaration,
} from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

const LIMIT = 60;
const ROOT = resolve(import.meta.dirname, '..');
const BASELINE = resolve(ROOT, 'scripts/function-length.baseline');
const PROJECTS = [
  'packages/bench',
  'packages/chaos',
  'packages/demo',
  'packages/deploy',
  'packages/middleware',
  'packages/proxy',
  'packages/telemetry',
  'apps/dashboard',
];
const MEASURED = /^(packages\/[^/]+\/src|apps\/dashboard\/(app|lib|ui))\//;
const TEST = /\.(test|spec|test-d)\.tsx?$|\/test-support\//;

const isFunction = (n) =>
  isFunctionDeclaration(n) ||
  isFunctionExpression(n) ||
  isArrowFunction(n) ||
  isMethodDeclaration(n) ||
  isConstructorDeclaration(n) ||
  isGetAccessorDeclaration(n) ||
  isSetAccessorDeclaration(n);

/** A readable name: the function's own, else the variable, property or class member it is assigned to. */
function nameOf(node) {
  if (isConstructorDeclaration(node)) return `${node.parent.name?.text ?? '<class>'}.constructor`;
  const own = node.name?.text;
  const holder = node.parent;
  const owner = isClassDeclaration(holder) ? `${holder.name?.text ?? '<class>'}.` : '';
  if (own) return owner + own;
  if (isVariableDeclaration(holder) || isPropertyAssignment(holder) || isPropertyDeclaration(holder)) {
    return holder.name?.text ?? '<anonymous>';
  }
  return '<anonymous>';
}

/** Every function of one file: `{ file, name, line, lines }`, a nested one named `outer/inner`. */
function measure(sourceFile, file) {
  const found = [];
  const visit = (node, outer) => {
    let inner = outer;
    if (isFunction(node)) {
      const start = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line;
      const end = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
      inner = outer === '' ? nameOf(node) : `${outer}/${nameOf(node)}`;
      found.push({ file, name: inner, line: start + 1, lines: end - start + 1 });
    }
    node.forEachChild((child) => visit(child, inner));
  };
  sourceFile.forEachChild((child) => visit(child, ''));
  return found;
}

function measureAll() {
  const api = new API({ cwd: ROOT });
  try {
    const seen = new Set();
    const all = [];
    let snapshot;
    for (const project of PROJECTS) {
      snapshot = api.updateSnapshot({ openProject: resolve(ROOT, project, 'tsconfig.json') });
    }
    for (const { program } of snapshot.getProjects()) {
      for (const name of program.getSourceFileNames()) {
        const file = relative(ROOT, name);
        if (seen.has(file) || !MEASURED.test(file) || TEST.test(file)) continue;
        seen.add(file);
        all.push(...measure(program.getSourceFile(name), file));
      }
    }
    return all;
  } finally {
    api.close?.();
  }
}

/** The baseline: `lines file name` per line; `#` starts a comment. */
function readBaseline() {
  const entries = new Map();
  for (const raw of readFileSync(BASELINE, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const [lines, file, name] = line.split(/\s+/);
    entries.set(`${file} ${name}`, Number(lines));
  }
  return entries;
}

const found = measureAll();
const long = found.filter((f) => f.lines > LIMIT).sort((a, b) => b.lines - a.lines);
if (process.argv.includes('--print')) {
  for (const f of long) console.log(`${f.lines} ${f.file} ${f.name}`);
  process.exit(0);
}
const baseline = readBaseline();
const errors = [];
const longest = new Map();
for (const f of long) {
  const key = `${f.file} ${f.name}`;
  longest.set(key, Math.max(longest.get(key) ?? 0, f.lines));
}
for (const [key, lines] of longest) {
  const allowed = baseline.get(key);
  const [file, name] = key.split(' ');
  const at = found.find((f) => f.file === file && f.name === name && f.lines === lines);
  if (allowed === undefined) {
    errors.push(`${file}:${at.line} ${name} has ${lines} lines (limit ${LIMIT}): split it`);
  } else if (lines > allowed) {
    errors.push(
      `${file}:${at.line} ${name} grew to ${lines} lines (baseline ${allowed}): the baseline only shrinks`,
    );
  } else if (lines < allowed) {
    errors.push(`${key}: now ${lines} lines; lower its baseline entry from ${allowed} to ${lines}`);
  }
}
for (const [key, allowed] of baseline) {
  if (!longest.has(key)) {
    errors.push(
      `${key}: listed in the baseline (${allowed}) but now within ${LIMIT} lines or gone; remove it`,
    );
  }
}
if (errors.length > 0) {
  console.error(`function-length: ${errors.length} problem(s)\n  ${errors.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `function-length: ${found.length} functions, ${long.length} over ${LIMIT} lines, all in the baseline`,
);
