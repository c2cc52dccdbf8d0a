"""The navigation policy (policy.py): what each pattern means, what the defaults refuse, how a URL
that tries to look like another is read, the reasons a model gets, and the bookkeeping that turns
what the browser blocked into notes."""

from __future__ import annotations

import re

import pytest

from tabmcp.config import Settings
from tabmcp.policy import (
    MAX_NOTES,
    NavigationPolicy,
    PolicyError,
    PolicyWatch,
    Verdict,
    parse_pattern,
    parse_url,
)

DEFAULT = NavigationPolicy()


def allowed(policy: NavigationPolicy, url: str) -> bool:
    return policy.check(url).allowed


# ----------------------------------------------------------------- what a pattern matches


@pytest.mark.parametrize(
    ("pattern", "matching", "not_matching"),
    [
        # an origin, with no path or just "/": every path of it, and only it
        (
            "https://example.com",
            ["https://example.com/", "https://example.com/a/b?c=d", "https://EXAMPLE.com/x#frag"],
            ["http://example.com/", "https://www.example.com/", "https://example.com.evil.test/"],
        ),
        ("https://example.com/", ["https://example.com/deep/page"], ["https://example.org/"]),
        # * is http and https, never another scheme
        ("*://example.com/*", ["http://example.com/", "https://example.com/x"], ["chrome://example.com/"]),
        # *. : the domain and every subdomain, never a look-alike
        (
            "*://*.example.com/*",
            ["https://example.com/", "https://a.b.example.com/", "https://example.com./x"],
            ["https://badexample.com/", "https://example.com.evil.test/", "https://example.co/"],
        ),
        ("*://*/*", ["http://anything.test/", "https://[::1]:8443/x", "https://127.0.0.1/"], ["file:///etc/passwd"]),
        # no port: any port; a port: that one (the default one written or not)
        ("http://127.0.0.1", ["http://127.0.0.1/", "http://127.0.0.1:8080/x"], ["https://127.0.0.1/"]),
        ("http://127.0.0.1:8080", ["http://127.0.0.1:8080/a"], ["http://127.0.0.1/", "http://127.0.0.1:8081/"]),
        (
            "https://example.com:443",
            ["https://example.com/", "https://example.com:443/x"],
            ["https://example.com:8443/"],
        ),
        ("*://example.com:443/*", ["https://example.com/", "http://example.com:443/"], ["http://example.com/"]),
        ("http://localhost:*/*", ["http://localhost/", "http://localhost:3000/"], ["http://localhost.evil/"]),
        # paths: * is any characters, the query included; the rest is literal and case-sensitive
        (
            "https://mail.example.com/inbox/*",
            ["https://mail.example.com/inbox/", "https://mail.example.com/inbox/1?x=y"],
            ["https://mail.example.com/Inbox/", "https://mail.example.com/inbox", "https://mail.example.com/sent/"],
        ),
        (
            "https://x.test/search?q=*",
            ["https://x.test/search?q=cats"],
            ["https://x.test/search", "https://x.test/searchXq=1"],
        ),
        ("https://x.test/a.b", ["https://x.test/a.b"], ["https://x.test/aXb", "https://x.test/a.b/c"]),
        ("*://*/*.exe", ["https://dl.test/setup.exe"], ["https://dl.test/setup.exe.html"]),
        # browser pages, files, extension pages, source views
        ("chrome://settings", ["chrome://settings", "chrome://settings/privacy"], ["chrome://version/"]),
        ("chrome://*/*", ["chrome://version/", "chrome://settings/"], ["chrome-untrusted://x/", "https://x/"]),
        ("file:///etc/passwd", ["file:///etc/passwd", "file://localhost/etc/passwd"], ["file:///etc/passwd2"]),
        ("file:///tmp/*", ["file:///tmp/a/b.html"], ["file:///etc/passwd"]),
        ("chrome-extension://abc/*", ["chrome-extension://abc/options.html"], ["chrome-extension://abd/x"]),
        ("view-source:https://x.test", ["view-source:https://x.test/a"], ["https://x.test/a"]),
        # hosts as the browser writes them
        ("https://bücher.example", ["https://xn--bcher-kva.example/"], []),
        ("http://[::1]", ["http://[0:0::1]:9/"], ["http://[::2]/"]),
    ],
)
def test_a_pattern_matches_what_its_syntax_says(pattern: str, matching: list[str], not_matching: list[str]) -> None:
    compiled = parse_pattern(pattern)
    for url in matching:
        parsed = parse_url(url)
        assert parsed is not None and compiled.matches(parsed), f"{pattern} should match {url}"
    for url in not_matching:
        parsed = parse_url(url)
        assert parsed is None or not compiled.matches(parsed), f"{pattern} should not match {url}"


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        ("", "empty"),
        ("example.com", "write https://example.com"),
        ("*.example.com/*", "*://*.example.com/*"),
        ("ftp://example.com", "scheme must be one of"),
        ("javascript://x", "scheme must be one of"),
        ("https://ex*ample.com", "goes alone (*) or first"),
        ("https://*example.com", "goes alone (*) or first"),
        ("https://", "no host"),
        ("file://host/x", "file patterns have no host"),
        ("https://example.com:99999", "port must be a number"),
        ("https://example.com:http", "port must be a number"),
        ("https://example.com/#top", "fragments"),
        ("https://user@example.com", "may not contain"),
        ("https://exa mple.com", "whitespace"),
        ("https://" + "a" * 600 + ".com", "longer than"),
        ("https://exa_mple!.com", "not a host name"),
        ("view-source:view-source:https://x", "once"),
    ],
)
def test_a_pattern_that_cannot_be_read_says_what_to_write(pattern: str, says: str) -> None:
    with pytest.raises(PolicyError, match=re.escape(says)):
        parse_pattern(pattern)


