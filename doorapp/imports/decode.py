"""A file's bytes as a table of text cells: CSV or TSV in any encoding Excel saves, or an .xlsx workbook's
first sheet. What is not a table (a photo, a PDF, an old binary .xls, a broken or over-expanding .xlsx) is
Unreadable, with a sentence that says what was found and what to upload instead."""

import csv
import io
import zipfile
from xml.parsers import expat

import charset_normalizer

MAX_BODY_FILE = 5 * 1024 * 1024  # what the API takes (uploads.MAX_UPLOAD), and the command line
MAX_ROWS = 20_000  # a meetup's list; a file with more rows is refused as a whole
MAX_CELL = 5 * 1024 * 1024  # the csv module's per-field limit (its default, 128 KiB, fails the whole file)
MAX_XLSX_EXPANDED = 64 * 1024 * 1024  # what an .xlsx may unpack to (a zip bomb unpacks to gigabytes)
MAX_XLSX_RATIO = 200  # and by how much any one part may expand
MAX_XLSX_PART = 4 * 1024 * 1024  # what any other XML part (shared strings, styles) may unpack to: openpyxl
# reads those whole, and 45 MB of shared strings took 16 s and 375 MB
MAX_COLUMNS = 1_000  # cells of one row of a worksheet; a row is read up to this column at most
MAX_CELLS = (MAX_ROWS + 21) * 50  # cells of a worksheet: 20,000 rows (and a header, a title) of 50
UPLOAD = (
    "Upload the attendee list as downloaded: Meetup's .xls or .csv, Luma's guest CSV, or a spreadsheet "
    "saved as .csv or .xlsx."
)
SIGNATURES = (  # (leading bytes, what they are, its `found` word)
    (b"\xff\xd8\xff", "a JPEG picture", "picture"),
    (b"\x89PNG", "a PNG picture", "picture"),
    (b"GIF8", "a GIF picture", "picture"),
    (b"RIFF", "a picture or sound file", "picture"),
    (b"%PDF", "a PDF document", "pdf"),
    (b"\xd0\xcf\x11\xe0", "an old binary Excel workbook (save it as .xlsx or CSV)", "old_excel"),
    (b"\x1f\x8b", "a compressed (gzip) file", "compressed"),
)
HEIC = (b"ftypheic", b"ftypheix", b"ftypmif1", b"ftypavif")

csv.field_size_limit(MAX_CELL)


FOUND = (  # what an unreadable file was found to be (doorapp.imports.read adds the last two)
    *dict.fromkeys(sign[2] for sign in SIGNATURES),
    *("empty", "not_text", "damaged", "zip", "too_large", "too_many_rows", "too_many_cells", "not_csv"),
    *("no_name_column", "no_such_column"),
)


class Unreadable(Exception):
    """The file is not a guest list; args[0] says what was found, in a sentence a person can act on, and
    `found` in one word (FOUND) for a client that words it in its language."""

    def __init__(self, message, found):
        assert found in FOUND, found
        super().__init__(message)
        self.found = found


def table(data):
    """The file's rows, each a list of strings (blank rows included, so that row numbers are the file's)."""
    if not data.strip():
        raise Unreadable(f"The file is empty. {UPLOAD}", "empty")
    if data.startswith(b"PK\x03\x04"):
        return xlsx_rows(data)
    found = next((sign[1:] for sign in SIGNATURES if data.startswith(sign[0])), None)
    if found is None and data[4:12] in HEIC:
        found = ("a phone photo (HEIC)", "picture")
    if found:
        raise Unreadable(f"This is {found[0]}, not a guest list. {UPLOAD}", found[1])
    return text_rows(decode(data))


