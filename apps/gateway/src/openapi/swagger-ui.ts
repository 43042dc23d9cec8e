import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const DOCS_PATH = '/api/docs';
export const OPENAPI_PATH = '/api/openapi.json';

/** The files of `swagger-ui-dist` the page loads, with their types; nothing else of the folder is served. */
export const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const distFolder = (): string => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const cache = new Map<string, Promise<Buffer>>();

/** An asset's bytes, read once per process; undefined for a name not in the list. */
export function swaggerAsset(name: string): { type: string; bytes: Promise<Buffer> } | undefined {
  const type = Object.hasOwn(SWAGGER_ASSETS, name) ? SWAGGER_ASSETS[name] : undefined;
  if (!type) return undefined;
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = readFile(join(distFolder(), name));
    cache.set(name, bytes);
    bytes.catch(() => cache.delete(name));
  }
  return { type, bytes };
}

/** Started from its own script rather than an inline one, so a strict Content-Security-Policy can hold. */
export const INITIALIZER_JS = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
};
`;

export const DOCS_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Learning Service API</title>
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css" />
    <link rel="stylesheet" href="${DOCS_PATH}/index.css" />
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${DOCS_PATH}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="${DOCS_PATH}/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;
