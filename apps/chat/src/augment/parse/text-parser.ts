import mammoth from 'mammoth';
import type { PDFParse as PdfParser } from 'pdf-parse';
import { DomainError, ErrorCode } from '@svc/errors';
import { htmlToText } from '../scrape/html-extract';

export type DocumentKind = 'pdf' | 'docx' | 'html' | 'text';

export interface ParsedDocument {
  kind: DocumentKind;
  text: string;
  /** Approximate tokens of `text` (see countTokens). */
  tokens: number;
}

export interface TextParserLimits {
  /** Largest file accepted. */
  maxBytes: number;
  /** Longest text returned; longer extractions are refused rather than cut silently. */
  maxChars: number;
}

export const DEFAULT_PARSER_LIMITS: TextParserLimits = { maxBytes: 25 * 1024 * 1024, maxChars: 2_000_000 };

const bad = (message: string) => new DomainError(ErrorCode.Validation, message, { _errors: [], file: { _errors: [message] } });

/**
 * Text out of an uploaded document for `POST /augment/text-parser`: PDF (pdf-parse 2, pdf.js),
 * DOCX (mammoth), HTML (linkedom) and plain UTF-8 text, recognised by their bytes first and by
 * name or media type second. Encrypted, corrupt and unsupported files are a 400, never a crash.
 * Runs in memory; nothing is written to disk or logged.
 */
export class TextParser {
  constructor(private readonly limits: TextParserLimits = DEFAULT_PARSER_LIMITS) {}

  async parse(data: Buffer, hints: { filename?: string; mediaType?: string } = {}): Promise<ParsedDocument> {
    if (data.length === 0) throw bad('The file is empty.');
    if (data.length > this.limits.maxBytes) throw bad(`The file is larger than ${this.limits.maxBytes} bytes.`);
    const kind = detectKind(data, hints);
    let text: string;
    switch (kind) {
      case 'pdf':
        text = await pdfText(data);
        break;
      case 'docx':
        text = await docxText(data);
        break;
      case 'html':
        text = htmlToText(decodeUtf8(data));
        break;
      case 'text':
        text = decodeUtf8(data);
        break;
    }
    text = text
      .replace(/\r\n?/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (text.length > this.limits.maxChars) throw bad(`The document has more than ${this.limits.maxChars} characters of text.`);
    return { kind, text, tokens: countTokens(text) };
  }
}

/**
 * An approximation of LLM tokens without a model tokenizer: words count one token per 4
 * characters (at least one), every other non-space character one.
 */
export function countTokens(text: string): number {
  let tokens = 0;
  for (const piece of text.match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [])
    tokens += /^[\p{L}\p{N}_]/u.test(piece) ? Math.max(1, Math.ceil(piece.length / 4)) : 1;
  return tokens;
}

export function detectKind(data: Buffer, hints: { filename?: string; mediaType?: string }): DocumentKind {
  const name = (hints.filename ?? '').toLowerCase();
  const type = (hints.mediaType ?? '').toLowerCase();
  if (data.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (data.subarray(0, 4).toString('latin1') === 'PK\x03\x04') {
    if (name.endsWith('.docx') || type.includes('wordprocessingml') || data.includes('word/document.xml')) return 'docx';
    throw bad('Unsupported file type: a ZIP archive that is not a DOCX document (supported: PDF, DOCX, HTML, plain text).');
  }
  if (name.endsWith('.pdf') || type === 'application/pdf') throw bad('The file is not a valid PDF.');
  if (name.endsWith('.docx')) throw bad('The file is not a valid DOCX document.');
  if (looksBinary(data)) throw bad('Unsupported file type (supported: PDF, DOCX, HTML, plain text).');
  if (
    name.endsWith('.html') ||
    name.endsWith('.htm') ||
    type.startsWith('text/html') ||
    type.startsWith('application/xhtml') ||
    /^\s*(<!doctype html|<html)/i.test(data.subarray(0, 512).toString('utf8'))
  )
    return 'html';
  return 'text';
}

function looksBinary(data: Buffer): boolean {
  const head = data.subarray(0, 8192);
  return head.includes(0);
}

function decodeUtf8(data: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data).replace(/^\uFEFF/, '');
  } catch {
    throw bad('The file is not valid UTF-8 text.');
  }
}

/**
 * pdf-parse (pdf.js) is loaded on the first PDF, not at boot: loading it patches globals
 * (`JSON.parse`, `Array.prototype.push`, ...), which measured about 5% of the chat service's CPU
 * on every chat request.
 */
let pdfParse: Promise<typeof PdfParser> | null = null;
const loadPdfParse = (): Promise<typeof PdfParser> => (pdfParse ??= import('pdf-parse').then((m) => m.PDFParse));

async function pdfText(data: Buffer): Promise<string> {
  const PDFParse = await loadPdfParse();
  const parser = new PDFParse({ data: new Uint8Array(data), verbosity: 0 });
  try {
    const result = await parser.getText({ pageJoiner: '' });
    return result.text;
  } catch (err) {
    const name = (err as { name?: string } | null)?.name;
    if (name === 'PasswordException') throw bad('The PDF is encrypted (password protected); upload an unencrypted copy.');
    throw bad('The file is not a valid PDF (it could not be read).');
  } finally {
    await parser.destroy().catch(() => undefined);
  }
}

async function docxText(data: Buffer): Promise<string> {
  try {
    return (await mammoth.extractRawText({ buffer: data })).value;
  } catch {
    throw bad('The file is not a valid DOCX document (it could not be read).');
  }
}
