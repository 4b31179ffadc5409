"""The few HTML routes: the app shell at /, its static files, and /docs. Autoescaping Jinja2, strict CSP."""

import jinja2
from bottle import HTTPError, response, static_file

from doorapp import __version__
from doorapp.paths import resource_dir
from doorapp.plugin import ApiPlugin

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
_env = jinja2.Environment(loader=jinja2.FileSystemLoader(resource_dir() / "templates"), autoescape=True)


def _html(template, **context):
    response.content_type = "text/html; charset=utf-8"
    response.set_header("Content-Security-Policy", CSP)
    response.set_header("X-Content-Type-Options", "nosniff")
    response.set_header("Referrer-Policy", "no-referrer")
    return _env.get_template(template).render(version=__version__, **context)


def add_routes(app):
    def index():
        return _html("index.html")

    def docs():
        page = _html("docs.html")
        # Swagger UI sets inline styles; the page has no inline script and no server data in markup.
        response.set_header(
            "Content-Security-Policy", CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
        )
        return page

    def static(path):
        reply = static_file(path, root=str(resource_dir() / "static"))
        if reply.status_code == 403:  # a path out of the folder (/static/../x) or a folder: nothing here
            return HTTPError(404)
        reply.set_header("X-Content-Type-Options", "nosniff")
        # revalidate every time (a cheap 304): after an upgrade no browser mixes old and new modules
        reply.set_header("Cache-Control", "no-cache")
        return reply

    def service_worker():
        """/sw.js: served from the root so its scope is the whole app; lists the shell it keeps."""
        static = resource_dir() / "static"
        files = [p.relative_to(static) for p in static.rglob("*") if p.is_file()]
        shell = ["/"] + sorted(f"/static/{p.as_posix()}" for p in files if p.parts[0] != "swagger-ui")
        response.content_type = "text/javascript; charset=utf-8"
        response.set_header("Cache-Control", "no-cache")
        response.set_header("X-Content-Type-Options", "nosniff")
        return _env.get_template("sw.js").render(version=__version__, shell=shell)

    app.route("/", "GET", index, skip=[ApiPlugin])
    app.route("/sw.js", "GET", service_worker, skip=[ApiPlugin])
    app.route("/docs", "GET", docs, skip=[ApiPlugin])
    app.route("/static/<path:path>", "GET", static, skip=[ApiPlugin])
