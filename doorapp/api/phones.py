"""How phones on the venue network join: the address to open and a QR code of it (admins)."""

from doorapp.access import any_org_admin
from doorapp.api import endpoint, phone_urls, qr_code


@endpoint("GET", "/phones", auth=any_org_admin)
def get_phone_access():
    """Where phones on the venue network open Door, each address with a QR code to scan."""
    access = phone_urls()
    access["urls"] = [{"url": url, "qr_svg": qr_code(url)} for url in access["urls"]]
    return access
