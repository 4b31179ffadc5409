// Swagger UI for /docs, from the vendored swagger-ui-dist (no internet needed).
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: true,
  oauth2RedirectUrl: window.location.origin + "/static/swagger-ui/oauth2-redirect.html",
});
