"""Frames: the token handshake that matches a child frame to its <iframe>, offsets for trusted input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.agent.conftest import AgentPage, eventually

OpenPage = Callable[..., AgentPage]


class Frames:
    def __init__(self, page: AgentPage) -> None:
        self.page = page
        self.all = eventually(lambda: self._loaded(), "all six frames with an agent", timeout=10)
        self.by_name = {self.name_of(f["url"]): f for f in self.all}

    def _loaded(self) -> list[dict[str, Any]] | None:
        frames = self.page.frames()
        if len(frames) < 6:
            return None
        answers = self.page.call_all("probe", {"text": "Frame"})
        return frames if len(answers) == 6 and all(a and a.get("ok") for a in answers.values()) else None

    @staticmethod
    def name_of(url: str) -> str:
        if "name=" in url:
            return url.split("name=")[1]
        return "nest" if "frame-nest" in url else "top"

    def id(self, name: str) -> int:
        return self.by_name[name]["frameId"]

    def iframe_row(self, snapshot: dict[str, Any], title: str) -> dict[str, Any]:
        return next(n for n in snapshot["nodes"] if n["role"] == "iframe" and n["name"] == title)


@pytest.fixture
def frames(open_page: OpenPage) -> Frames:
    return Frames(open_page("frames.html"))


def test_iframe_rows_carry_tokens_the_children_report(frames: Frames) -> None:
    page = frames.page
    top = page.snapshot()
    same = frames.iframe_row(top, "Same origin frame")
    cross = frames.iframe_row(top, "Cross origin frame")
    nest = frames.iframe_row(top, "Nesting frame")
    assert same["frameToken"] == f"{top['docId']}:{same['ref']}"
    assert "Hidden frame" not in [n["name"] for n in top["nodes"]]  # a hidden iframe is left out

    def token(name: str) -> str | None:
        return page.snapshot(frame_id=frames.id(name))["parentToken"]

    assert eventually(lambda: token("same"), "same-origin token") == same["frameToken"]
    assert eventually(lambda: token("cross"), "cross-origin token") == cross["frameToken"]
    assert eventually(lambda: token("nest"), "nesting frame token") == nest["frameToken"]
    # one level down: the nesting frame's own snapshot posts the token to the inner frame
    nest_snapshot = page.snapshot(frame_id=frames.id("nest"))
    inner = frames.iframe_row(nest_snapshot, "Inner frame")
    assert inner["frameToken"].startswith(nest_snapshot["docId"] + ":")
    assert eventually(lambda: token("inner"), "inner token") == inner["frameToken"]
    assert token("hidden") is None  # never matched


def test_every_frame_has_its_own_doc_and_rows(frames: Frames) -> None:
    snapshots = frames.page.call_all("snapshot", {"mode": "interactive"})
    assert len({s["docId"] for s in snapshots.values()}) == 6
    cross = snapshots[frames.id("cross")]
    assert [n["name"] for n in cross["nodes"]] == ["Child frame cross", "Frame button cross", "Frame input"]
    assert cross["url"].startswith("http://localhost:")


def test_act_in_a_cross_origin_frame(frames: Frames) -> None:
    page = frames.page
    frame_id = frames.id("cross")
    ref = page.ref("Frame button cross", frame_id=frame_id)
    assert page.act("click", frame_id=frame_id, target={"ref": ref})["ok"] is True
    out = page.page.frame_locator("#cross").locator("#out")
    assert out.inner_text() == "clicked cross synthetic"
    assert page.act("fill", frame_id=frame_id, target={"role": "textbox", "name": "Frame input"}, text="hi")["ok"]
    assert page.page.frame_locator("#cross").locator("#frame-input").input_value() == "hi"


def test_refs_are_local_to_their_frame(frames: Frames) -> None:
    page = frames.page
    ref = page.ref("Frame button same", frame_id=frames.id("same"))
    # the same local ref means another element (or nothing) in another frame
    top_answer = page.call("find", {"target": {"ref": ref}})
    assert top_answer.get("ok") is False or top_answer["matches"][0]["name"] != "Frame button same"


@pytest.mark.parametrize("name", ["same", "cross"])
def test_point_plus_frame_offset_lands_a_trusted_click(frames: Frames, name: str) -> None:
    page = frames.page
    frame_id = frames.id(name)
    point = page.call("point", {"target": {"css": "#frame-button"}}, frame_id)
    assert point["ok"] is True
    iframe_ref = page.call("find", {"target": {"css": f"#{name}"}})["matches"][0]["ref"]
    offset = page.call("frameOffset", {"ref": iframe_ref})
    assert offset["ok"] is True
    box = page.page.locator(f"#{name}").bounding_box()
    assert box is not None
    assert offset["x"] == pytest.approx(box["x"] + 2 + 3)  # border 2px + padding 3px
    assert offset["y"] == pytest.approx(box["y"] + 2 + 3)
    page.page.mouse.click(offset["x"] + point["x"], offset["y"] + point["y"])  # trusted input
    assert page.page.frame_locator(f"#{name}").locator("#out").inner_text() == f"clicked {name} trusted"


def test_frame_offset_of_a_non_frame(frames: Frames) -> None:
    ref = frames.page.call("find", {"target": {"css": "#top-button"}})["matches"][0]["ref"]
    assert frames.page.call("frameOffset", {"ref": ref})["code"] == "BAD_MESSAGE"


def test_frame_offset_brings_a_point_of_the_frame_into_view(frames: Frames) -> None:
    page = frames.page
    page.page.evaluate("() => { document.body.style.height = '5000px'; window.scrollTo(0, 3000); }")
    point = page.call("point", {"target": {"css": "#frame-button"}}, frames.id("cross"))
    iframe_ref = page.call("find", {"target": {"css": "#cross"}})["matches"][0]["ref"]
    assert page.call("frameOffset", {"ref": iframe_ref})["y"] < 0  # scrolled away above the viewport
    offset = page.call("frameOffset", {"ref": iframe_ref, "point": {"x": point["x"], "y": point["y"]}})
    x, y = offset["x"] + point["x"], offset["y"] + point["y"]
    assert 0 <= x < 1000 and 0 <= y < 700
    page.page.mouse.click(x, y)
    assert page.page.frame_locator("#cross").locator("#out").inner_text() == "clicked cross trusted"
