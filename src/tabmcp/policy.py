"""The navigation policy: which URLs a tab may load while tabmcp drives the browser.

Pure: patterns in, verdicts out. The server checks a URL with ``NavigationPolicy.check`` before it
asks the browser to load it (``open_tab``, ``navigate``, page-tool plans) and after the browser
reports where a tab went; the extension enforces the same rules for everything the page does by
itself (links, forms, scripts, redirects, popups) with declarativeNetRequest. Both sides match
with the regular expressions made here (``wire``), so they cannot disagree about what a pattern
means. docs/security.md, "Navigation policy", is the user's documentation.

Pattern syntax (Chrome match-pattern style, strict):

    [view-source:]SCHEME://HOST[:PORT][PATH]

- SCHEME: ``*`` (http and https), ``http``, ``https``, ``file``, ``chrome``, ``chrome-untrusted``,
  ``devtools``, ``chrome-extension``.
- HOST: ``*`` (any host), ``*.example.com`` (example.com and every subdomain), or one host
  (``example.com``, ``127.0.0.1``, ``[::1]``). A ``*`` anywhere else is an error. ``file`` has no
  host (``file:///home/me/*``).
- PORT: a number, or ``*``; no port means any port.
- PATH: starts with ``/``; ``*`` matches any characters (``/`` and the query included); every
  other character matches itself, case-sensitively. The path is matched against the URL's path
  and query (never the fragment). No path, or just ``/``, means the origin's every path:
  ``https://example.com`` is ``https://example.com/*``.

Rules: a URL matching a block pattern is refused; when allow patterns are set, a URL must match
one; browser pages (``chrome:``, ``chrome-untrusted:``, ``devtools:``, other ``about:`` pages),
local files (``file:``), extension pages and ``view-source:`` are refused unless an allow pattern
names them (``*`` never stands for those schemes); ``about:blank`` is always allowed; ``data:``,
``javascript:`` and ``blob:`` are never loaded as a page.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote

if TYPE_CHECKING:
    from tabmcp.config import Settings

WEB_SCHEMES = ("http", "https")
# Pages that can read the user's machine or browser: refused unless an allow pattern names them.
OPT_IN_SCHEMES = ("file", "chrome", "chrome-untrusted", "devtools", "chrome-extension")
PATTERN_SCHEMES = ("*", *WEB_SCHEMES, *OPT_IN_SCHEMES)
NEVER_SCHEMES = ("data", "javascript", "blob", "filesystem")
DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_PATTERN_CHARS = 500  # declarativeNetRequest compiles each to a regex of at most 2 KB
SHOWN_URL_CHARS = 200
SHOWN_ALLOW_PATTERNS = 5
BLOCK_SETTING = "TABMCP_BLOCK_URLS"
ALLOW_SETTING = "TABMCP_ALLOW_URLS"

Code = Literal["", "NAVIGATION_BLOCKED", "INVALID_URL"]
Kind = Literal["web", "opt-in", "blank", "browser", "never", "unsupported"]


class PolicyError(ValueError):
    """A pattern that cannot be used; the message names the setting and what to write instead."""


@dataclass(frozen=True)
class Verdict:
    """Whether a URL may load. ``reason`` tells the model what happened and what to do; ``code`` is
    ``NAVIGATION_BLOCKED`` for a block/allow-list refusal, ``INVALID_URL`` for a URL tabmcp does not
    open at all (not a web page, or a browser page nobody opted in to)."""

    allowed: bool
    reason: str = ""
    code: Code = ""


ALLOWED = Verdict(True)


# ----------------------------------------------------------------- URLs as the browser writes them


@dataclass(frozen=True)
class ParsedUrl:
    """A URL reduced to what patterns match: ``canonical`` is scheme, host, port (when not the
    default), path and query, written as the browser does (lowercase host, dot segments resolved,
    unsafe characters percent-encoded, no user info, no fragment)."""

    kind: Kind
    scheme: str
    canonical: str
    host: str = ""
    inner: ParsedUrl | None = None  # the page a view-source: URL shows


_C0_AND_SPACE = "".join(map(chr, range(0x21)))
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.\-]*):(.*)", re.DOTALL)
_AUTHORITY = re.compile(r"([^/?#]*)([^?#]*)(?:\?([^#]*))?")
_HOST_CHARS = re.compile(r"[a-z0-9\-_.]+")
# WHATWG percent-encode sets: what a browser escapes in a path / a query before sending it
_PATH_ESCAPED = frozenset(' "<>`{}')
_QUERY_ESCAPED = frozenset(" \"<>'")


def parse_url(url: str) -> ParsedUrl | None:
    """The URL as the policy sees it, or None when it is not a URL at all."""
    text = url.strip(_C0_AND_SPACE)
    text = re.sub(r"[\t\n\r]", "", text)  # browsers drop these anywhere in a URL
    match = _SCHEME.fullmatch(text)
    if match is None:
        return None
    scheme, rest = match.group(1).lower(), match.group(2)
    if scheme == "about":
        name = re.split(r"[?#]", rest, maxsplit=1)[0]
        return ParsedUrl("blank" if name == "blank" else "browser", scheme, f"about:{name}")
    if scheme in NEVER_SCHEMES:
        return ParsedUrl("never", scheme, f"{scheme}:")
    if scheme == "view-source":
        inner = parse_url(rest)
        if inner is None or inner.kind not in ("web", "opt-in"):
            return None
        return ParsedUrl("opt-in", scheme, f"view-source:{inner.canonical}", inner.host, inner)
    if scheme not in WEB_SCHEMES + OPT_IN_SCHEMES:
        return ParsedUrl("unsupported", scheme, text)
    if scheme in WEB_SCHEMES or scheme == "file":
        rest = rest.replace("\\", "/")  # special schemes: a backslash is a slash
    if not rest.startswith("//"):
        return None
    authority, path, query = _AUTHORITY.match(rest[2:]).groups()  # type: ignore[union-attr]
    host_port = authority.rpartition("@")[2]
    split = _split_host_port(host_port)
    if split is None:
        return None
    raw_host, port_text = split
    host = canonical_host(raw_host)
    if host is None:
        return None
    if scheme == "file":
        if host not in ("", "localhost") or port_text:
            return None
        host = ""
    elif not host:
        return None
    port = ""
    if port_text:
        if not port_text.isdigit() or int(port_text) > 65535:
            return None
        if DEFAULT_PORTS.get(scheme) != int(port_text):
            port = f":{int(port_text)}"
    path = _remove_dot_segments(_escape_chars(path or "/", _PATH_ESCAPED))
    tail = "" if query is None else "?" + _escape_chars(query, _QUERY_ESCAPED)
    kind: Kind = "web" if scheme in WEB_SCHEMES else "opt-in"
    return ParsedUrl(kind, scheme, f"{scheme}://{host}{port}{path}{tail}", host)


def _split_host_port(host_port: str) -> tuple[str, str] | None:
    if host_port.startswith("["):
        end = host_port.find("]")
        if end < 0:
            return None
        host, after = host_port[: end + 1], host_port[end + 1 :]
        if after and not after.startswith(":"):
            return None
        return host, after[1:]
    host, colon, port = host_port.partition(":")
    if colon and ":" in port:
        return None
    return host, port


def canonical_host(raw: str) -> str | None:
    """A host as the browser writes it: percent-decoded, lowercase, punycode, IP addresses in their
    usual form (``0x7f.1`` is ``127.0.0.1``). None for a host no browser would accept."""
    if raw.startswith("[") and raw.endswith("]"):
        try:
            return f"[{ipaddress.IPv6Address(raw[1:-1]).compressed}]"
        except ValueError:
            return None
    host = unquote(raw).lower()
    if not host:
        return ""
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    if not _HOST_CHARS.fullmatch(host):
        return None
    labels = host.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels = labels[:-1]
    if not re.fullmatch(r"[0-9]+|0x[0-9a-f]*", labels[-1]):
        return host  # a name
    return _ipv4(labels)


def _ipv4(labels: list[str]) -> str | None:
    """The WHATWG IPv4 parser (a host whose last label is a number is an address: decimal, octal or
    hex parts, fewer than four allowed), so ``2130706433`` and ``0x7f.1`` are ``127.0.0.1``."""
    if len(labels) > 4:
        return None
    numbers = []
    for label in labels:
        number = _ipv4_number(label)
        if number is None:
            return None
        numbers.append(number)
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        return None
    address = numbers[-1] + sum(n * 256 ** (3 - i) for i, n in enumerate(numbers[:-1]))
    return str(ipaddress.IPv4Address(address))


def _ipv4_number(label: str) -> int | None:
    try:
        if label[:2].lower() == "0x":
            return int(label[2:] or "0", 16)
        if len(label) > 1 and label.startswith("0"):
            return int(label[1:], 8)
        return int(label, 10)
    except ValueError:
        return None


def _escape_chars(text: str, escaped: frozenset[str]) -> str:
    out = []
    for ch in text:
        if ch in escaped or ord(ch) < 0x21 or ord(ch) > 0x7E:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """``/a/./b/../c`` is ``/a/c``, as the browser resolves it before the request (``%2e`` too)."""
    segments = path.split("/")[1:]
    out: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        dots = segment.lower().replace("%2e", ".")
        if dots == "..":
            if out:
                out.pop()
            if last:
                out.append("")
        elif dots == ".":
            if last:
                out.append("")
        else:
            out.append(segment)
    return "/" + "/".join(out)


# ----------------------------------------------------------------- patterns

_USERINFO = "(?:[^/?#@]*@)?"
_ANY_HOST = r"(?:\[[0-9a-f:.]+\]|[^/?#:@\[\]]+)"
_REGEX_SPECIAL = frozenset("\\.^$|?*+()[]{}")


@dataclass(frozen=True)
class UrlPattern:
    """One pattern as written, and the regular expression it means: anchored, matched against a
    ``ParsedUrl.canonical``, written in the syntax Python, JavaScript and RE2 (declarativeNetRequest)
    read alike."""

    text: str
    schemes: tuple[str, ...]
    regex: str
    view_source: bool = False
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.regex))

    @property
    def web(self) -> bool:
        """Whether the pattern can match an http(s) page: only those become browser rules."""
        return not self.view_source and any(s in WEB_SCHEMES for s in self.schemes)

    def matches(self, url: ParsedUrl) -> bool:
        return self.compiled.match(url.canonical) is not None


def parse_pattern(text: str) -> UrlPattern:
    """One pattern (module docstring), or PolicyError saying what is wrong and what to write."""
    raw = text.strip()
    if not raw:
        raise PolicyError("an empty pattern")
    if len(raw) > MAX_PATTERN_CHARS:
        raise PolicyError(f"{raw[:60]!r}… is longer than {MAX_PATTERN_CHARS} characters")
    if any(ch.isspace() or ord(ch) < 0x20 for ch in raw):
        raise PolicyError(f"{raw!r} contains whitespace")
    if raw.lower().startswith("view-source:"):
        inner = parse_pattern(raw[len("view-source:") :])
        if inner.view_source:
            raise PolicyError(f"{raw!r}: view-source: goes once")
        return UrlPattern(raw, inner.schemes, "^view-source:" + inner.regex[1:], view_source=True)
    scheme, sep, rest = raw.partition("://")
    if not sep:
        site = raw.split("/")[0].split(":")[0] or "example.com"
        raise PolicyError(
            f"{raw!r} has no scheme: write https://{site} (one origin, every path) or *://{site}/* (http and https)"
        )
    scheme = scheme.lower()
    if scheme not in PATTERN_SCHEMES:
        raise PolicyError(f"{raw!r}: the scheme must be one of {', '.join(PATTERN_SCHEMES)} (* is http and https)")
    schemes = WEB_SCHEMES if scheme == "*" else (scheme,)
    slash = rest.find("/")
    authority, path = (rest, "") if slash < 0 else (rest[:slash], rest[slash:])
    if any(ch in authority for ch in "?#@\\"):
        raise PolicyError(f"{raw!r}: the host part may not contain ?, #, @ or \\")
    if "#" in path:
        raise PolicyError(f"{raw!r}: fragments (#…) are never matched; leave them out")
    split = _split_host_port(authority)
    if split is None:
        raise PolicyError(f"{raw!r}: cannot read the host and port")
    host, port = split
    host_regex = _host_regex(raw, scheme, host)
    port_number = _port(raw, scheme, port)
    if path in ("", "/"):
        path = "/*"  # an origin: all of it (a block list that blocked only a site's home page would be a trap)
    path_regex = "".join(".*" if ch == "*" else _regex_escape(ch) for ch in _escape_path_pattern(path))
    if scheme == "file":
        return UrlPattern(raw, schemes, f"^file://{path_regex}$")
    userinfo = _USERINFO if scheme in ("*", *WEB_SCHEMES) else ""
    if port_number is None:
        scheme_regex = "https?" if scheme == "*" else _regex_escape(scheme)
        head = f"{scheme_regex}://{userinfo}{host_regex}(?::[0-9]+)?"
    else:  # the default port is not written in a URL: it depends on the scheme
        heads = [
            f"{_regex_escape(s)}://{userinfo}{host_regex}"
            + ("" if DEFAULT_PORTS.get(s) == port_number else f":{port_number}")
            for s in schemes
        ]
        head = heads[0] if len(heads) == 1 else "(?:" + "|".join(heads) + ")"
    return UrlPattern(raw, schemes, f"^{head}{path_regex}$")


def _host_regex(raw: str, scheme: str, host: str) -> str:
    if scheme == "file":
        if host:
            raise PolicyError(f"{raw!r}: file patterns have no host: write file:///path/*")
        return ""
    if not host:
        raise PolicyError(f"{raw!r} has no host: write * for any host, or *.example.com")
    if host == "*":
        return _ANY_HOST
    subdomains = host.startswith("*.")
    name = host[2:] if subdomains else host
    if "*" in name:
        raise PolicyError(f"{raw!r}: a * in the host goes alone (*) or first (*.example.com)")
    canonical = canonical_host(name)
    if not canonical:
        raise PolicyError(f"{raw!r}: {name!r} is not a host name")
    literal = "".join(_regex_escape(ch) for ch in canonical)
    trailing_dot = "" if canonical.startswith("[") else r"\.?"  # example.com. is example.com
    if subdomains:
        return rf"(?:[^/?#:@\[\]]+\.)?{literal}{trailing_dot}"
    return literal + trailing_dot


def _port(raw: str, scheme: str, port: str) -> int | None:
    if port in ("", "*"):
        return None
    if scheme == "file":
        raise PolicyError(f"{raw!r}: file patterns have no port")
    if not port.isdigit() or not 0 < int(port) <= 65535:
        raise PolicyError(f"{raw!r}: the port must be a number from 1 to 65535, or *")
    return int(port)


def _escape_path_pattern(path: str) -> str:
    if not path.startswith("/"):
        raise PolicyError(f"the path {path!r} must start with /")
    before, question, query = path.partition("?")
    escaped = _escape_chars(before, _PATH_ESCAPED)
    return escaped + (question + _escape_chars(query, _QUERY_ESCAPED) if question else "")


def _regex_escape(ch: str) -> str:
    return "\\" + ch if ch in _REGEX_SPECIAL else ch


def parse_patterns(settings: Mapping[str, Iterable[str]]) -> dict[str, tuple[UrlPattern, ...]]:
    """The patterns of each setting (keyed by its environment variable). Every invalid pattern is
    reported at once, named by its setting, so a user fixes them in one go."""
    errors: list[str] = []
    parsed: dict[str, tuple[UrlPattern, ...]] = {}
    for setting, texts in settings.items():
        kept = []
        for text in texts:
            try:
                kept.append(parse_pattern(text))
            except PolicyError as exc:
                errors.append(f"{setting}: {exc}")
        parsed[setting] = tuple(kept)
    if errors:
        raise PolicyError("invalid URL pattern" + ("s" if len(errors) > 1 else "") + ": " + "; ".join(errors))
    return parsed


def first_match(patterns: Iterable[UrlPattern], url: str) -> UrlPattern | None:
    """The first pattern that matches ``url`` as the browser writes it (None for what is not a URL)."""
    parsed = parse_url(url)
    if parsed is None:
        return None
    return next((p for p in patterns if p.matches(parsed)), None)


# ----------------------------------------------------------------- the policy


def _shown(url: str) -> str:
    url = url.strip()
    return url if len(url) <= SHOWN_URL_CHARS else url[:SHOWN_URL_CHARS] + "…"


def _not_openable(url: str) -> Verdict:
    return Verdict(
        False,
        f"Cannot open {_shown(url)!r}: give a full http:// or https:// URL (for example https://example.com/).",
        "INVALID_URL",
    )


@dataclass(frozen=True)
class NavigationPolicy:
    """``allow``/``block`` patterns (the settings ``allow_urls``/``block_urls``). The default, with
    neither, allows every web page and refuses what needs an opt-in."""

    allow: tuple[UrlPattern, ...] = ()
    block: tuple[UrlPattern, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> NavigationPolicy:
        """Parsed once per set of patterns: the CLI, the server and every workspace's runtime ask."""
        return _policy_for(tuple(settings.allow_urls), tuple(settings.block_urls))

    @classmethod
    def from_patterns(cls, allow: Iterable[str] = (), block: Iterable[str] = ()) -> NavigationPolicy:
        """Every invalid pattern is reported at once, named by its setting, so a user fixes them in one go."""
        parsed = parse_patterns({ALLOW_SETTING: allow, BLOCK_SETTING: block})
        return cls(allow=parsed[ALLOW_SETTING], block=parsed[BLOCK_SETTING])

    # ------------------------------------------------------------- verdicts

    def block_reason(self, pattern: UrlPattern) -> str:
        return (
            f"blocked by tabmcp's navigation policy (block_urls: {pattern.text}); "
            f"ask the user to change {BLOCK_SETTING} if this site is needed"
        )

    def allow_reason(self) -> str:
        shown = ", ".join(p.text for p in self.allow[:SHOWN_ALLOW_PATTERNS])
        if len(self.allow) > SHOWN_ALLOW_PATTERNS:
            shown += f", … ({len(self.allow)} in all)"
        return (
            f"not allowed by tabmcp's navigation policy (allow_urls: {shown}); "
            f"ask the user to add it to {ALLOW_SETTING} if this site is needed"
        )

    def check(self, url: str) -> Verdict:
        parsed = parse_url(url)
        if parsed is None or parsed.kind == "unsupported":
            return _not_openable(url)
        if parsed.kind == "blank":
            return ALLOWED
        if parsed.kind == "never":
            return Verdict(
                False,
                f"tabmcp does not load {parsed.scheme}: URLs as a page ({_shown(url)[:60]}); "
                "open an http:// or https:// URL instead.",
                "INVALID_URL",
            )
        if parsed.kind == "browser":
            return Verdict(
                False,
                f"{_shown(url)} is a browser page; tabmcp opens http:// and https:// URLs and about:blank only.",
                "INVALID_URL",
            )
        blocked = next((p for p in self.block if p.matches(parsed)), None)
        if blocked is not None:
            return Verdict(False, f"{_shown(url)} is {self.block_reason(blocked)}.", "NAVIGATION_BLOCKED")
        if parsed.inner is not None:  # view-source: shows the page itself, which must be allowed too
            inner = self.check(parsed.canonical[len("view-source:") :])
            if not inner.allowed:
                return Verdict(False, f"{_shown(url)} shows another page: {inner.reason}", inner.code)
        allowed = any(p.matches(parsed) for p in self.allow)
        if parsed.kind == "opt-in" and not allowed:
            return self._needs_opt_in(url, parsed)
        if self.allow and not allowed:
            return Verdict(False, f"{_shown(url)} is {self.allow_reason()}.", "NAVIGATION_BLOCKED")
        return ALLOWED

    def _needs_opt_in(self, url: str, parsed: ParsedUrl) -> Verdict:
        what, example = {
            "file": ("a local file", parsed.canonical),
            "chrome-extension": ("an extension's page", f"chrome-extension://{parsed.host}/*"),
            "view-source": ("a page's source view", f"view-source:{parsed.canonical[12:]}"),
        }.get(parsed.scheme, ("a browser page", f"{parsed.scheme}://{parsed.host}/*"))
        return Verdict(
            False,
            f"{_shown(url)} is {what}, which tabmcp opens only when {ALLOW_SETTING} names it: open an http:// or "
            f"https:// URL instead, or ask the user to add a pattern such as {example} to {ALLOW_SETTING} "
            "if it is needed.",
            "INVALID_URL",
        )

    # ------------------------------------------------------------- for the extension

    def wire(self) -> dict[str, Any]:
        """The rules as the extension gets them with ``connect`` (protocol.py ``PolicyRules``)."""
        return {
            "block": [
                {"pattern": p.text, "regex": p.regex, "web": p.web, "reason": self.block_reason(p)} for p in self.block
            ],
            "allow": [{"pattern": p.text, "regex": p.regex, "web": p.web} for p in self.allow],
            "allowReason": self.allow_reason() if self.allow else "",
        }


