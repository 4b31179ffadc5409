"""One search rule in two languages: the door's (doorapp/static/core/search.js, run here in Chromium) and the
server's (doorapp/search.py) must split every name into the same words and find the same names for the same
query, over the demo community's 2,500 members and characters that tell the script classes apart."""

import random

import pytest

from doorapp.platforms.demo import DemoPlatform
from doorapp.search import name_filter, words

pytestmark = pytest.mark.browser

# Characters whose script a hand-written range gets wrong: [character, what it is].
PROBES = [
    ["ｱ", "half-width katakana"],
    ["ㄱ", "Hangul compatibility jamo"],
    ["𠀋", "Han ideograph of extension B (outside the BMP)"],
    ["⺀", "CJK radical (Script=Han)"],
    ["々", "ideographic iteration mark (Script=Han)"],
    ["ー", "prolonged sound mark (Script=Common: spaced)"],
    ["ㇰ", "katakana phonetic extension"],
    ["豈", "CJK compatibility ideograph"],
    ["ᄀ", "Hangul jamo"],
    ["ゟ", "hiragana digraph yori"],
]
# Names around the probes: alone, inside a word, after a space, beside Latin letters and accents.
PROBE_NAMES = (
    [[f"x{char}y Ünïcode", f"probe_{n}"] for n, (char, _) in enumerate(PROBES)]
    + [[f"{char}{char}", f"probe{char}"] for char, _ in PROBES]
    + [["ｶﾀｶﾅ ｶﾞｰﾄﾞ", "hankaku"], ["김 ㄱㅏ", "jamo_kim"]]
)

IN_THE_PAGE = """async ([names, queries]) => {
  const { haystack, search, words } = await import("/static/core/search.js");
  const entries = names.map(([displayname, username], i) =>
    ({ guest: { displayname, username, platform_user_id: i }, rsvp: {} }));
  const hays = entries.map(haystack);
  return {
    words: names.map(([displayname, username]) => words(`${displayname} ${username}`)),
    found: queries.map((query) =>
      search(entries, hays, query).map((e) => e.guest.platform_user_id).sort((a, b) => a - b)),
  };
}"""


def community():
    members = DemoPlatform()._community[0].values()
    return [[p.displayname, p.username] for p in members] + PROBE_NAMES


def queries(names):
    """What door staff type: probes, the start of a word, first letters of each word, a part of a word."""
    rng = random.Random(20)
    typed = [char for char, _ in PROBES] + [
        "ｶﾞ",
        "ㅏ",
        "ｰ",
        "ー",
        "zoe",
        "ANGSTROM",
        "o'b",
        "@max",
        "2^53 beyond",
    ]
    for display, username in rng.sample(names, 60):
        parts = words(display) or [username]
        typed += [parts[0][:3], " ".join(p[:2] for p in parts), parts[-1][1:4], username[:4]]
    return typed


def test_the_door_and_the_server_split_names_into_the_same_words_and_find_the_same_names(browser):
    names = community()
    typed = queries(names)
    page = browser.page()
    door = page.evaluate(IN_THE_PAGE, [names, typed])
    server_words = [words(f"{display} {username}") for display, username in names]
    differ = [
        (name, js, py) for name, js, py in zip(names, door["words"], server_words, strict=True) if js != py
    ]
    assert differ == []
    for query, found in zip(typed, door["found"], strict=True):
        wanted = name_filter(query)
        assert found == [i for i, (display, username) in enumerate(names) if wanted(display, username)], query


@pytest.mark.parametrize(("char", "what"), PROBES)
def test_a_probe_inside_a_word_is_found_by_both_exactly_when_its_script_is_written_without_spaces(char, what):
    # the server's half of the rule, stated: the door's half is held to it by the test above
    unspaced = what != "prolonged sound mark (Script=Common: spaced)"
    assert name_filter(char)(f"x{char}y", "") is unspaced
