import { describe, expect, it } from 'vitest';
import { keepSections } from '../src/docsSection.js';

describe('keepSections', () => {
  const fleet = '<!-- bench:fleet -->\n## 4. A fleet\n\n| a |\n<!-- /bench:fleet -->';
  const idle = '<!-- bench:idle-cap -->\n## 5. The idle cap\n<!-- /bench:idle-cap -->';
  const previous = `# Benchmarks\n\nold body\n\n${fleet}\n\n${idle}\n`;

  it('keeps the generated sections a partial run does not render, in their order', () => {
    const kept = keepSections(previous, '# Benchmarks\n\nnew body\n');
    expect(kept).toBe(`# Benchmarks\n\nnew body\n\n${fleet}\n\n${idle}\n`);
  });

  it('keeps the rendered one where the new document has it, and changes nothing without sections', () => {
    const renewed = '<!-- bench:fleet -->\nnew fleet\n<!-- /bench:fleet -->';
    expect(keepSections(previous, `# B\n\n${renewed}\n`)).toBe(`# B\n\n${renewed}\n\n${idle}\n`);
    expect(keepSections('# B\n\nno sections\n', '# B\n\nnew\n')).toBe('# B\n\nnew\n');
  });
});
