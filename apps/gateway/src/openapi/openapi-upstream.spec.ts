import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@svc/config';
import { buildOpenApiDocument } from './openapi-document';
import { upstreamDifferences } from './upstream-comparison';

const REFERENCE = path.join(REPO_ROOT, '../shared/reference/upstream-openapi.yaml');
const DIFFERENCES_DOC = path.join(REPO_ROOT, 'docs/openapi-differences.md');

/** `| \`difference\` | reason |` rows of docs/openapi-differences.md. */
function listedDifferences(): Map<string, string> {
  const rows = readFileSync(DIFFERENCES_DOC, 'utf8').matchAll(/^\| `([^`]+)` \| (.*) \|$/gm);
  return new Map([...rows].map(([, line, reason]) => [line, reason.trim()]));
}

// The reference lives beside the checkout (../shared); where it is absent there is nothing to compare.
(existsSync(REFERENCE) ? describe : describe.skip)('the document against the reference OpenAPI, on the paths both have', () => {
  // Read in beforeAll: a skipped describe still runs its body, and the file may be absent.
  let found: string[] = [];
  let listed = new Map<string, string>();
  beforeAll(() => {
    const ours = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Record<string, unknown>;
    found = upstreamDifferences(ours, parse(readFileSync(REFERENCE, 'utf8')));
    listed = listedDifferences();
  });

  it('differs in request fields and response statuses only where docs/openapi-differences.md says why', () => {
    expect(found.filter((line) => !listed.has(line))).toEqual([]);
    expect([...listed].filter(([, reason]) => reason.length < 10)).toEqual([]);
  });

  it('lists no difference that is gone', () => {
    expect([...listed.keys()].filter((line) => !found.includes(line))).toEqual([]);
  });
});
