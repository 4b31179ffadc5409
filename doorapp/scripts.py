"""Mixed-script detection of Unicode's confusable-detection rules (UTS #39, section 5.1), for usernames: a
name is in one script when the intersection of its characters' Script_Extensions, with Common and
Inherited characters counting as every script, is not empty; Han with Hiragana, Katakana, Hangul or
Bopomofo counts as one script (Japanese, Korean, Chinese: the standard's augmented sets). The
Script_Extensions data is the pinned `regex` package's, so it follows that package's Unicode version."""

import functools

import regex

# Every script of Unicode 15.1 (its long property value names); a name `regex` did not know would fail
# at import.
SCRIPTS = """Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali
Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma
Cham Cherokee Chorasmian Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru
Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek
Gujarati Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana
Imperial_Aramaic Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi
Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B
Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin
Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar
Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki
Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian
Old_Turkic Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician
Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian
Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil
Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi
Yezidi Yi Zanabazar_Square""".split()  # noqa: SIM905 (a list of 160 names, read as words)
# UTS #39's augmented script sets: a Han character is also Japanese, Korean and Chinese-with-Bopomofo.
AUGMENTED = {"Han": ("Han", "Hiragana", "Katakana", "Hangul", "Bopomofo")}
AUGMENTED |= {"Hiragana": ("Hiragana", "Han", "Katakana")}  # Japanese
AUGMENTED |= {
    "Katakana": ("Katakana", "Han", "Hiragana"),
    "Hangul": ("Hangul", "Han"),
    "Bopomofo": ("Bopomofo", "Han"),
}


@functools.cache
def _one_script(script):
    """A pattern matching a text whose every character can be of `script` (or of every script)."""
    scripts = "".join(rf"\p{{scx={s}}}" for s in AUGMENTED.get(script, (script,)))
    return regex.compile(rf"[{scripts}\p{{scx=Common}}\p{{scx=Inherited}}]*")


for _script in SCRIPTS:
    _one_script(_script)


def is_mixed_script(text):
    """True when no one script (with its augmented set) holds every character of `text` (UTS #39)."""
    return not any(_one_script(script).fullmatch(text) for script in SCRIPTS)
