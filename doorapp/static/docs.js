// Swagger UI for /docs, from the vendored swagger-ui-dist (no internet needed). Authorize keeps its token in
// this page's memory only: a copy in localStorage would outlive the app's Sign out.
localStorage.removeItem("authorized"); // where an older Door let Swagger UI keep it
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: false,
  oauth2RedirectUrl: window.location.origin + "/static/swagger-ui/oauth2-redirect.html",
});
