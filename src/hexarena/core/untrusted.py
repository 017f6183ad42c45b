"""Text from outside (model replies, server messages, names and URLs in configs) made safe.

Two dangers, two helpers:

* credentials in URLs (``http://user:PASS@host``, ``?api_key=...``) must not reach a record, a
  log or the terminal: :func:`redact_urls` masks them wherever a URL appears in a text, as pip's
  ``redact_auth_from_url`` does (the password, or a user name given alone, becomes ``****``;
  so does the value of a query key that looks like a secret);
* text shown on a terminal must not act on it: :func:`visible` writes control characters
  (terminal escapes such as ``\\x1b]0;``, carriage returns, bidi overrides, lone UTF-16
  surrogates) as escapes, and :func:`shown` also escapes rich markup (``[b]``, ``[/]``) for
  ``console.print``.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from rich.markup import escape

#: A key whose value is a secret: one of these, or a name ending in ``_`` / ``-`` plus one of them.
SECRET_KEYS = ("api_key", "apikey", "key", "token", "secret", "password", "authorization", "auth", "sig")
#: What stands in for a credential inside a URL.
MASK = "****"

_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>`]+")
_QUERY_ITEM = re.compile(r"(?P<key>[^=&;#]+)=(?P<value>[^&;#\s)\]]*)")
# C0 and C1 controls but newline and tab, bidi marks and overrides, and surrogates (which only
# exist alone in a str: a valid pair decodes to one character).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def is_secret_key(key: object) -> bool:
    """Whether a config key names a secret (``api_key``, ``x-api-key``, ``access_token``...)."""
    k = str(key).lower()
    return any(k == s or k.endswith(("_" + s, "-" + s)) for s in SECRET_KEYS)


def redact_url(url: str) -> str:
    """``url`` with its credentials masked: ``http://user:****@host/v1?api_key=****``."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not parseable as a URL: mask anything between :// and an @
        return re.sub(r"(?<=://)[^/@\s]*@", MASK + "@", url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon else f"{MASK}@{host}"
    query = _QUERY_ITEM.sub(
        lambda m: f"{m['key']}={MASK}" if is_secret_key(m["key"]) and m["value"] else m.group(), parts.query
    )
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def redact_urls(text: str) -> str:
    """``text`` with the credentials of every URL in it masked (see :func:`redact_url`)."""
    return _URL.sub(lambda m: redact_url(m.group()), text) if "://" in text else text


def escape_surrogates(text: str) -> str:
    """``text`` with each lone UTF-16 surrogate (a server that cut an emoji in half sends
    ``"\\ud83d"``: valid JSON, but no UTF-8 file or SQLite text can hold it) written as its
    ``\\uXXXX`` escape. Inside JSON text that escape reads back as the same character."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def visible(text: object) -> str:
    """``str(text)`` with control characters written as escapes (``\\x1b``, ``\\u202e``,
    ``\\ud800``) so they show instead of acting on the terminal; newlines and tabs stay."""

    def escaped(m: re.Match[str]) -> str:
        code = ord(m.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _CONTROL.sub(escaped, str(text))


def shown(text: object) -> str:
    """Untrusted text for ``console.print``: control characters visible, rich markup escaped."""
    return escape(visible(text))
