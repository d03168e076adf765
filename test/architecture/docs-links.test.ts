import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { repositoryPath } from '../support/repository.js';

/** The pages a reader moves between: every relative link in them must lead to a file, and to a heading when it names one. */
const PAGES = [
  'README.md',
  'RELIABILITY.md',
  'BENCHMARKS.md',
  ...readdirSync(repositoryPath('docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text of a page with its code blocks and code spans blanked, so that code that looks like a link is not read as one. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The targets of a page's inline links and images: `[text](target)`, `![alt](target "title")`. */
function linkTargets(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function slugOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a Markdown page offers, numbered as GitHub numbers repeated headings. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = slugOf(match[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** What is wrong with one link of `page`, or undefined when it leads somewhere. */
function brokenLink(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart = '', anchor] = target.split('#', 2);
  const file = pathPart === '' ? repositoryPath(page) : join(dirname(repositoryPath(page)), decodeURI(pathPart));
  if (!existsSync(file)) return `${target}: no file ${relative(repositoryPath(), file)}`;
  if (anchor === undefined || anchor === '' || !file.endsWith('.md')) return undefined;
  return anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))
    ? undefined
    : `${target}: no heading #${anchor} in ${relative(repositoryPath(), file)}`;
}

for (const page of PAGES) {
  test(`${page}: every relative link leads to a file, and to a heading it names`, () => {
    const targets = linkTargets(readFileSync(repositoryPath(page), 'utf8'));
    const broken = targets.flatMap((target) => brokenLink(page, target) ?? []);
    assert.deepEqual(broken, [], `${page} links to what the repository does not have`);
  });
}

test('the link reader finds links, images and anchors as GitHub renders them', () => {
  assert.deepEqual(linkTargets('[a](x.md) ![b](y.png "t") `[c](z.md)` [![d](i.png)](j.png)'), [
    'x.md',
    'y.png',
    'i.png',
    'j.png',
  ]);
  assert.deepEqual(
    [...anchorsOf('# Title\n## `serve` settings\n## Title\n```\n# not a heading\n```')],
    ['title', 'serve-settings', 'title-1'],
  );
  assert.equal(
    slugOf('`makerQuote` `{ orderId, quoteExpiryTimestampMs, amount?, details }`'),
    'makerquote--orderid-quoteexpirytimestampms-amount-details-',
  );
});
