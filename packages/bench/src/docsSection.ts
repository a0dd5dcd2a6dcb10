/*
 * Writes what the benchmark generates into the docs: docs/benchmarks.md (the document a run renders, and the
 * sections that their own runs write between markers, `<!-- bench:NAME -->`) and the headline between the root
 * README's bench:headline markers, formatted with the repository's Biome so the root lint stays clean.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs');
const BENCHMARKS = join(DOCS, 'benchmarks.md');
const README = join(DOCS, '..', 'README.md');

/** A generated section, `name` a regular expression (its name is group 1). */
const sectionPattern = (name: string, flags = '') =>
  new RegExp(`<!-- bench:(${name}) -->[\\s\\S]*?<!-- /bench:\\1 -->`, flags);

/** Formats `files` with the repository's Biome (it formats Markdown and JSON). */
export function formatWithBiome(files: readonly string[]): void {
  const biome = join(
    dirname(createRequire(import.meta.url).resolve('@biomejs/biome/package.json')),
    'bin',
    'biome',
  );
  execFileSync(process.execPath, [biome, 'format', '--write', ...files], {
    cwd: join(DOCS, '..'),
    stdio: 'pipe',
  });
}

/**
 * `markdown` with the generated sections of `previous` (docs/benchmarks.md before it is rewritten) that it lacks,
 * appended in their order: a partial run that renders the document again keeps what only the full run writes.
 */
export function keepSections(previous: string, markdown: string): string {
  const missing = [...previous.matchAll(sectionPattern('[\\w-]+', 'g'))].filter(
    ([, name]) => !markdown.includes(`<!-- bench:${name} -->`),
  );
  return missing.length
    ? `${markdown.trimEnd()}\n\n${missing.map(([block]) => block).join('\n\n')}\n`
    : markdown;
}

/** Writes the rendered docs/benchmarks.md, keeping the generated sections it does not render (unformatted). */
export function writeBenchmarksDoc(markdown: string): void {
  writeFileSync(BENCHMARKS, keepSections(readFileSync(BENCHMARKS, 'utf8'), markdown));
}

/** Writes `headline` between the root README's bench:headline markers (unformatted); returns the README's path. */
export function writeReadmeHeadline(headline: string): string {
  const marked = /(<!-- bench:headline -->\n)[\s\S]*?(<!-- \/bench:headline -->)/;
  const text = readFileSync(README, 'utf8');
  if (!marked.test(text)) throw new Error(`${README} has no <!-- bench:headline --> markers`);
  writeFileSync(
    README,
    text.replace(marked, (_, open, close) => `${open}\n${headline.trim()}\n\n${close}`),
  );
  return README;
}

/** Writes one generated section of docs/benchmarks.md (appended when absent) and formats it with `also`. */
export function writeDocsSection(name: string, section: string, also: readonly string[] = []): void {
  const text = readFileSync(BENCHMARKS, 'utf8');
  const marked = sectionPattern(name);
  const block = `<!-- bench:${name} -->\n${section}\n<!-- /bench:${name} -->`;
  writeFileSync(
    BENCHMARKS,
    marked.test(text) ? text.replace(marked, () => block) : `${text.trimEnd()}\n\n${block}\n`,
  );
  formatWithBiome([BENCHMARKS, ...also]);
}