# ----------------------------------------------------------------- what the browser did under it

MAX_NOTES = 10


@dataclass(frozen=True)
class PolicyNote:
    tab_id: int
    kind: Literal["blocked", "stopped"]
    text: str
    reason: str = ""  # a stop's: why the page was refused
    seq: int = 0  # when it was noted, on the watch's own count


class PolicyWatch:
    """What the browser did under the policy, for one client's runtime: blocked navigations and tabs
    sent away from refused pages, turned into notes its next tool result carries. Pure bookkeeping;
    the runtime does the I/O.

    A navigation a tool caused is reported by that tool itself (``NAVIGATION_BLOCKED``); the browser's
    ``navigationBlocked`` event about it may arrive before or after the tool's answer, so a tool's
    report and an event cancel each other out, whichever comes first."""

    def __init__(self, policy: NavigationPolicy) -> None:
        self.policy = policy
        self._notes: list[PolicyNote] = []
        self._reported: set[int] = set()  # tabs whose next browser block a tool has already reported
        self._blocked: dict[int, str] = {}  # tab -> the URL the browser last refused in it
        self._stopped: dict[int, str] = {}  # tab -> the refused URL it is being sent away from
        self._seq = 0  # notes made so far: a tool's call marks where it began

    def blocked(self, tab_id: int, url: str, reason: str, *, concerns_model: bool, popup_of: int | None = None) -> None:
        """The browser refused a navigation of ``tab_id`` (its ``navigationBlocked`` event).
        ``concerns_model``: the tab is the model's focused tab, or (``popup_of``) a popup its page opened."""
        self._blocked[tab_id] = url
        if tab_id in self._reported:
            self._reported.discard(tab_id)
            return
        if concerns_model:
            where = f"tab {tab_id}" if popup_of is None else f"tab {tab_id} (a popup tab {popup_of}'s page opened)"
            text = f"{where}: the page tried to go to {_shown(url)}; the browser did not load it: it is {reason}"
            self._add(PolicyNote(tab_id, "blocked", text, seq=self._next_seq()))

    def reported(self, tab_id: int) -> None:
        """A tool's result says the browser blocked a navigation in ``tab_id``: no note for it."""
        for note in self._notes:
            if note.tab_id == tab_id and note.kind == "blocked":
                self._notes.remove(note)
                return
        self._reported.add(tab_id)

    def should_stop(self, tab_id: int, url: str, status: str) -> Verdict | None:
        """The refusal, when the model's tab finished loading a page the policy refuses and the browser
        did not block (a page its service worker or the back/forward cache served, a browser page
        the user opened in it): the tab must be sent away. None otherwise."""
        if status != "complete" or not url:
            return None
        for seen in (self._blocked, self._stopped):
            if seen.get(tab_id) not in (None, url):
                del seen[tab_id]  # the tab has moved on since
        if self._blocked.get(tab_id) == url or self._stopped.get(tab_id) == url:
            return None  # the browser's block page, or being sent away already
        verdict = self.policy.check(url)
        return None if verdict.allowed else verdict

    def claim_stop(self, tab_id: int, url: str, verdict: Verdict, *, by_tool: bool) -> bool:
        """Whether the caller should send the tab to about:blank (False: that is under way already).
        A stop the runtime makes leaves a note; a tool's own stop says why in its result instead, and
        takes over an earlier note about the same tab."""
        if by_tool:
            self._notes = [n for n in self._notes if not (n.tab_id == tab_id and n.kind == "stopped")]
        if self._stopped.get(tab_id) == url:
            return False
        self._stopped[tab_id] = url
        if not by_tool:
            text = f"tab {tab_id} was sent to about:blank: {verdict.reason}"
            self._add(PolicyNote(tab_id, "stopped", text, verdict.reason, seq=self._next_seq()))
        return True

    def mark(self) -> int:
        """Where the notes stand now: a tool's call takes it as it begins, for ``take_stop``."""
        return self._seq

    def take_stop(self, tab_id: int, since: int) -> str | None:
        """Why the runtime sent ``tab_id`` away while a tool was navigating it (a landing it saw
        first, after ``mark()`` gave ``since``), for that tool to report as its own failure; None when
        it did not. No note is left. A stop from before the call stays a note: the page the tab left
        then is not where this call took it."""
        for note in self._notes:
            if note.tab_id == tab_id and note.kind == "stopped" and note.seq > since:
                self._notes.remove(note)
                return note.reason
        return None

    def forget(self, tab_id: int) -> None:
        """The tab is gone (closed, or the browser link dropped)."""
        self._notes = [n for n in self._notes if n.tab_id != tab_id]
        for seen in (self._blocked, self._stopped):
            seen.pop(tab_id, None)
        self._reported.discard(tab_id)

    def take(self) -> list[str]:
        """The notes since the last call, oldest first; each is given once."""
        notes, self._notes = self._notes, []
        return [n.text for n in notes]

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _add(self, note: PolicyNote) -> None:
        self._notes = [*self._notes, note][-MAX_NOTES:]


@functools.cache
def _policy_for(allow: tuple[str, ...], block: tuple[str, ...]) -> NavigationPolicy:
    return NavigationPolicy.from_patterns(allow=allow, block=block)  # immutable: safe to share
