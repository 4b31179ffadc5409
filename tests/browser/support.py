"""What the browser tests share: pages with problem collection, screenshots, audit rows, selectors."""

import re
from pathlib import Path

from doorapp.models import AuditEvent

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
TIMEOUT_MS = 10_000  # an upper bound for slow, shared CI machines; waits end as soon as the page is ready
JWT = re.compile(r"^[\w-]+\.[\w-]+\.[\w-]+$")


class Browser:
    """Opens pages on the live server and collects what must never happen: uncaught script errors,
    Content-Security-Policy violations and JavaScript dialogs (alert() from an injected name)."""

    def __init__(self, chromium, base_url):
        self.chromium, self.base_url = chromium, base_url
        self.contexts, self.problems = [], []

    def page(self, token=None, viewport=DESKTOP, path="/", permissions=(), locale="en-US", has_touch=False):
        storage = {"cookies": [], "origins": []}
        if token:
            stored = [{"name": "auth_token", "value": token}]
            storage["origins"].append({"origin": self.base_url, "localStorage": stored})
        context = self.chromium.new_context(
            viewport=viewport,
            base_url=self.base_url,
            storage_state=storage,
            service_workers="block",
            permissions=list(permissions),
            timezone_id="UTC",
            locale=locale,
            has_touch=has_touch,
        )
        context.set_default_timeout(TIMEOUT_MS)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        page.on("console", lambda message: self._console(message))
        page.on("dialog", lambda dialog: self._dialog(dialog))
        if path is not None:
            page.goto(path)
        return page

    def _dialog(self, dialog):
        self.problems.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    def _console(self, message):
        # failed fetches (4xx answers the app handles) are logged as errors too: only CSP matters here
        if message.type == "error" and "Content Security Policy" in message.text:
            self.problems.append(f"CSP violation: {message.text}")

    def close(self):
        for context in self.contexts:
            context.close()


def screenshot(page, name):
    """Save a PNG under test-artifacts/ (gitignored; CI keeps it): test-artifacts/<name>-<W>x<H>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    path = ARTIFACTS / f"{name}-{size['width']}x{size['height']}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def audit_types(**where):
    """The audit event types written so far (oldest first), optionally filtered by column values."""
    query = AuditEvent.select().order_by(AuditEvent.id)
    for name, value in where.items():
        query = query.where(getattr(AuditEvent, name) == value)
    return [event.event_type for event in query]


def local_storage_token(page):
    return page.evaluate("localStorage.getItem('auth_token')")
