"""What the browser tests share: pages with problem collection, screenshots, audit rows, selectors, the
scan for English left on a Spanish screen, the door screen's rows and counters, and calls to a Door served
in its own processes (`helpers.served`)."""

import re
import time
from dataclasses import replace
from pathlib import Path

import requests
from helpers import PASSWORD
from playwright.sync_api import expect

from doorapp.models import AuditEvent, Guest, Meetup, MeetupGuest, Org, User

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
KEYBOARD_UP = {"width": 390, "height": 470}  # a phone with its keyboard up
TIMEOUT_MS = 10_000  # an upper bound for slow, shared CI machines; waits end as soon as the page is ready
JWT = re.compile(r"^[\w-]+\.[\w-]+\.[\w-]+$")
DOOR_LIST = re.compile(r"/meetups/[^/]+/guests(\?|$)")  # the door's poll, with or without ?since=
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
      .filter((e) => !e.closest("nav.tabs")) // on a phone the tabs are one row that scrolls sideways
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`)""")
    assert wide == [], f"{page.url}: {wide}"


class Browser:
    """Opens pages on the live server and collects what must never happen: uncaught script errors,
    Content-Security-Policy violations and JavaScript dialogs (alert() from an injected name)."""

    def __init__(self, chromium, base_url):
        self.chromium, self.base_url = chromium, base_url
        self.contexts, self.problems = [], []

    def page(
        self,
        token=None,
        viewport=DESKTOP,
        path="/",
        permissions=(),
        locale="en-US",
        touch=False,
        timezone="UTC",
    ):
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
            timezone_id=timezone,
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


# --- the door screen ------------------------------------------------------------------------------------


def row(page, username):
    return page.locator("#door-results > [role=row]").filter(has=page.get_by_text(f"@{username}", exact=True))


def counter(page, kind):
    return page.locator(f"[data-counter={kind}] .value")


def door_page(browser, make_user, org, meetup, token_for, viewport=PHONE, name="sam"):
    page = browser.page(
        token=token_for(make_user(name, org=org)), viewport=viewport, path=f"/#/meetups/{meetup.id}"
    )
    expect(page.locator("#door-results > [role=row]").first).to_be_visible()
    return page


def status_details(page):
    """The status line's details (a tap on the line opens them over the list), in full."""
    toggle = page.locator(".status-toggle")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    details = page.locator("#door-status-details")
    expect(details).to_be_visible()
    return details


def arrived():
    return {e.guest_id: e.arrival_order for e in MeetupGuest.select().where(MeetupGuest.has_arrived)}


def check_in_by_username(page, username):
    page.keyboard.press("Escape")
    page.keyboard.type(username)
    expect(page.locator("#door-results > [role=row]").first).to_contain_text(f"@{username}")
    page.keyboard.press("Enter")


def sign_in(page, username, password=PASSWORD):
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def pairing_path(made):
    """The pairing address of a pass made through WebTest (whose host is not the live server's)."""
    return "/#/" + made["pairing"]["url"].split("/#/", 1)[1]


def decoded_qr(image):
    """The text of the one QR code in a PNG screenshot, read by ZXing (a decoder that is not segno)."""
    import io

    import zxingcpp
    from PIL import Image

    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(image)))
    assert [code.format.name for code in found] == ["QRCode"], found
    return found[0].text


# --- a Door served in its own processes -------------------------------------------------------------------


def api(door, method, path, token=None, **options):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    reply = requests.request(method, door.url + path, headers=headers, timeout=30, **options)
    assert reply.ok, (path, reply.status_code, reply.text)
    return reply.json()


def set_up(door):
    """A fresh Door set up as a new user does it: the site admin olga from the printed code, her org and a
    meetup of the demo's board games night. (olga's token, the org, the meetup, its door list)."""
    demo = next(line.strip() for line in door.lines if line.strip().endswith("/board-games"))
    olga = {"username": "olga", "password": PASSWORD}
    api(door, "POST", "/setup", json={"code": door.setup_code, **olga})
    token = api(door, "POST", "/auth/token", data=olga)["access_token"]
    org = api(door, "POST", "/organizations/", token, json={"name": "Night Owls", "slug": "night-owls"})
    meetup = api(door, "POST", f"/organizations/{org['id']}/meetups/", token, json={"platform_url": demo})
    listed = api(door, "GET", f"/organizations/{org['id']}/meetups/{meetup['id']}/guests", token)["guests"]
    return token, org, meetup, listed


LOGGED = re.compile(r"doorapp\[(\d+)\] (\S+) \S+ (\S+) (\d+)$")  # pid, request id, path, status


def logged(door):
    """(pid, request id, path, status) of each request in the server's log so far, in order."""
    return [m.groups() for m in (LOGGED.search(line.rstrip()) for line in list(door.log)) if m]


# The entries the door keeps on the device for a meetup (core/kept.js): how many, or null when none is kept.
KEPT = """async (meetupId) => {
  const { kept } = await import("/static/core/kept.js");
  const held = await kept(meetupId);
  return held ? held.list.guests.length : null;
}"""


def wait_for(found, seconds=5):
    """found()'s first true answer within `seconds` (the log arrives through a pipe)."""
    deadline = time.monotonic() + seconds
    while not (answer := found()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert answer, "not found in the log in time"
    return answer


def open_to_phones(config, port):
    """`config` of a Door that phones can open, at 127.0.0.1:`port` (DOOR_PUBLIC_URL): its door passes'
    pairing addresses have a QR code (a Door only this computer can open shows none)."""
    return replace(config, public_url=f"http://127.0.0.1:{port}/")
