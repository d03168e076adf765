import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** A part of BENCHMARKS.md written by a bench between two markers; the text around it is written by hand. */
export interface GeneratedSection {
  readonly start: string;
  readonly end: string;
  /** The heading the section gets when the file does not have it yet. */
  readonly heading: string;
}

export const LATEST_RUN: GeneratedSection = {
  start: '<!-- latest-run:start (written by `npm run bench`) -->',
  end: '<!-- latest-run:end -->',
  heading: 'Latest run',
};

/** Replaces `section`'s generated part of BENCHMARKS.md with `content`, leaving everything written by hand alone. */
export function writeGeneratedSection(file: string, section: GeneratedSection, content: string): void {
  const marked = `${section.start}\n${content}\n${section.end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = current.indexOf(section.start);
  const end = current.indexOf(section.end);
  const updated =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${marked}${current.slice(end + section.end.length)}`
      : `${current.trimEnd()}\n\n## ${section.heading}\n\n${marked}\n`;
  writeFileSync(file, updated);
}