def test_every_bad_pattern_is_reported_at_once_named_by_its_setting() -> None:
    settings = Settings(allow_urls=["https://ok.test", "nope"], block_urls=["ftp://x", "*://*.fine.test/*"])
    with pytest.raises(PolicyError) as info:
        NavigationPolicy.from_settings(settings)
    message = str(info.value)
    assert "TABMCP_ALLOW_URLS: 'nope' has no scheme" in message
    assert "TABMCP_BLOCK_URLS: 'ftp://x'" in message
    assert "ok.test" not in message and "fine.test" not in message


def test_the_regexes_are_anchored_and_written_in_the_syntax_the_browser_reads() -> None:
    """What the extension gets: RE2 and JavaScript read the same regex (no lookarounds, no named
    groups, no escapes beyond punctuation), anchored at both ends, with the reasons for the model."""
    policy = NavigationPolicy.from_patterns(
        allow=["*://*.example.com/*", "chrome://settings/*"], block=["https://bank.example:8443/login*"]
    )
    wire = policy.wire()
    rules = wire["block"] + wire["allow"]
    for rule in rules:
        assert rule["regex"].startswith("^") and rule["regex"].endswith("$")
        assert not re.search(r"\(\?[=!<P]|\\[dDwWsSbB]", rule["regex"]), rule["regex"]
    assert [r["web"] for r in wire["allow"]] == [True, False]  # only web rules become browser rules
    assert "block_urls: https://bank.example:8443/login*" in wire["block"][0]["reason"]
    assert "TABMCP_BLOCK_URLS" in wire["block"][0]["reason"]
    assert "allow_urls: *://*.example.com/*, chrome://settings/*" in wire["allowReason"]
    assert NavigationPolicy().wire() == {"block": [], "allow": [], "allowReason": ""}


# ----------------------------------------------------------------- the rules


def test_by_default_the_web_is_open_and_browser_pages_files_and_extensions_are_not() -> None:
    for url in ("https://example.com/", "http://127.0.0.1:8800/x", "HTTPS://EXAMPLE.COM/", " https://x.test/ "):
        assert DEFAULT.check(url) == Verdict(True)
    assert DEFAULT.check("about:blank").allowed and DEFAULT.check("about:blank#x").allowed
    for url, what, example in [
        ("chrome://settings", "a browser page", "chrome://settings/*"),
        ("chrome-untrusted://print/", "a browser page", "chrome-untrusted://print/*"),
        ("devtools://devtools/bundled/inspector.html", "a browser page", "devtools://devtools/*"),
        ("file:///etc/passwd", "a local file", "file:///etc/passwd"),
        ("chrome-extension://abcdefgh/options.html", "an extension's page", "chrome-extension://abcdefgh/*"),
        ("view-source:https://example.com/", "a page's source view", "view-source:https://example.com/"),
    ]:
        verdict = DEFAULT.check(url)
        assert not verdict.allowed and verdict.code == "INVALID_URL", url
        assert what in verdict.reason and f"such as {example} to TABMCP_ALLOW_URLS" in verdict.reason, verdict


