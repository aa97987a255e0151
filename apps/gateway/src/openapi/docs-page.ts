import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The Swagger UI files the docs page loads, served by the gateway itself (no CDN: works offline). */
export const DOCS_ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'docs-init.js': 'text/javascript; charset=utf-8',
} as const;
export type DocsAssetName = keyof typeof DOCS_ASSETS;
export const DOCS_ASSET_NAMES = Object.keys(DOCS_ASSETS) as [DocsAssetName, ...DocsAssetName[]];

/** Absolute paths (as the gateway's Link headers use): the page works at /api/v1/docs and /api/v1/docs/ alike. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>API reference</title>
<link rel="stylesheet" href="/api/v1/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/v1/docs/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/docs-init.js"></script>
</body>
</html>
`;

/** Inline scripts would need a CSP exception; this one is a file. */
const INIT_JS = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`;

/** The asset's bytes, read once from swagger-ui-dist (an npm dependency). */
export function loadDocsAssets(): Record<DocsAssetName, Buffer> {
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  return {
    'swagger-ui.css': readFileSync(path.join(dir, 'swagger-ui.css')),
    'swagger-ui-bundle.js': readFileSync(path.join(dir, 'swagger-ui-bundle.js')),
    'docs-init.js': Buffer.from(INIT_JS),
  };
}
