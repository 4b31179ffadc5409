"""CSV exports that open in a spreadsheet as they should.

UTF-8 with a byte-order mark: Excel reads a CSV without one in the computer's legacy code page (Ångström
becomes Ã…ngstrÃ¶m), and with it as UTF-8; LibreOffice, Numbers and Google Sheets take the mark as well.
A header row, CRLF line ends (RFC 4180). Names come from an outside platform, so a text cell that a
spreadsheet would run as a formula (one whose first visible character folds to = + - @, or starting with tab
or carriage return) gets a leading `'`,
which spreadsheets show as text (OWASP's CSV injection advice); Door's own numbers are left as numbers.
"""

import csv
import io
import re
import unicodedata

from bottle import response

CSV = "text/csv; charset=utf-8"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
MINUS = ("\u2212",)  # MINUS SIGN: no NFKC form, yet a spreadsheet reads it as a minus
UNSEEN = ("Cf", "Cc", "Zs", "Mn", "Mc", "Me")  # format marks, controls, spaces, and marks with no base


def formula_like(text):
    """True when a spreadsheet could read `text` as a formula: it starts with a tab or carriage return, or
    its first visible character (past invisible format marks, spaces, controls and combining marks that
    have no letter to sit on: a zero-width space, a byte-order or bidi mark, a lone accent) folds under
    NFKC to = + - @ (fullwidth ＝ ＋ ＠, small ﹦ included) or is a minus sign (−)."""
    if text.startswith(FORMULA_START):
        return True
    visible = next((c for c in text if unicodedata.category(c) not in UNSEEN), "")
    return unicodedata.normalize("NFKC", visible).startswith(FORMULA_START) or visible in MINUS


def cell(value):
    if value is None:
        return ""
    if isinstance(value, str) and formula_like(value):
        return "'" + value
    return value


def csv_file(name, header, rows, separator=","):
    """The CSV text of `rows` (sequences in `header`'s order), sent as the download `name`.csv."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=separator, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([cell(value) for value in row] for row in rows)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "export"
    response.set_header("Content-Disposition", f'attachment; filename="{safe}.csv"')
    return ("\ufeff" + out.getvalue()).encode("utf-8")