@pytest.mark.parametrize(
    "url", ["data:text/html,<b>x</b>", "javascript:alert(1)", "JavaScript:alert(1)", "blob:https://x.test/uuid"]
)
def test_data_javascript_and_blob_urls_are_never_a_page_even_when_allowed(url: str) -> None:
    everything = NavigationPolicy.from_patterns(allow=["*://*/*", "chrome://*/*", "file:///*"])
    for policy in (DEFAULT, everything):
        verdict = policy.check(url)
        assert not verdict.allowed and "open an http:// or https:// URL instead" in verdict.reason


@pytest.mark.parametrize("url", ["notaurl", "example.com", "localhost:8080", "ftp://x", "http://", "https://", ""])
def test_what_is_not_a_web_url_is_refused_with_the_usual_advice(url: str) -> None:
    verdict = DEFAULT.check(url)
    assert verdict == Verdict(
        False,
        f"Cannot open {url!r}: give a full http:// or https:// URL (for example https://example.com/).",
        "INVALID_URL",
    )


def test_about_pages_other_than_blank_are_refused() -> None:
    verdict = DEFAULT.check("about:settings")
    assert not verdict.allowed and "about:blank only" in verdict.reason


def test_a_block_pattern_refuses_and_tells_the_model_what_to_do() -> None:
    policy = NavigationPolicy.from_patterns(block=["*://*.bank.example/*"])
    verdict = policy.check("https://www.bank.example/login")
    assert verdict == Verdict(
        False,
        "https://www.bank.example/login is blocked by tabmcp's navigation policy (block_urls: *://*.bank.example/*); "
        "ask the user to change TABMCP_BLOCK_URLS if this site is needed.",
        "NAVIGATION_BLOCKED",
    )
    assert policy.check("https://bank.example.org/").allowed
    assert policy.check("chrome://settings").code == "INVALID_URL"  # still needs its opt-in


def test_an_allow_list_admits_only_what_it_names_and_a_block_pattern_still_wins() -> None:
    policy = NavigationPolicy.from_patterns(
        allow=["https://*.example.com", "http://127.0.0.1:8000"], block=["https://admin.example.com"]
    )
    assert allowed(policy, "https://www.example.com/a") and allowed(policy, "http://127.0.0.1:8000/")
    assert not allowed(policy, "http://127.0.0.1:8001/") and not allowed(policy, "http://www.example.com/")
    verdict = policy.check("https://other.test/")
    assert verdict.code == "NAVIGATION_BLOCKED"
    assert "allow_urls: https://*.example.com, http://127.0.0.1:8000" in verdict.reason
    assert "add it to TABMCP_ALLOW_URLS" in verdict.reason
    assert policy.check("https://admin.example.com/x").reason.startswith(
        "https://admin.example.com/x is blocked by tabmcp's navigation policy (block_urls: https://admin.example.com)"
    )
    assert allowed(policy, "about:blank")


def test_an_allow_list_of_many_patterns_names_the_first_few() -> None:
    policy = NavigationPolicy.from_patterns(allow=[f"https://site{i}.test" for i in range(8)])
    assert "site4.test, … (8 in all)" in policy.check("https://elsewhere.test/").reason


def test_browser_pages_and_files_are_opted_in_one_pattern_at_a_time() -> None:
    policy = NavigationPolicy.from_patterns(allow=["*://*/*", "chrome://settings/*", "file:///etc/passwd"])
    assert allowed(policy, "chrome://settings") and allowed(policy, "chrome://settings/privacy")
    assert allowed(policy, "file:///etc/passwd") and allowed(policy, "https://anything.test/")
    assert not allowed(policy, "chrome://version") and not allowed(policy, "file:///etc/shadow")
    assert not allowed(policy, "chrome-extension://abc/page.html")  # *://*/* opts nothing in


def test_a_source_view_needs_its_own_opt_in_and_an_allowed_page() -> None:
    policy = NavigationPolicy.from_patterns(allow=["view-source:*://*/*", "*://*/*"], block=["https://bank.example"])
    assert allowed(policy, "view-source:https://news.test/")
    only_sources = NavigationPolicy.from_patterns(allow=["view-source:*://*/*"])  # an allow list: no page is in it
    assert only_sources.check("view-source:https://news.test/").code == "NAVIGATION_BLOCKED"
    verdict = policy.check("view-source:https://bank.example/")
    assert not verdict.allowed and "block_urls: https://bank.example" in verdict.reason


