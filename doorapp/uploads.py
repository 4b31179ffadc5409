"""Files sent as multipart/form-data (an import's guest list): the one route kind whose body may be larger
than 64 KiB. waitress refuses a larger body by its Content-Length before reading it (server.Parser); this
reads what came, once more bounded."""

import re
from dataclasses import dataclass

from bottle import BaseRequest, MultipartError, request

from doorapp.bodies import refuse_controls
from doorapp.errors import ApiError, Invalid, invalid, validation_error

MAX_UPLOAD = 5 * 1024 * 1024  # the file; the form around it may add a little
MAX_UPLOAD_BODY = MAX_UPLOAD + 64 * 1024
MAX_NAME = 255  # the file's name
UPLOAD_PATH = re.compile(r"/organizations/[^/]+/meetups/(?:[^/]+/)?import")  # the routes that take one


class UploadRequest(BaseRequest):
    """The request as bottle's multipart parser reads a file of up to MAX_UPLOAD_BODY (with its default
    limit, 100 KiB, a 10,000-row list is 400 Bad Request): it keeps the part in memory, already bounded."""

    MEMFILE_MAX = MAX_UPLOAD_BODY


@dataclass
class Upload:
    filename: str
    data: bytes


def too_large():
    return ApiError(413, "body_too_large", f"The file is larger than {MAX_UPLOAD // 1024 // 1024} MiB.")


def read_upload():
    """({form field: text}, the Upload of the field `file`); 413 past the limit, 415 for another media
    type, 422 without a file."""
    kind = request.content_type.split(";")[0].strip().lower()
    if kind != "multipart/form-data":
        raise ApiError(415, "unsupported_media_type", "Send the file as multipart/form-data.")
    if request.content_length > MAX_UPLOAD_BODY:
        raise too_large()
    try:
        parsed = UploadRequest(request.environ)
        fields = {k: parsed.forms.getunicode(k) for k in parsed.forms}
        part = parsed.files.get("file")
    except (UnicodeDecodeError, ValueError, MultipartError):  # no boundary, a broken part...
        raise ApiError(400, "malformed_json", "The form cannot be read as multipart/form-data.") from None
    if part is None:
        loc = ("body", "file")
        raise validation_error([invalid(loc, "missing", "Attach the guest list as `file`.")])
    data = part.file.read(MAX_UPLOAD + 1)
    if len(data) > MAX_UPLOAD:
        raise too_large()
    return {k: v for k, v in fields.items() if v is not None}, Upload(
        file_name(part.raw_filename or ""), data
    )


def file_name(name):
    """The file's name as its computer gave it, which the audit log and the answer name: a text like any
    other (at most MAX_NAME characters, no control characters: a terminal escape would be stored as sent);
    else 422 at `body.file`."""
    try:
        refuse_controls(name)
    except Invalid as error:
        raise validation_error([error.at(("body", "file"))]) from None
    if len(name) > MAX_NAME:
        message = f"The file's name must be at most {MAX_NAME} characters."
        raise validation_error([invalid(("body", "file"), "too_long", message, max=MAX_NAME)])
    return name
