import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export interface ExtractedPage {
  title: string;
  /** The readable part of the page as Markdown (the whole body when Readability finds no article). */
  markdown: string;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button', 'svg'] as unknown as TurndownService.Filter);

/** linkedom's DOM, typed loosely (this project compiles without the DOM lib). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Dom = any;

function documentOf(html: string): Dom {
  return parseHTML(html).document;
}

/** The article of an HTML page (Mozilla Readability on a linkedom DOM) as Markdown (turndown). */
export function extractReadable(html: string): ExtractedPage {
  const doc = documentOf(html);
  const title = (doc.querySelector('title')?.textContent ?? '').trim();
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(documentOf(html), { charThreshold: 100 }).parse();
  } catch {
    article = null;
  }
  const content = article?.content ?? doc.body?.innerHTML ?? '';
  const markdown = turndown
    .turndown(content || ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: (article?.title ?? title).trim(), markdown };
}

/** Plain text of an HTML document: scripts and styles dropped, block elements on their own lines. */
export function htmlToText(html: string): string {
  const doc = documentOf(html);
  for (const el of Array.from(doc.querySelectorAll('script, style, noscript, template')) as Dom[]) el.remove();
  for (const el of Array.from(doc.querySelectorAll('p, div, br, li, h1, h2, h3, h4, h5, h6, tr, section, article, header, footer, pre, blockquote')) as Dom[]) {
    el.appendChild(doc.createTextNode('\n'));
  }
  const text: string = (doc.body ?? doc.documentElement)?.textContent ?? '';
  return text
    .split('\n')
    .map((line: string) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
