"""Engine URLs: one string names the engine, where it is and how to connect.

Forms follow SQLAlchemy's: ``scheme[+driver]://user:password@host:port/database?opt=value``.
``duckdb`` alone is an in-memory DuckDB; ``duckdb:///file.db`` is a relative path and
``duckdb:////abs/file.db`` an absolute one, as with ``sqlite:///``. The password is kept apart
from everything that can be printed: ``str``, ``repr`` and every error message show ``***``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal
from urllib.parse import quote, unquote, urlsplit

from dbbench.drivers.errors import DriversError

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9.-]*(\+[A-Za-z0-9_.-]+)?$")
# user:password@ inside anything that looks like a URL, for text we could not parse.
_USERINFO = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*):(?P<pw>\S*)@")
_SECRET_OPTIONS = frozenset({"password", "passwd", "pwd", "sslpassword"})
_SECRET_QUERY = re.compile(r"(?P<head>[?&](?:password|passwd|pwd|sslpassword)=)[^&\s]*", re.I)
# libpq's key=value form (``host=h password='p w'``), an environment-style PGPASSWORD=...,
# a token or secret setting: the value, quoted or bare, up to a separator.
_KV_SECRET = re.compile(
    r"(?P<head>(?<![A-Za-z0-9_])(?:password|passwd|pwd|sslpassword|pgpassword|secret|token"
    r"|api_key)\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?|[^\s&;,'\"]+)",
    re.IGNORECASE,
)
# Spark's in-process masters as a host: local, local[4], local[*], local-cluster[2,1,1024].
_SPARK_LOCAL_HOST = re.compile(r"^(?P<host>local(?:-cluster)?(?:\[[^\]/?]*\])?)(?=[/?]|$)")


@dataclass(frozen=True)
class EngineURL:
    """A parsed engine URL. ``password`` never shows up in ``str`` or ``repr``."""

    scheme: str  # the engine family: duckdb, postgresql, mysql, sqlite, ...
    driver: str | None = None  # the part after ``+``: pymysql, psycopg, ...
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    host: str | None = None
    port: int | None = None
    database: str | None = None  # a database name, or a file path for embedded engines
    query: dict[str, str] = field(default_factory=dict)

    @property
    def drivername(self) -> str:
        """``scheme+driver`` as SQLAlchemy spells it."""
        return f"{self.scheme}+{self.driver}" if self.driver else self.scheme

    def with_options(self, **options: object) -> EngineURL:
        """Keyword options override query-string options (``None`` removes one)."""
        merged = dict(self.query)
        for key, value in options.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = _option_text(value)
        return replace(self, query=merged)

    def without(self, *keys: str) -> EngineURL:
        """The same URL minus some query options (those the kit itself consumes)."""
        return replace(self, query={k: v for k, v in self.query.items() if k not in keys})

    def render(self, *, hide_password: bool = True) -> str:
        """The URL as text; the password is ``***`` unless explicitly asked for."""
        text = f"{self.drivername}://"
        if self.username is not None or self.password is not None:
            text += quote(self.username or "", safe="")
            if self.password is not None:
                text += ":" + ("***" if hide_password else quote(self.password, safe=""))
            text += "@"
        if self.host:
            text += f"[{self.host}]" if ":" in self.host else self.host
        if self.port is not None:
            text += f":{self.port}"
        if self.database is not None:
            text += "/" + self.database
        if self.query:
            text += "?" + "&".join(
                f"{quote(k)}={'***' if hide_password and is_secret_option(k) else quote(v)}"
                for k, v in self.query.items()
            )
        return text

    def __str__(self) -> str:
        return self.render()


def check_local(url: EngineURL, product: str, names: Literal["file", "folder"]) -> None:
    """An engine's URL that names a local ``file`` or ``folder``: a user, password, host or
    port (a server) is refused in one line, with the two forms it takes."""
    if url.username or url.password or url.host or url.port:
        tail = f".{url.scheme}" if names == "file" else "/folder"
        raise DriversError(
            f"a {product} URL names a {names}, not a server: {url} takes no user, password, "
            f"host or port ({url.scheme}:///relative{tail} or {url.scheme}:////absolute{tail})"
        )


def is_secret_option(option: str) -> bool:
    """Query options that carry a password (libpq accepts ``?password=``)."""
    return option.lower() in _SECRET_OPTIONS


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def redact(url: str | EngineURL) -> str:
    """The URL with its password replaced by ``***``; works on text that does not parse."""
    if isinstance(url, EngineURL):
        return url.render()
    text = _USERINFO.sub(lambda m: f"{m.group('head')}:***@", _redact_userinfo(url))
    text = _SECRET_QUERY.sub(lambda m: f"{m.group('head')}***", text)
    return _KV_SECRET.sub(lambda m: f"{m.group('head')}***", text)


def _kv_secrets(text: str) -> set[str]:
    """The values of the key=value secrets in ``text``, with and without their quotes."""
    found: set[str] = set()
    for m in _KV_SECRET.finditer(text):
        value = m.group("pw")
        found.add(value)
        bare = value.strip("'\"")
        found |= {bare, bare.replace("\\'", "'").replace("\\\\", "\\")}
    return {s for s in found if len(s) >= 2}


def scrub_secrets(message: str, args: Iterable[str]) -> str:
    """``message`` with every secret hidden: every piece of a password that any of ``args``
    (the command line) holds, in URL form (``scheme://user:pw@``, ``user:pw@host``) or
    libpq's key=value form (``password=pw``, ``PGPASSWORD=pw``), wherever it appears; then
    any URL password and key=value secret of the message itself. The one scrubber every
    line the kit prints goes through (:mod:`dbbench.errors`, the CLI's output streams)."""
    for arg in args:
        if "@" in arg:
            message = scrub_password(message, arg)
        for secret in sorted(_kv_secrets(arg), key=len, reverse=True):
            message = message.replace(secret, "***")
    if "://" in message:
        message = _USERINFO.sub(lambda m: f"{m.group('head')}:***@", message)
    if "=" in message:
        message = _SECRET_QUERY.sub(lambda m: f"{m.group('head')}***", message)
        message = _KV_SECRET.sub(lambda m: f"{m.group('head')}***", message)
    return message


def has_secret(args: Iterable[str]) -> bool:
    """Whether any of ``args`` holds a password (URL or key=value form)."""
    return any(
        ("@" in a and _password_span(a) is not None) or _KV_SECRET.search(a) is not None
        for a in args
    )


def _password_span(text: str) -> tuple[int, int] | None:
    """Where the password of a URL-like text is: between the first ``:`` after the scheme
    (or the start, for a URL without one) and the *last* ``@`` (a password may hold ``/``,
    ``@``, ``?``: over-hiding is the safe side)."""
    scheme = re.match(r"\s*(?:[A-Za-z][A-Za-z0-9+.-]*://)?", text)
    start = scheme.end() if scheme else 0
    at = text.rfind("@")
    colon = text.find(":", start, at) if at > start else -1
    return (colon + 1, at) if colon != -1 else None


def _redact_userinfo(text: str) -> str:
    span = _password_span(text)
    return text if span is None else text[: span[0]] + "***" + text[span[1] :]


def scrub_password(message: str, raw: str) -> str:
    """A parser's message about ``raw`` with every piece of its password hidden (a bad
    port message quotes what it took for the port: the password's first part)."""
    span = _password_span(raw)
    if span is None:
        return message
    secret = raw[span[0] : span[1]]
    for whole in sorted({secret, unquote(secret)} - {""}, key=len, reverse=True):
        message = message.replace(whole, "***")
    for piece in sorted(set(re.split(r"[/?#@:&=\[\]]", secret)), key=len, reverse=True):
        if len(piece) >= 2:  # a piece on its own, not the letters of a word that holds it
            message = re.sub(rf"(?<![A-Za-z0-9]){re.escape(piece)}(?![A-Za-z0-9])", "***", message)
    return message


def parse_url(text: str) -> EngineURL:
    """Parse an engine URL; a malformed one is a one-line :class:`DriversError`, which
    never holds any piece of the password."""
    try:
        return _parse_url(text)
    except DriversError as exc:
        scrubbed = scrub_password(str(exc), text.strip())
        if scrubbed != str(exc):
            raise DriversError(scrubbed) from None
        raise


def _parse_url(text: str) -> EngineURL:
    raw = text.strip()
    if not raw:
        raise DriversError("empty engine URL (try 'duckdb' or 'postgresql://user@host/db')")
    if "://" not in raw:
        if _SCHEME.match(raw):
            return EngineURL(*_split_scheme(raw))
        raise DriversError(f"not an engine URL: {redact(raw)!r} (expected scheme://...)")
    head, _, rest = raw.partition("://")
    if not _SCHEME.match(head):
        raise DriversError(f"bad engine URL scheme {head!r} in {redact(raw)!r}")
    scheme, driver = _split_scheme(head)
    local = _SPARK_LOCAL_HOST.match(rest)
    if local:  # brackets that are not an IPv6 address: keep the host verbatim
        rest = "localhost" + rest[local.end() :]
    try:
        parts = urlsplit("x://" + rest)
        port = parts.port
    except ValueError as exc:
        raise DriversError(
            f"bad engine URL {redact(raw)!r}: {scrub_password(str(exc), raw)}"
        ) from None
    return EngineURL(
        scheme=scheme,
        driver=driver,
        username=unquote(parts.username) if parts.username is not None else None,
        password=unquote(parts.password) if parts.password is not None else None,
        host=local.group("host") if local else unquote(parts.hostname) if parts.hostname else None,
        port=port,
        database=_database(parts.path),
        query=_query(parts.query, raw),
    )


def _split_scheme(head: str) -> tuple[str, str | None]:
    scheme, plus, driver = head.partition("+")
    return scheme.lower(), (driver if plus else None)


def _database(path: str) -> str | None:
    """``/name`` -> ``name``; ``//abs/file`` -> ``/abs/file`` (SQLAlchemy's four slashes)."""
    if not path or path == "/":
        return None
    return unquote(path[1:])


def _query(text: str, raw: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in text.split("&"):
        if not item:
            continue
        key, eq, value = item.partition("=")
        if not key or not eq:
            raise DriversError(f"bad option {unquote(key)!r} in engine URL {redact(raw)!r}")
        options[unquote(key)] = unquote(value.replace("+", " "))
    return options
