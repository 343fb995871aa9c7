"""The Host header, checked before anything answers; redirects that never carry it.

Absolute URLs (the sitemap, robots.txt, VoID, the SPARQL service description) are built from the request's
Host, as Django and Flask build them. So every request's Host must be well-formed: a host name of at most 253
characters in dot-separated labels of at most 63 (letters, digits, ``-``, ``_``), an IPv4 address or an IPv6
address in brackets, and an optional port up to 65535. With ``KG_PUBLIC_HOSTS`` set (comma-separated; ``host``
for any port, ``host:port`` for that port only, ``.example.org`` for example.org and its subdomains), the Host
must also be one of them, as Django's ALLOWED_HOSTS asks; else the answer is ``400 Bad Request (invalid Host)``
and no view runs. ``/health`` answers any well-formed Host, so a load balancer may probe by address.

Routing redirects (a doubled slash merged, a trailing slash added) are sent with a path as their Location,
never an absolute URL with the request's Host in it.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from flask import redirect, request
from werkzeug.routing import RequestRedirect
from werkzeug.wrappers import Response as BaseResponse

from ...errors import SettingError

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
MAX_NAME = 253  # characters of a host name (RFC 1035), without a final dot
MAX_LABEL = 63  # characters of one label of it
MAX_HOST = MAX_NAME + 1 + 6  # a name, its final dot, ':' and five port digits
LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?", re.ASCII)
KNOWN_HOSTS = 256  # accepted Host values remembered per process, each at most MAX_HOST characters
EXEMPT_PATHS = ("/health",)  # answer any well-formed Host (load balancer probes by address)
SETTING_HINT = "list host names such as kg.example.org, kg.example.org:8443 or .example.org, comma-separated"


def split_port(host: str) -> tuple[str, str | None]:
    """A Host value as (name, port or None); an IPv6 name keeps its brackets.

    >>> split_port("kg.example.org:8443"), split_port("[::1]:80"), split_port("[::1]"), split_port("a")
    (('kg.example.org', '8443'), ('[::1]', '80'), ('[::1]', None), ('a', None))
    """
    if host.startswith("["):
        end = host.find("]") + 1
        if end and host[end:].startswith(":"):
            return host[:end], host[end + 1:]
        return host, None
    name, colon, port = host.rpartition(":")
    return (name, port) if colon else (host, None)


def host_problem(host: str) -> str | None:
    """Why a Host value is not a well-formed host name or address with an optional port, or None when it is.

    >>> host_problem("kg.example.org:8443") is None, host_problem("[::1]:5000") is None
    (True, True)
    >>> host_problem("a" * 64 + ".org")
    'a label of the host name is 64 characters long; a label has at most 63'
    >>> host_problem("evil.org/x")
    "the host name has a character other than letters, digits, '-' and '_' in a label, or an empty label"
    """
    if not host:
        return "the Host header is empty"
    if len(host) > MAX_HOST:
        return f"the Host header is {len(host)} characters long; a host name and port have at most {MAX_HOST}"
    name, port = split_port(host.lower())
    if port is not None and not (port.isascii() and port.isdigit() and len(port) <= 5 and int(port) <= 65535):
        return "the port is not a number from 0 to 65535"
    if name.startswith("["):
        try:
            ipaddress.IPv6Address(name[1:-1] if name.endswith("]") else "-")
        except ValueError:
            return "the address in brackets is not an IPv6 address"
        return None
    bare = name.removesuffix(".")
    if len(bare) > MAX_NAME:
        return f"the host name is {len(bare)} characters long; a host name has at most {MAX_NAME}"
    for label in bare.split("."):
        if len(label) > MAX_LABEL:
            return f"a label of the host name is {len(label)} characters long; a label has at most {MAX_LABEL}"
        if not LABEL.fullmatch(label):
            return ("the host name has a character other than letters, digits, '-' and '_' in a label, "
                    "or an empty label")
    return None


@dataclass(frozen=True)
class PublicHosts:
    """The host names this server answers as (KG_PUBLIC_HOSTS); empty: any well-formed host."""

    exact: frozenset[str] = frozenset()  # host:port entries, and host entries (any port)
    domains: tuple[str, ...] = ()  # .example.org entries: the domain and its subdomains

    def __bool__(self) -> bool:
        return bool(self.exact or self.domains)

    def allows(self, host: str) -> bool:
        """Whether a well-formed Host value names one of the public hosts."""
        name, port = split_port(host.lower())
        name = name.removesuffix(".")
        if name in self.exact or (port is not None and f"{name}:{port}" in self.exact):
            return True
        return any(name.endswith(domain) or name == domain[1:] for domain in self.domains)

    @classmethod
    def parse(cls, setting: str) -> PublicHosts:
        """The public hosts of a KG_PUBLIC_HOSTS value; SettingError names an entry that is not a host."""
        exact: set[str] = set()
        domains: list[str] = []
        for entry in (part.strip().lower() for part in setting.split(",")):
            if not entry:
                continue
            problem = host_problem(entry.removeprefix("."))
            if problem is not None:
                raise SettingError(f"KG_PUBLIC_HOSTS: {entry[:80]!r} is not a host: {problem}; {SETTING_HINT}")
            if entry.startswith("."):
                if split_port(entry)[1] is not None:
                    raise SettingError(f"KG_PUBLIC_HOSTS: {entry!r} names a domain with a port; {SETTING_HINT}")
                domains.append(entry.removesuffix("."))
            else:
                name, port = split_port(entry)
                exact.add(name.removesuffix(".") + (f":{port}" if port is not None else ""))
        return cls(frozenset(exact), tuple(domains))


class HostCheck:
    """WSGI middleware in front of Flask and its fast paths: 400 for a malformed Host, or one that is not public
    (the response cache in front of it keeps only 200s, keyed by Host, so it answers no Host this refuses)."""

    def __init__(self, app: WsgiApp, public: PublicHosts) -> None:
        self.app, self.public = app, public
        self.known: set[str] = set()  # Host values already accepted for every path (checking one took 4 µs)

    def problem(self, environ: dict[str, Any]) -> str | None:
        """Why this request's Host (or, without one, the server's own name) may not be used, or None."""
        sent = environ.get("HTTP_HOST")
        if sent is None and not self.public:
            return None  # HTTP/1.0 without Host: URLs are built from the server's own address
        host = sent if sent is not None else f"{environ.get('SERVER_NAME', '')}:{environ.get('SERVER_PORT', '')}"
        problem = host_problem(host)
        if problem is None and self.public and not self.public.allows(host) \
                and environ.get("PATH_INFO") not in EXEMPT_PATHS:
            return ("the Host header names none of this server's public hosts" if sent is not None else
                    "the request has no Host header, and the server's own address is none of its public hosts")
        return problem

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Refuse a request whose Host may not be used; pass every other one on."""
        host = environ.get("HTTP_HOST")
        if host in self.known:
            return self.app(environ, start_response)
        problem = self.problem(environ)
        if problem is None:
            if host is not None and (not self.public or self.public.allows(host)):
                if len(self.known) >= KNOWN_HOSTS:
                    self.known.clear()
                self.known.add(host)
            return self.app(environ, start_response)
        body = f"400 Bad Request (invalid Host): {problem}\n".encode()
        start_response("400 Bad Request", [("Content-Type", "text/plain; charset=utf-8"),
                                           ("Content-Length", str(len(body))), ("Cache-Control", "no-store")])
        return [body]


def relative_redirects() -> BaseResponse | None:
    """Before a view: a routing redirect's answer with a path as its Location (werkzeug builds an absolute URL
    from Host); None for every other request."""
    error = request.routing_exception
    if not isinstance(error, RequestRedirect):
        return None
    parts = urllib.parse.urlsplit(error.new_url)
    target = "/" + parts.path.lstrip("/") + (f"?{parts.query}" if parts.query else "")  # never //host/...
    return redirect(target, code=error.code)


__all__ = ["HostCheck", "PublicHosts", "host_problem", "relative_redirects"]
