"""What the browser tests share: pages with problem collection, screenshots, audit rows, selectors, and the
scan for English left on a Spanish screen."""

import re
from pathlib import Path

from doorapp.models import AuditEvent, Guest, Meetup, Org, User

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
TIMEOUT_MS = 10_000  # an upper bound for slow, shared CI machines; waits end as soon as the page is ready
JWT = re.compile(r"^[\w-]+\.[\w-]+\.[\w-]+$")
# English words that are not Spanish ones: one on a Spanish screen is a string the catalogue missed.
ENGLISH = set(
    """the and of to is are with your you this that yet have was were will cannot not from for by
at in on or an be there here please sign check checked undo search loading nobody none never show guest guests
meetups staff banned arrived expected walk sync synced password username members member organization
organizations back open add remove copy done save cancel reason waiting pending finalize finalized summary
audit log people arrivals first last new any anyone type rsvp rsvps ban unban excuse excused attended
cancelled approve approved disable enable all""".split()
)
WORD = re.compile(r"[^\W\d_]+")
VISIBLE = """() => {
  const texts = [document.title];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const element = walk.currentNode.parentElement;
    if (!element || element.closest("code, script, style, noscript, [hidden]")) continue;
    if (!element.closest("option") && !element.getClientRects().length) continue;
    texts.push(walk.currentNode.textContent);
  }
  for (const element of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    if (element.closest("[hidden]")) continue;
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      texts.push(element.getAttribute(name) || "");
    }
  }
  return texts;
}"""


def english_left(page, known=()):
    """The English words on the screen once the data (names of guests, users, meetups, orgs, and `known`
    texts such as a file's column headers) is taken out."""
    data = [*known, *(name for g in Guest.select() for name in (g.displayname, f"@{g.username}"))]
    data += [u.username for u in User.select()] + [o.name for o in Org.select()]
    data += [m.name for m in Meetup.select()]
    found = set()
    for text in page.evaluate(VISIBLE):
        for name in sorted(filter(None, data), key=len, reverse=True):
            text = text.replace(name, " ")
        found |= {word for word in WORD.findall(text) if word.lower() in ENGLISH}
    return sorted(found)


def no_english(page, known=()):
    """No English on the screen, and the Spanish (longer) fits it: nothing runs off the side."""
    page.wait_for_timeout(50)  # a toast or a re-render just started settles
    assert english_left(page, known) == [], page.url
    wide = page.evaluate("""() => [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`)""")
    assert wide == [], f"{page.url}: {wide}"


class Browser:
    """Opens pages on the live server and collects what must never happen: uncaught script errors,
    Content-Security-Policy violations and JavaScript dialogs (alert() from an injected name)."""

    def __init__(self, chromium, base_url):
        self.chromium, self.base_url = chromium, base_url
        self.contexts, self.problems = [], []

    def page(self, token=None, viewport=DESKTOP, path="/", permissions=(), locale="en-US", touch=False):
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
            has_touch=touch,
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