def decode(data):
    """The text of a CSV or TSV file: UTF-8 (with or without a byte-order mark), UTF-16 (with one, as
    Excel's "Unicode text" saves it), or whatever charset-normalizer finds (Windows-1252 from Excel in
    Western locales, most often)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    text = data.decode("utf-8", errors="replace")
    if "\ufffd" in text and not any(c > "\x7f" and c != "\ufffd" for c in text):
        text = data.decode(_encoding(data), errors="replace")  # no UTF-8 at all: a legacy code page
    # else UTF-8, maybe with a few broken bytes (an encoded surrogate): U+FFFD marks them, row by row
    if text.count("\x00") > len(text) // 10:  # binary, or UTF-16 without its mark
        raise Unreadable(f"The file is not text or a spreadsheet. {UPLOAD}", "not_text")
    return text


def _encoding(data):
    """charset-normalizer's guess, preferring Windows-1252 when it is among the fits: a short Spanish list
    reads as well in Central European cp1250 (Núñez as Núńez), but Excel saves cp1252 in Western locales."""
    matches = list(charset_normalizer.from_bytes(data[:200_000]))
    if not matches:
        raise Unreadable(f"The file is not text or a spreadsheet. {UPLOAD}", "not_text")
    fits = [m.encoding for m in matches]
    return "cp1252" if "cp1252" in fits else fits[0]


def text_rows(text):
    """CSV or TSV rows, separated by commas, semicolons or tabs: the one of them the first lines hold most of
    outside quotes decides. Quoted fields may hold separators and line breaks."""
    head = "\n".join(text.splitlines()[:20])
    counts = {sep: _count_outside_quotes(head, sep) for sep in ("\t", ";", ",")}
    separator = max(counts, key=counts.get)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator)
    rows = []
    try:
        for row in reader:
            rows.append(row)
            if len(rows) > MAX_ROWS + 20:
                raise Unreadable(
                    f"The file has more than {MAX_ROWS:,} rows; a guest list has fewer.", "too_many_rows"
                )
    except csv.Error as error:
        raise Unreadable(
            f"Line {reader.line_num} of the file cannot be read as CSV ({error}).", "not_csv"
        ) from None
    return rows


def _count_outside_quotes(text, separator):
    return sum(part.count(separator) for part in text.split('"')[::2])


def xlsx_rows(data):
    """The first sheet of an .xlsx workbook, as text cells, read in openpyxl's streaming mode after the
    archive's sizes are checked (no part may unpack past the limits) and its worksheets' cells counted
    (the work of reading is bounded, not only the bytes: a sheet of 1.5 KB that declares 16,384 columns
    took 2.8 GB and 35 s as openpyxl padded every row to its width)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        parts = archive.infolist()
    except (zipfile.BadZipFile, ValueError):
        raise Unreadable(
            f"The file looks like an .xlsx workbook but is damaged. {UPLOAD}", "damaged"
        ) from None
    expanded = sum(p.file_size for p in parts)
    if expanded > MAX_XLSX_EXPANDED or any(
        p.file_size > MAX_XLSX_RATIO * max(p.compress_size, 1) + 1024 * 1024 for p in parts
    ):
        message = "The workbook unpacks to far more than a guest list; save it as CSV and try again."
        raise Unreadable(message, "too_large")
    sheets = [p for p in parts if p.filename.startswith("xl/worksheets/") and p.filename.endswith(".xml")]
    if not sheets:
        raise Unreadable(f"The file is a zip archive, not an .xlsx workbook. {UPLOAD}", "zip")
    for part in parts:
        if (
            part not in sheets
            and part.filename.endswith((".xml", ".rels"))
            and part.file_size > MAX_XLSX_PART
        ):
            message = (
                f"The workbook's {part.filename.rsplit('/', 1)[-1]} unpacks to {part.file_size // 2**20} MB,"
                " far more than a guest list's; save it as CSV and try again."
            )
            raise Unreadable(message, "too_large")
    width = max(_width(archive, part) for part in sheets)
    return _sheet(data, width)


class _TooManyCells(Exception):
    pass


def _width(archive, part):
    """How many columns to read of the worksheet `part`: up to its last cell with a value (at most
    MAX_COLUMNS), found by a streaming parse that keeps nothing. Unreadable when a row has more than
    MAX_COLUMNS cells, or reading it would take more than MAX_CELLS: its cells, or its rows (up to
    MAX_ROWS) each as wide as that (openpyxl builds every row to the width asked for)."""
    seen = {"row": 0, "cells": 0, "last": 0, "rows": 0, "column": 0, "widest": 0}

    def start(name, attributes):
        tag = name.rpartition(":")[2]
        if tag == "row":
            seen["row"], seen["last"] = 0, 0
            seen["rows"] = int(attributes["r"]) if attributes.get("r", "").isdigit() else seen["rows"] + 1
        elif tag == "c":
            seen["row"] += 1
            seen["cells"] += 1
            seen["column"] = _column(attributes.get("r", "")) or seen["last"] + 1
            seen["last"] = seen["column"]
            if seen["row"] > MAX_COLUMNS or seen["cells"] > MAX_CELLS:
                raise _TooManyCells
        elif tag in ("v", "is"):  # the cell has a value
            seen["widest"] = max(seen["widest"], min(seen["column"], MAX_COLUMNS))
            if min(seen["rows"], MAX_ROWS + 21) * seen["widest"] > MAX_CELLS:
                raise _TooManyCells

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    try:
        with archive.open(part) as source:
            parser.ParseFile(source)
    except _TooManyCells:
        message = (
            f"The workbook has a row of more than {MAX_COLUMNS:,} cells, or more than {MAX_CELLS:,} cells in"
            " all: far more than a guest list. Save just the guest list as CSV and try again."
        )
        raise Unreadable(message, "too_many_cells") from None
    except (expat.ExpatError, zipfile.BadZipFile, ValueError, EOFError):
        raise Unreadable(
            f"The file looks like an .xlsx workbook but is damaged. {UPLOAD}", "damaged"
        ) from None
    return seen["widest"]


def _column(reference):
    """The column number of a cell reference such as "AB12" (0 when there is none)."""
    number = 0
    for char in reference:
        if not "A" <= char <= "Z":
            break
        number = number * 26 + ord(char) - 64
    return number


def _sheet(data, width):
    """The rows of the first sheet, each read up to column `width` (_width()): by default openpyxl pads
    every row to the width the sheet declares, which may be 16,384."""
    from openpyxl import load_workbook  # only imports pay for it

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        rows = []
        for values in book.worksheets[0].iter_rows(max_col=max(width, 1), values_only=True):
            rows.append([v if type(v) is str else _cell_text(v) for v in values])
            if len(rows) > MAX_ROWS + 20:
                message = f"The workbook has more than {MAX_ROWS:,} rows; a guest list has fewer."
                raise Unreadable(message, "too_many_rows")
        book.close()
        return rows
    except Unreadable:
        raise
    except Exception:  # openpyxl raises many kinds (KeyError, XML errors, ValueError) for a damaged file
        message = f"The file looks like an .xlsx workbook but cannot be read. {UPLOAD}"
        raise Unreadable(message, "damaged") from None


def _cell_text(value):
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
