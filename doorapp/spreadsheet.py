"""CSV files made for people rather than programs (`?style=people` on an export): times in the
organization's time zone without seconds' fractions, column names and outcomes in the chosen language (the
browser's own catalogues, static/locales, read here so both say the same words), and the separator a
spreadsheet of that locale expects when the file is double-clicked (Excel set to Spanish splits on `;`)."""

import json
import zoneinfo
from dataclasses import dataclass
from datetime import UTC
from functools import cache
from typing import Literal

from doorapp.paths import resource_dir

# An outcome's word in the catalogues: the same table as static/shared/outcome.js (OUTCOMES).
OUTCOME_KEYS = {
    "ATTENDED": "outcome.attended",
    "WALK_IN": "outcome.walkIn",
    "NO_SHOW": "outcome.noShow",
    "EXCUSED_ABSENCE": "outcome.excused",
    "CANCELLED": "outcome.cancelled",
    "WAITLIST": "outcome.waitlist",
    "NOT_CHECKED_IN": "outcome.notCheckedIn",
    "UPCOMING": "outcome.upcoming",
    "MEETUP_CANCELLED": "outcome.meetupCancelled",
}
SEPARATORS = {"comma": ",", "semicolon": ";"}
TIMES = ("rsvp_time", "cancelled_at", "arrival_time", "excused_at")
PASS_COLUMNS = ("checked_in_pass_label", "checked_in_pass_made_by")  # worded into checked_in_by for people


@dataclass
class ExportQuery:
    style: Literal["data", "people"] = "data"  # data: for programs (ISO times in UTC, API words)
    lang: Literal["en", "es"] = "en"  # people: the language of column names and outcomes
    sep: Literal["comma", "semicolon"] = "comma"  # people: semicolon for a Spanish-locale spreadsheet


def labels(line):
    """A summary line's tags as a CSV cell: their labels, separated by commas (None for none)."""
    return ", ".join(tag["label"] for tag in line["tags"]) or None


@cache
def catalogue(lang):
    """The browser's catalogue of `lang` (static/locales/<lang>.js: `export default {...};` around JSON)."""
    text = (resource_dir() / "static" / "locales" / f"{lang}.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("export default") + len("export default") : text.rindex(";")])


def zone(name):
    """The organization's time zone (`name`, an IANA name), or the server's when it has none."""
    return zoneinfo.ZoneInfo(name) if name else None


ZONES = frozenset(zoneinfo.available_timezones())  # the IANA time zones Door knows (the system's database)


class People:
    """How one file for people says things: `words(key)`, `when(moment)`, `outcome(word)`, `yes(flag)`."""

    def __init__(self, query, time_zone):
        self.words, self.zone, self.separator = catalogue(query.lang), zone(time_zone), SEPARATORS[query.sep]

    def when(self, moment):
        """A stored UTC moment as the organization's local time, to the minute ("2026-12-05 21:03"); in UTC,
        saying so, where the local time would be past the calendar's ends (year 9999 east of UTC)."""
        if not moment:
            return moment
        try:
            return moment.replace(tzinfo=UTC).astimezone(self.zone).strftime("%Y-%m-%d %H:%M")
        except OverflowError:
            return moment.isoformat(sep=" ", timespec="minutes") + " UTC"

    def outcome(self, word):
        return self.words[OUTCOME_KEYS[word]] if word in OUTCOME_KEYS else word

    def detail(self, key):
        """A detail's name in an audit event (the catalogue's detail.<key>), or the key as it comes."""
        return self.words.get(f"detail.{key}", key)

    def yes(self, flag):
        return self.words["csv.yes"] if flag else None

    def outcome_row(self, line, entry, columns):
        """A guest's line of the summary (shapes.GuestOutcome) as a row of `columns`; `entry` is its
        MeetupGuest, for the times as stored."""
        said = {**line, **{time: self.when(getattr(entry, time)) for time in TIMES}}
        said.update(outcome=self.outcome(line["outcome"]), ban_overridden=self.yes(line["ban_overridden"]))
        said["tags"] = labels(line)
        said["rsvp_time"] = None if entry.is_walkin else said["rsvp_time"]
        if line["checked_in_pass_label"] is not None:
            said["checked_in_by"] = self.door_pass(
                line["checked_in_pass_label"], line["checked_in_pass_made_by"]
            )
        return [said[column] for column in columns]

    def door_pass(self, label, maker_username):
        """A door pass in the file's language: "Maria's phone (pase, creado por alice)"."""
        return self.words["pass.actor"].format(label=label, username=maker_username)

    def actor(self, event):
        """Who made an event (a row of AuditEvent.with_people()): a username, a door pass, or None."""
        if event["actor_pass"] is not None:
            return self.door_pass(event["pass_label"], event["pass_maker_username"])
        return event["actor_username"]

    def header(self, columns):
        return [self.words[f"csv.{column}"] for column in columns]