# ----------------------------------------------------------------- URLs that try to look like others


@pytest.mark.parametrize(
    "url",
    [
        "https://bank.example/",
        "HTTPS://BANK.EXAMPLE/",
        "https://bank.example./x",  # a trailing dot
        "https://user:pw@bank.example/",  # user info
        "https://good.test@bank.example/",  # the host is what follows the last @
        "https://bank.example\\@good.test/",  # a backslash is a slash: the host is bank.example
        "https://%62ank.example/",  # percent-encoded host
        "https://ba\tnk.exa\nmple/",  # tabs and newlines are dropped
        "  https://bank.example/  ",
        "https://bank.example:443/",
    ],
)
def test_a_blocked_host_is_recognised_however_the_url_is_written(url: str) -> None:
    policy = NavigationPolicy.from_patterns(block=["https://bank.example"])
    assert policy.check(url).code == "NAVIGATION_BLOCKED", url


@pytest.mark.parametrize(
    "url",
    [
        "http://2130706433:9/",
        "http://0x7f.1:9/",
        "http://0177.0.0.1:9/",
        "http://127.1:9/",
        "http://[::ffff:7f00:1]:9/",
    ],
)
def test_ip_addresses_are_read_as_the_browser_reads_them(url: str) -> None:
    policy = NavigationPolicy.from_patterns(block=["http://127.0.0.1:9"])
    expected = "NAVIGATION_BLOCKED" if "::ffff" not in url else ""  # an IPv6 address is another host
    assert policy.check(url).code == expected, url


def test_dot_segments_are_resolved_before_the_path_is_matched() -> None:
    policy = NavigationPolicy.from_patterns(block=["https://site.test/admin/*"])
    for url in (
        "https://site.test/public/../admin/x",
        "https://site.test/./admin/x",
        "https://site.test/%2e%2e/admin/",
    ):
        assert not allowed(policy, url), url
    assert allowed(policy, "https://site.test/public/admin/x")


def test_invalid_hosts_are_not_urls() -> None:
    for url in ("http://1.2.3.4.5/", "http://256.0.0.1/", "http://ex ample.com/", "http://[::g]/", "http://a:b:c/"):
        assert parse_url(url) is None, url


def test_the_canonical_form_is_what_the_browser_sends() -> None:
    parsed = parse_url("HTTP://User@Example.COM:80/a b/./c?q=a b#frag")
    assert parsed is not None and parsed.canonical == "http://example.com/a%20b/c?q=a%20b"
    assert parse_url("chrome://settings").canonical == "chrome://settings/"  # type: ignore[union-attr]
    assert parse_url("file://localhost/etc/passwd").canonical == "file:///etc/passwd"  # type: ignore[union-attr]


def test_long_urls_are_shortened_in_reasons() -> None:
    policy = NavigationPolicy.from_patterns(block=["https://x.test"])
    reason = policy.check("https://x.test/" + "a" * 5000).reason
    assert len(reason) < 600 and "…" in reason


# ----------------------------------------------------------------- notes for the model


def watch(**patterns: list[str]) -> PolicyWatch:
    return PolicyWatch(NavigationPolicy.from_patterns(**patterns))


REASON = "blocked by tabmcp's navigation policy (block_urls: https://b.test); ask the user…"


def test_a_blocked_navigation_of_the_models_tab_is_noted_once() -> None:
    w = watch(block=["https://b.test"])
    w.blocked(1, "https://b.test/x", REASON, concerns_model=True)
    w.blocked(2, "https://b.test/y", REASON, concerns_model=False)  # the user's own tab: not the model's news
    w.blocked(3, "https://b.test/z", REASON, concerns_model=True, popup_of=1)
    notes = w.take()
    assert notes == [
        f"tab 1: the page tried to go to https://b.test/x; the browser did not load it: it is {REASON}",
        f"tab 3 (a popup tab 1's page opened): the page tried to go to https://b.test/z; "
        f"the browser did not load it: it is {REASON}",
    ]
    assert w.take() == []


def test_a_block_a_tool_reported_is_not_noted_again_whichever_comes_first() -> None:
    w = watch(block=["https://b.test"])
    w.blocked(1, "https://b.test/x", REASON, concerns_model=True)
    w.reported(1)  # the event came first: the tool's report takes its note away
    assert w.take() == []
    w.reported(1)  # the tool came first: the event that follows adds nothing
    w.blocked(1, "https://b.test/x", REASON, concerns_model=True)
    assert w.take() == []
    w.blocked(1, "https://b.test/again", REASON, concerns_model=True)  # the next one is news again
    assert len(w.take()) == 1


