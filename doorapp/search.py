"""The name search, the server's half of one rule: the door searches its loaded list in the browser
(doorapp/static/core/search.js) and the server searches with `name_filter` (/guests/?q, /users/?q, the audit
log's guest filter). Both are written with the same steps and the same Unicode classes, and
tests/browser/test_search_parity.py runs search.js in Chromium over the demo community's names and some
hard characters and compares its words and matches with these: change one side and that test fails until
the other says the same.

The rule: a name's words are its text decomposed (NFD), without combining marks, lower-cased, split at
spaces and `, _ - . @ ' ( )`. Every typed word must start a word of the name ("angstrom alice" finds
Alice Ångström; "ok" finds Okafor, not Brooke); a typed word holding a character of a script written
without spaces (Han, Hiragana, Katakana, Hangul) may match anywhere.
"""

import unicodedata

import regex

# JavaScript's \s, spelled out: Python's \s also takes \x1c-\x1f and \x85, which JavaScript's does not.
_SPACE = r"\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_SEPARATORS = regex.compile(rf"[{_SPACE},_\-.@'()]+")  # "grace_okafor", "Nowak-Wróbel", "O'Brien"
_UNSPACED = regex.compile(r"[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]")
_MARKS = regex.compile(r"\p{M}")


def fold(text):
    """ "Ångström" -> "angstrom": decomposed (NFD), combining marks dropped, lower-cased."""
    return _MARKS.sub("", unicodedata.normalize("NFD", text or "")).lower()


def words(text):
    """The words a name is searched by."""
    return [word for word in _SEPARATORS.split(fold(text)) if word]


def name_filter(query):
    """A test of names against what someone typed: `name_filter(q)(displayname, username)` is true when
    every typed word starts a word of the names (or, in a script written without spaces, appears anywhere).
    For pickers over lists that fit in memory."""
    terms = [term if _UNSPACED.search(term) else " " + term for term in words(query)]
    return lambda *names: all(term in " " + " ".join(words(" ".join(names))) for term in terms)
