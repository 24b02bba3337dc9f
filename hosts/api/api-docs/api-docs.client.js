'use strict';
// The API reference page's initializer: a file served from 'self', since the page's CSP allows no inline script.
window.ui = window.SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  defaultModelsExpandDepth: 0,
  // The default validator badge calls a remote service: the page works offline and may connect to 'self' only.
  validatorUrl: null,
});
