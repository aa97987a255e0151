import { CaseFactory } from './case-kit';
import { bounds, deepNesting, hugeStrings, malformedJson, nulAndCrlf, wrongTypes } from './json-cases';
import { brokenMultipart, headers, methods, pathParams, queries } from './wire-cases';

export { everyFieldHuge } from './json-cases';

/** The categories, with how many cases each draws per route (huge bodies are few: each is megabytes). */
export const CATEGORIES: Array<{ name: string; factory: CaseFactory; runs: number }> = [
  { name: 'malformed JSON', factory: malformedJson, runs: 60 },
  { name: 'wrong types', factory: wrongTypes, runs: 60 },
  { name: 'bounds', factory: bounds, runs: 30 },
  { name: 'huge strings (1-5 MB)', factory: hugeStrings, runs: 4 },
  { name: 'deep nesting', factory: deepNesting, runs: 8 },
  { name: 'NUL and CRLF', factory: nulAndCrlf, runs: 40 },
  { name: 'broken multipart', factory: brokenMultipart, runs: 40 },
  { name: 'query strings', factory: queries, runs: 40 },
  { name: 'path parameters', factory: pathParams, runs: 30 },
  { name: 'methods', factory: methods, runs: 8 },
  { name: 'headers', factory: headers, runs: 30 },
];
