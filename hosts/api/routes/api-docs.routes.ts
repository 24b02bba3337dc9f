import { defineRoute, type RouteDef } from '../route.js';
import { s } from '../openapi-schemas.js';
import { API_DOCS_ASSET_HEADERS, API_DOCS_ASSETS, API_DOCS_PAGE, API_DOCS_PAGE_HEADERS, API_DOCS_PATH } from '../api-docs/api-docs.js';

type AssetDocs = { readonly operationId: string; readonly summary: string; readonly example: string };
const ASSET_DOCS: Readonly<Record<keyof typeof API_DOCS_ASSETS, AssetDocs>> = {
  'swagger-ui.css': { operationId: 'getApiDocsStylesheet', summary: 'The reference page\'s stylesheet (Swagger UI)', example: '.swagger-ui{…}' },
  'swagger-ui-bundle.js': {
    operationId: 'getApiDocsRenderer', summary: 'The reference page\'s renderer (Swagger UI)',
    example: '/*! For license information please see swagger-ui-bundle.js.LICENSE.txt */…',
  },
  'api-docs.js': {
    operationId: 'getApiDocsInitializer', summary: 'The reference page\'s initializer',
    example: '\'use strict\';\nwindow.ui = window.SwaggerUIBundle({ url: \'/api/openapi.json\', … });\n',
  },
};

/** The API reference page at /api/docs (Swagger UI bundled from node_modules, so it works offline) and its files. */
export function apiDocsRoutes(): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: API_DOCS_PATH, auth: 'none',
      docs: {
        operationId: 'getApiDocsPage', summary: 'This API\'s reference page, rendered from /api/openapi.json', tag: 'System',
        data: s.empty(), produces: 'text/html', example: '<!doctype html>\n<html lang="en"><head>…<title>Custody Hub API reference</title>…</html>\n',
      },
      handle: () => Promise.resolve({ raw: { contentType: 'text/html; charset=utf-8', body: API_DOCS_PAGE, headers: API_DOCS_PAGE_HEADERS } }),
    }),
    ...Object.entries(API_DOCS_ASSETS).map(([name, asset]) => {
      const docs = ASSET_DOCS[name as keyof typeof API_DOCS_ASSETS];
      return defineRoute({
        method: 'GET', path: `${API_DOCS_PATH}/${name}`, auth: 'none',
        docs: {
          operationId: docs.operationId, summary: docs.summary, tag: 'System', data: s.empty(),
          produces: asset.contentType.split(';')[0]!, example: docs.example,
        },
        handle: () => Promise.resolve({ raw: { contentType: asset.contentType, body: asset.body, headers: API_DOCS_ASSET_HEADERS } }),
      });
    }),
  ];
}
