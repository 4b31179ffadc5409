"""The door's counters are Door's `counts` plus what this door did that Door's list does not say yet, and
"expected" and "waitlisted" are each one rule for the counter and its filter (door/list.js, evaluated in the
page)."""

import pytest

pytestmark = pytest.mark.browser


def entry(guest_id, arrived=False, walkin=False, cancelled=False, waitlisted=False, guests=0):
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
            "waitlisted": waitlisted,
            "guests_count": guests,
            "guests_brought": guests if arrived else None,
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
  const shown = (filter) => list.query("", filter).results.length;
  return { seen, expected: shown("expected"), waitlisted: shown("waitlisted") };
}"""


def test_the_counters_are_doors_counts_plus_this_doors_answered_and_waiting_actions(browser):
    guests = [entry(1), entry(2, guests=2), entry(3, arrived=True, guests=1), entry(4, cancelled=True)]
    guests += [entry(5, walkin=True), entry(7, waitlisted=True), entry(8, waitlisted=True, cancelled=True)]
    # Door's counts, on purpose not what the entries would add up to: the door must not recount
    door = {"rsvps": 40, "cancelled": 1, "walkins": 3, "arrived": 20, "waitlisted": 9, "people": 30}
    door |= {"inside": 25, "capacity": 60}
    answer = {"guests": guests, "counts": door}
    answered = [entry(1, arrived=True)]  # a check-in answered, before the next list
    # the queue: a check-in with one of two guests and a new walk-in not sent yet, an undo of guest 3
    waiting = [
        {
            "id": "a",
            "kind": "checkin",
            "at": "2026-12-01T19:00:00Z",
            "guest": guests[1]["guest"],
            "body": {"guests_brought": 1},
        },
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
    # "waitlisted" counts the entries (7; 8 cancelled is not waiting), as "expected" does (1, 2, 5)
    assert seen["seen"] == [
        {**door, "expected": 3, "waitlisted": 1},
        {**door, "arrived": 21, "people": 31, "inside": 26, "expected": 2, "waitlisted": 1},
        # guest 2 in with one of two guests (+1, +2 people), guest 6 a new walk-in let in (+1 walk-in, +1 in),
        # guest 3 undone (-1, -2 people with their guest, expected again); inside as people
        {**door, "walkins": 4, "arrived": 22, "people": 32, "inside": 27, "expected": 2, "waitlisted": 1},
    ]
    # the filters show as many as the counters say
    assert (seen["expected"], seen["waitlisted"]) == (2, 1)
