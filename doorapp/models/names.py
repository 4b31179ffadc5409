"""The name rule: how a search matches people's names (guests at /guests/?q and the audit log's guest
filter, users at /users/?q).

The door's search in the browser (static/search.js) applies the same rule to the door list in JavaScript;
the two must agree, word for word."""

import re
import unicodedata

_SEPARATORS = re.compile(r"[\s,_\-.@'()]+")  # "grace_okafor", "Nowak-Wróbel", "O'Brien": words of their own
_UNSPACED = re.compile("[\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _words(text):
    folded = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c)[0] != "M")
    return [w for w in _SEPARATORS.split(folded.lower()) if w]


def name_filter(query):
    """A test of names against what someone typed, as the door's search (static/search.js): every typed word
    starts a word of the name, whatever the case, accents and word order ("angstrom alice" finds Alice
    Ångström); scripts written without spaces match anywhere. For pickers over lists that fit in memory."""
    terms = [t if _UNSPACED.search(t) else " " + t for t in _words(query)]
    return lambda *names: all(t in " " + " ".join(_words(" ".join(names))) for t in terms)
