"""Regions and text searches in the page session over a FakeHost: which frames are asked, where a
frame's rows and matches go, what the root's frame answers, and the cap on matches."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.page_session_host import FakeHost
from tests.unit.test_page_session import CHILD_DOC, MAIN_DOC, framed_page

from tabmcp.drivers.base import DriverError
from tabmcp.drivers.session import PageSession


def asked(host: FakeHost, method: str) -> list[tuple[int, Any]]:
    return [(frame, arg) for _, frame, m, arg in host.calls if m == method]


async def test_a_region_asks_its_frame_only_unless_an_iframe_is_inside() -> None:
    host = FakeHost()
    tab = framed_page(host)
    session = PageSession(host)
    await session.snapshot(tab)  # frame 7 is f1 from now on
    whole = host.agent["snapshot"]

    def region(t: int, frame: int, arg: Any) -> Any:
        answer = whole(t, frame, arg)
        root = (arg.get("root") or {}).get("ref")
        if root == "e1" and frame == 0:
            return {**answer, "nodes": answer["nodes"][:1]}  # the button alone
        if root == "e2" and frame == 0:
            return {**answer, "nodes": answer["nodes"][1:2]}  # the iframe row
        return answer

    host.answer("snapshot", region)
    host.calls.clear()
    button = await session.snapshot(tab, "full", {"ref": "e1"})
    assert [n["ref"] for n in button["nodes"]] == ["e1"]
    assert asked(host, "snapshot") == [(0, {"mode": "full", "root": {"ref": "e1", "doc": MAIN_DOC}})]
    host.calls.clear()
    framed = await session.snapshot(tab, "full", {"ref": "e2"})
    assert [(n["ref"], n["depth"]) for n in framed["nodes"]] == [("e2", 0), ("f1e1", 2)]
    assert [frame for frame, _ in asked(host, "snapshot")] == [0, 7, 9]  # the root's, then the others
    host.calls.clear()
    inner = await session.snapshot(tab, "full", {"ref": "f1e1"})  # a region in a frame: that frame's answer
    assert asked(host, "snapshot") == [(7, {"mode": "full", "root": {"ref": "e1", "doc": CHILD_DOC}})]
    assert inner["docId"] == CHILD_DOC and [n["ref"] for n in inner["nodes"]] == ["f1e1"]


async def test_a_bad_root_is_the_agent_error() -> None:
    host = FakeHost()
    tab = framed_page(host)
    session = PageSession(host)
    await session.snapshot(tab)
    host.answer("snapshot", {"ok": False, "code": "ELEMENT_NOT_INTERACTABLE", "message": "e1 shows nothing"})
    with pytest.raises(DriverError) as hidden:
        await session.snapshot(tab, "full", {"ref": "e1"})
    assert hidden.value.code == "ELEMENT_NOT_INTERACTABLE"
    with pytest.raises(DriverError) as stale:
        await session.snapshot(tab, "full", {"ref": "f4e1"})
    assert stale.value.code == "STALE_REF"
    with pytest.raises(DriverError) as refused:
        await session.find_text(tab, "")
    assert refused.value.code == "BAD_MESSAGE"


async def test_matches_of_every_frame_in_page_order_capped_and_counted() -> None:
    host = FakeHost()
    tab = framed_page(host)

    def find(_t: int, frame: int, arg: Any) -> Any:
        if frame == 0:
            nodes = [
                {"ref": "e1", "role": "button", "name": "Top needle"},
                {"ref": "e2", "role": "iframe", "frameToken": f"{MAIN_DOC}:e2", "skip": True},
                {"ref": "e3", "role": "link", "name": "After needle"},
            ]
            return {"ok": True, "url": "http://a.test/", "docId": MAIN_DOC, "nodes": nodes, "total": 9}
        if frame == 7:
            nodes = [{"ref": "e1", "role": "textbox", "name": "Inner needle"}]
            return {"ok": True, "docId": CHILD_DOC, "parentToken": f"{MAIN_DOC}:e2", "nodes": nodes, "total": 1}
        return {"ok": True, "docId": "doc-hidden", "parentToken": None, "nodes": [], "total": 5}  # not shown

    host.answer("findText", find)
    found = await PageSession(host).find_text(tab, "needle", limit=2)
    assert found["nodes"] == [
        {"ref": "e1", "role": "button", "name": "Top needle", "value": "", "states": []},
        {"ref": "f1e1", "role": "textbox", "name": "Inner needle", "value": "", "states": []},
    ]
    assert found["total"] == 10  # the main frame's and the shown frame's, not the hidden one's
    assert {arg["limit"] for _, arg in asked(host, "findText")} == {2}
