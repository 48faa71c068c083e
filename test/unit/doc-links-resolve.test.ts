// Every relative link in README.md, CONTRIBUTING.md and docs/*.md names a file of the repository,
// and every #anchor a heading of the file it points into (as GitHub makes anchors of headings),
// so moving a section from one page to another cannot leave a link behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The lines of a page outside fenced code blocks, with their line numbers. */
function prose(text: string): { line: string; at: number }[] {
  let fenced = false;
  const out: { line: string; at: number }[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) out.push({ line, at: i + 1 });
  }
  return out;
}

/** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered -1, -2, ... */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of prose(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

test('every relative link and #anchor in the README, CONTRIBUTING.md and docs/ resolves', () => {
  const text = new Map(PAGES.map((p) => [p, fs.readFileSync(path.join(ROOT, p), 'utf8')]));
  const broken: string[] = [];
  let checked = 0;
  for (const [page, body] of text) {
    for (const { line, at } of prose(body)) {
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        checked++;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const dest = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
        const where = `${page}:${at}: ${target}`;
        if (dest.startsWith('../') || !fs.existsSync(path.join(ROOT, dest))) broken.push(`${where} (no file ${dest})`);
        else if (anchor !== undefined && !anchors(text.get(dest) ?? fs.readFileSync(path.join(ROOT, dest), 'utf8')).has(anchor))
          broken.push(`${where} (no heading #${anchor} in ${dest})`);
      }
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked > 50, `only ${checked} links were found: the link pattern no longer matches the pages`);
});