def test_notes_are_bounded() -> None:
    w = watch(block=["https://b.test"])
    for i in range(MAX_NOTES + 5):
        w.blocked(1, f"https://b.test/{i}", REASON, concerns_model=True)
    notes = w.take()
    assert len(notes) == MAX_NOTES and notes[-1].startswith(
        f"tab 1: the page tried to go to https://b.test/{MAX_NOTES + 4}"
    )


def test_a_refused_page_the_browser_did_not_block_is_stopped_once() -> None:
    w = watch(block=["https://b.test"])
    assert w.should_stop(1, "https://a.test/", "complete") is None
    assert w.should_stop(1, "chrome://version/", "loading") is None  # not before it has loaded
    verdict = w.should_stop(1, "chrome://version/", "complete")
    assert verdict is not None and verdict.code == "INVALID_URL"
    assert w.claim_stop(1, "chrome://version/", verdict, by_tool=False)
    assert w.should_stop(1, "chrome://version/", "complete") is None  # a title update: already on its way
    assert not w.claim_stop(1, "chrome://version/", verdict, by_tool=False)
    [note] = w.take()
    assert note.startswith("tab 1 was sent to about:blank: chrome://version/ is a browser page")
    # it moved on, then came back: stopped again
    assert w.should_stop(1, "about:blank", "complete") is None
    assert w.should_stop(1, "chrome://version/", "complete") is not None


def test_the_browsers_own_block_page_is_not_stopped() -> None:
    w = watch(block=["https://b.test"])
    w.blocked(1, "https://b.test/x", REASON, concerns_model=True)
    assert w.should_stop(1, "https://b.test/x", "complete") is None  # Chrome's "blocked" page
    assert w.should_stop(1, "https://b.test/other", "complete") is not None  # served without asking the network


def test_a_tools_own_stop_takes_over_the_runtimes_note() -> None:
    w = watch(block=["https://b.test"])
    verdict = w.policy.check("https://b.test/x")
    assert w.claim_stop(1, "https://b.test/x", verdict, by_tool=False)
    assert not w.claim_stop(1, "https://b.test/x", verdict, by_tool=True)  # already on its way to about:blank
    assert w.take() == []  # and the tool's result says why


def test_a_stop_the_runtime_made_during_a_tools_navigation_is_the_tools_to_report() -> None:
    w = watch(block=["https://b.test"])
    verdict = w.policy.check("https://b.test/x")
    began = w.mark()
    assert w.claim_stop(2, "https://b.test/y", verdict, by_tool=False)  # another tab's: stays a note
    assert w.take_stop(1, began) is None
    assert w.claim_stop(1, "https://b.test/x", verdict, by_tool=False)  # the load event came first
    assert w.take_stop(1, began) == verdict.reason
    assert w.take_stop(1, began) is None  # reported once
    [note] = w.take()
    assert note.startswith("tab 2 was sent to about:blank")


def test_a_stop_from_before_a_tools_call_stays_a_note() -> None:
    """The page sent itself to a refused page and was sent away with no tool call under way; the
    next navigation the model makes is not failed for it, its result carries the note."""
    w = watch(block=["https://b.test"])
    verdict = w.policy.check("https://b.test/x")
    assert w.claim_stop(1, "https://b.test/x", verdict, by_tool=False)
    began = w.mark()
    assert w.take_stop(1, began) is None
    [note] = w.take()
    assert note.startswith("tab 1 was sent to about:blank")


def test_a_closed_tab_leaves_nothing_behind() -> None:
    w = watch(block=["https://b.test"])
    w.blocked(1, "https://b.test/x", REASON, concerns_model=True)
    w.reported(2)
    w.forget(1)
    w.forget(2)
    assert w.take() == []
    w.blocked(2, "https://b.test/x", REASON, concerns_model=True)
    assert len(w.take()) == 1


def test_tabmcp_serve_refuses_to_start_with_a_pattern_it_cannot_enforce(capsys: pytest.CaptureFixture[str]) -> None:
    from tabmcp.cli import main

    assert main(["serve", "--block-url", "https://ok.test", "--block-url", "bank.example"]) == 2
    err = capsys.readouterr().err
    assert "TABMCP_BLOCK_URLS: 'bank.example' has no scheme: write https://bank.example" in err
