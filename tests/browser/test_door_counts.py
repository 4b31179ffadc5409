"""The door's counters are Door's `counts` plus what this door did that Door's list does not say yet, and
"expected" is one rule for the counter and the Expected filter (door/list.js, evaluated in the page)."""

import pytest

pytestmark = pytest.mark.browser


def entry(guest_id, arrived=False, walkin=False, cancelled=False):
    return {
        "guest": {
            "platform_user_id": guest_id,
            "username": f"g{guest_id}",
            "displayname": f"Guest {guest_id}",
            "is_local": False,
            "is_banned": False,
            "ban_reason": None,
        },
        "rsvp": {
            "has_arrived": arrived,
            "is_walkin": walkin,
            "cancelled_rsvp": cancelled,
            "arrival_order": None,
            "arrival_time": None,
            "rsvp_time": "2026-12-01T18:00:00Z",
            "checked_in_by": None,
        },
    }


IN_THE_PAGE = """async ({ answer, answered, waiting }) => {
  const { DoorList } = await import("/static/door/list.js");
  const list = new DoorList();
  list.load(answer);
  const seen = [list.tally()];
  for (const entry of answered) list.put(entry);
  seen.push(list.tally());
  list.pending(waiting);
  seen.push(list.tally());
  return { seen, expected: list.query("", "expected").results.length };
}"""


def test_the_counters_are_doors_counts_plus_this_doors_answered_and_waiting_actions(browser):
    guests = [entry(1), entry(2), entry(3, arrived=True), entry(4, cancelled=True), entry(5, walkin=True)]
    # Door's counts, on purpose not what the five entries would add up to: the door must not recount
    answer = {"guests": guests, "counts": {"rsvps": 40, "cancelled": 1, "walkins": 3, "arrived": 20}}
    answered = [entry(1, arrived=True)]  # a check-in answered, before the next list
    waiting = [  # the queue: a check-in and a new walk-in not sent yet, an undo of guest 3
        {"id": "a", "kind": "checkin", "at": "2026-12-01T19:00:00Z", "guest": guests[1]["guest"]},
        {
            "id": "b",
            "kind": "walkin",
            "at": "2026-12-01T19:01:00Z",
            "guest": {"platform_user_id": 6, "username": "g6", "displayname": "Guest 6", "is_local": False},
        },
        {"id": "c", "kind": "undo", "at": "2026-12-01T19:02:00Z", "guest": guests[2]["guest"]},
    ]
    page = browser.page()
    seen = page.evaluate(IN_THE_PAGE, {"answer": answer, "answered": answered, "waiting": waiting})
    assert seen["seen"] == [
        {"rsvps": 40, "cancelled": 1, "walkins": 3, "arrived": 20, "expected": 3},
        {"rsvps": 40, "cancelled": 1, "walkins": 3, "arrived": 21, "expected": 2},
        # guest 2 in (+1), guest 6 a new walk-in let in (+1 walk-in, +1 in), guest 3 undone (-1, expected)
        {"rsvps": 40, "cancelled": 1, "walkins": 4, "arrived": 22, "expected": 2},
    ]
    assert seen["expected"] == seen["seen"][-1]["expected"]  # the filter shows as many as the counter says
