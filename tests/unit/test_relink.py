"""Which lost links are held for their browser's return, and which new link is that browser."""

from __future__ import annotations

from types import MappingProxyType

from tabmcp import state as s
from tabmcp.relink import HeldLink, Relinks

TAB = s.Tab(7, url="http://a.test/", status="complete")
FOCUSED = s.BrowserState(connected=True, tabs=MappingProxyType({7: TAB}), focused_tab_id=7)


def test_a_cut_off_is_held_and_the_same_browser_gets_its_focus_back() -> None:
    relinks = Relinks()
    assert relinks.linked("browser-1") is None  # the first link: nothing to restore
    assert relinks.lost(FOCUSED, relink=True)
    assert relinks.held == HeldLink("browser-1", 7)
    assert relinks.linked("browser-1") == HeldLink("browser-1", 7)
    assert relinks.held is None


def test_another_browser_gets_nothing_of_the_held_state() -> None:
    relinks = Relinks()
    relinks.linked("browser-1")
    assert relinks.lost(FOCUSED, relink=True)
    assert relinks.linked("browser-2") is None
    assert relinks.held is None  # dropped: a later return of browser-1 starts afresh
    assert relinks.instance == "browser-2"


def test_nothing_is_held_for_the_user_s_disconnect_an_unconnected_client_or_an_unknown_browser() -> None:
    relinks = Relinks()
    relinks.linked("browser-1")
    assert not relinks.lost(FOCUSED, relink=False)  # the user's Disconnect
    relinks.linked("browser-1")
    assert not relinks.lost(s.BrowserState(), relink=True)  # the model never connected
    relinks.linked("")
    assert not relinks.lost(FOCUSED, relink=True)  # no instance id: browsers cannot be told apart
    assert relinks.linked("") is None
