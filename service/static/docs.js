// The /docs page: Swagger UI over this service's OpenAPI document. "Try it out" sends the
// requests to this same origin; nothing is loaded from elsewhere (no validator badge).
"use strict";
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  supportedSubmitMethods: ["get", "post"],
});
