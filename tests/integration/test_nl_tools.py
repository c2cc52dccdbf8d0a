"""The natural-language tools (docs/nl-tools.md) as a client uses them: `tabmcp serve` over
stdio with ``nl_tools=true``, an MCP ClientSession, headless Chromium, the fixture pages
``nl.html`` (a shop with near-duplicate controls) and ``nl-dupes.html``.

Where a model is needed, the server talks real HTTP to the fake OpenAI-compatible endpoint of
``tests/fake_model.py``, which answers what each test scripts (including nonsense and no answer in
time) and records every question, so a test can also show that the page answered without it.
Page state is read back with the core tools (``wait_for``, ``snapshot``), not with the tool under test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toon_format import decode

from tabmcp.demo.client import StdioSession, text_of
from tabmcp.demo.sites import SiteServer
from tests.fake_model import FakeModel, Scripted, fake_model, question_text
from tests.integration.conftest import serve

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
ELEMENT_TOOLS = {"ai_tap", "ai_input", "ai_hover", "ai_keyboard_press", "ai_scroll"}
MODEL_TOOLS = {"ai_query", "ai_assert", "ai_wait_for", "ai_action"}
VERBS = {"ai_connect_current_tab", "ai_connect_new_tab", "ai_disconnect"}


@pytest.fixture(scope="module")
def pages() -> Iterator[SiteServer]:
    with SiteServer(PAGES) as server:
        yield server


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModel]:
    with fake_model() as model:
        yield model


@pytest.fixture
def model(model_server: FakeModel) -> Iterator[FakeModel]:
    model_server.reset()
    yield model_server
    model_server.reset()


def nl_server(server_log: object, tmp_path: Path, model: FakeModel | None = None, **settings: str) -> StdioSession:
    extra = {"ws_port": "0", "user_data_dir": str(tmp_path / "profile"), "nl_tools": "true", **settings}
    if model is not None:
        extra |= {"nl_model_base_url": model.url, "nl_model": "fake-model", "nl_model_api_key": "test-key"}
    return serve(server_log, **extra)


class Client:
    """Calls that must succeed or fail, and the page read back through the core tools."""

    def __init__(self, session: StdioSession) -> None:
        self.session = session

    async def ok(self, tool: str, **args: Any) -> dict[str, Any]:
        result = await self.session.call(tool, args)
        assert not result.is_error, f"{tool}({args}) failed: {text_of(result)}"
        return result.structured_content or decode(text_of(result))

    async def error(self, tool: str, **args: Any) -> dict[str, Any]:
        result = await self.session.call(tool, args)
        assert result.is_error, f"{tool}({args}) should have failed: {text_of(result)}"
        assert result.structured_content is not None
        return result.structured_content

    async def shows(self, text: str) -> None:
        await self.ok("wait_for", text=text, timeoutMs=3000)

    async def snapshot_rows(self) -> list[dict[str, Any]]:
        return list((await self.ok("snapshot", mode="full"))["nodes"])

    async def ref_of(self, role: str, name: str, index: int = 0) -> str:
        rows = [r for r in await self.snapshot_rows() if r["role"] == role and r["name"] == name]
        return str(rows[index]["ref"])


# ----------------------------------------------------------------- without a model


@pytest.mark.usefixtures("driver_kind")
async def test_element_tools_without_a_model(server_log: object, tmp_path: Path, pages: SiteServer) -> None:
    audit = tmp_path / "audit.jsonl"
    async with nl_server(server_log, tmp_path, audit_log=str(audit)) as session:
        page = Client(session)
        assert await session.tool_names() == ["connect_browser"]
        stale = await page.error("ai_tap", locate="the login button")  # a client with an old list
        assert stale["code"] == "NOT_CONNECTED" and "connect_browser" in stale["error"]

        await page.ok("connect_browser", launch=True)
        names = set(await session.tool_names())
        assert "ai_connect_new_tab" in names and not names & (ELEMENT_TOOLS | MODEL_TOOLS)

        before = session.changes
        opened = await page.ok("ai_connect_new_tab", url=pages.url("nl.html"))
        assert opened["connected"] is True and opened["tab"]["title"] == "Swag Shop"
        await session.wait_changes(before + 1)
        tools = {t.name: t for t in await session.tools()}
        assert set(tools) >= ELEMENT_TOOLS | VERBS
        assert not set(tools) & MODEL_TOOLS  # they need a model, and none is configured
        tap = tools["ai_tap"].annotations
        assert tap is not None and not tap.read_only_hint and tap.destructive_hint is False  # MCP assumes true
        assert tools["ai_tap"].input_schema["required"] == ["locate"]
        assert tools["ai_scroll"].input_schema["properties"]["scrollType"]["enum"][1] == "untilBottom"

        # fields and buttons by their words, near-duplicates told apart by the text around them
        typed = await page.ok("ai_input", locate="the username field", text="bob")
        assert typed["located"]["name"] == "Username" and typed["located"]["confidence"] == 1
        await page.ok("ai_input", locate="the password input", text="secret-pw")
        tapped = await page.ok("ai_tap", locate="the login button")
        assert tapped["located"]["role"] == "button"
        await page.shows("Logged in as bob")

        ambiguous = await page.error("ai_tap", locate="the Add to cart button")
        assert ambiguous["code"] == "ELEMENT_AMBIGUOUS"
        candidates = ambiguous["candidates"]
        assert [c["name"] for c in candidates] == ["Add to cart"] * 3
        onesie = next(c["ref"] for c in candidates if "Onesie" in c["context"])
        await page.ok("ai_tap", locate=onesie)  # the model picks one by its ref
        await page.shows("Cart: Onesie")
        await page.ok("ai_tap", locate="Bike Light add to cart")
        await page.shows("Cart: Onesie, Bike Light")
        await page.ok("ai_tap", locate="the Edit button in the Fix bug row")
        await page.shows("Editing Fix bug")
        missing = await page.error("ai_tap", locate="the purple elephant")
        assert missing["code"] == "ELEMENT_NOT_FOUND" and "snapshot" in missing["error"]

        hovered = await page.ok("ai_hover", locate="the account menu")
        assert hovered["located"]["name"] == "Account menu"
        await page.shows("Logout")  # the menu opens on hover

        await page.ok("ai_input", locate="the search box", text="shoes")
        pressed = await page.ok("ai_keyboard_press", key="enter", locate="the search box")
        assert pressed["located"]["role"] == "searchbox"
        await page.shows("Searched: shoes")
        await page.ok("ai_keyboard_press", key="x", locate="username")
        await page.shows("key x in username")
        await page.ok("ai_input", locate="the username field", text="")  # empty text clears
        username = next(r for r in await page.snapshot_rows() if r["name"] == "Username")
        assert username["value"] == ""

        bottom = await page.ok("ai_scroll", direction="down", scrollType="untilBottom", locate="the scroll box")
        assert bottom["located"]["name"] == "Scroll box" and bottom["reachedEnd"] is True
        assert bottom["position"]["y"] > 0
        await page.shows(f"box at {bottom['position']['y']}")
        top = await page.ok("ai_scroll", direction="up", scrollType="untilTop", locate="the scroll box")
        assert top["position"]["y"] == 0
        down = await page.ok("ai_scroll", direction="down", distance=300)
        assert down["position"] == {"x": 0, "y": 300} and "located" not in down

        # letting go of the tab, and coming back to the one the browser shows
        before = session.changes
        released = await page.ok("ai_disconnect")
        assert released["disconnected"] is True
        await session.wait_changes(before + 1)
        names = set(await session.tool_names())
        assert "ai_connect_current_tab" in names and not names & ELEMENT_TOOLS and "snapshot" not in names
        stale = await page.error("ai_tap", locate="the login button")
        assert stale["code"] == "NOT_CONNECTED" and "ai_connect_current_tab" in stale["error"]
        back = await page.ok("ai_connect_current_tab")
        assert back["tab"]["id"] == opened["tab"]["id"] and "ai_tap" in await session.tool_names()

    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    typed_lines = [line for line in lines if line["tool"] == "ai_input"]
    assert any(line["arguments"].get("text") == "bob" for line in typed_lines)
    assert "secret-pw" not in audit.read_text()  # a password typed by description is redacted too


# ----------------------------------------------------------------- with a model


def _candidate_with(word: str) -> Any:
    """A model that picks, from the shortlist it was sent, the candidate whose text has ``word``."""

    def pick(body: dict[str, Any]) -> dict[str, Any]:
        lines = [line for line in question_text(body).splitlines() if line.startswith("- ") and word in line]
        match = re.match(r"- (\S+) ", lines[0]) if lines else None
        return {"ref": match.group(1) if match else None, "reason": f"the one with {word}"}

    return pick


async def test_model_backed_tools_ask_the_model_only_when_the_page_cannot_answer(
    server_log: object, tmp_path: Path, pages: SiteServer, model: FakeModel
) -> None:
    async with nl_server(server_log, tmp_path, model, nl_model_timeout="1") as session:
        page = Client(session)
        await page.ok("connect_browser", launch=True)
        await page.ok("ai_connect_new_tab", url=pages.url("nl.html"))
        tools = {t.name: t for t in await session.tools()}
        assert set(tools) >= MODEL_TOOLS
        assert tools["ai_action"].annotations is not None and tools["ai_action"].annotations.destructive_hint
        assert tools["ai_query"].annotations is not None and tools["ai_query"].annotations.read_only_hint

        # ai_query: tables and lists from the page, the rest from the model, checked against the shape
        tasks = await page.ok("ai_query", dataShape="string[], list of task names")
        assert tasks["data"] == ["Write docs", "Fix bug", "Review PR"] and tasks["source"] == "page"
        records = await page.ok("ai_query", dataShape="{task: string, hours: number}[], the tasks")
        assert records["data"][2] == {"task": "Review PR", "hours": 1.5}
        price = await page.ok("ai_query", dataShape="number, the price of Sauce Labs Onesie")
        assert price["data"] == 7.99
        assert model.requests == []  # all three from the page

        model.answer({"data": ["Sauce Labs Backpack", "Sauce Labs Bike Light", "Sauce Labs Onesie"]})
        products = await page.ok("ai_query", dataShape="string[], product names")
        assert products["source"] == "model" and products["data"][2] == "Sauce Labs Onesie"
        asked = model.requests[0]
        assert asked["model"] == "fake-model" and model.auth[0] == "Bearer test-key"
        assert "string[]" in question_text(asked) and "Sauce Labs Onesie" in question_text(asked)  # the page went too
        assert "untrusted" in asked["messages"][0]["content"]

        model.answer("I think they are all backpacks.")
        nonsense = await page.error("ai_query", dataShape="string[], product names")
        assert nonsense["code"] == "MODEL_ERROR" and "did not answer with JSON" in nonsense["error"]
        model.answer({"data": "Backpack"})
        wrong = await page.error("ai_query", dataShape="string[], product names")
        assert wrong["code"] == "MODEL_ERROR" and "not a string[]" in wrong["error"]
        model.answer(Scripted({"data": ["late"]}, delay=3))
        late = await page.error("ai_query", dataShape="string[], product names")
        assert late["code"] == "MODEL_TIMEOUT" and "did not answer within 1 s" in late["error"]
        model.answer(Scripted(status=503, raw="overloaded"))
        down = await page.error("ai_query", dataShape="string[], product names")
        assert down["code"] == "MODEL_ERROR" and "HTTP 503" in down["error"]

        # ai_assert: plain facts from the page (with what it showed), judgement from the model
        asked_before = len(model.requests)
        held = await page.ok("ai_assert", assertion="the price of Sauce Labs Onesie is 7.99")
        assert held["source"] == "page" and "$7.99" in held["evidence"]
        wrong_price = "the price of Sauce Labs Onesie is 8.99"
        failed = await page.error("ai_assert", assertion=wrong_price, errorMsg="Price check")
        assert failed["code"] == "ASSERTION_FAILED" and failed["error"].startswith("Price check: Assertion failed")
        assert "$7.99" in failed["pageShows"]
        assert len(model.requests) == asked_before
        model.answer({"pass": True, "reason": "products with prices and a cart"})
        judged = await page.ok("ai_assert", assertion="the page looks like a shop")
        assert judged == {**judged, "source": "model", "evidence": "products with prices and a cart"}
        model.answer({"pass": False, "reason": "it is a blog"})
        refused = await page.error("ai_assert", assertion="the page looks like a news site")
        assert refused["code"] == "ASSERTION_FAILED" and "it is a blog" in refused["error"]
        model.answer({"verdict": "maybe"})
        unclear = await page.error("ai_assert", assertion="the page looks friendly")
        assert unclear["code"] == "MODEL_ERROR"

        # ai_wait_for: polls the page; the model's answers are bounded by the time left
        await page.ok("ai_tap", locate="Load reviews")
        met = await page.ok("ai_wait_for", assertion='"3 reviews loaded" is visible', checkIntervalMs=100)
        assert met["source"] == "page"
        never = await page.error(
            "ai_wait_for", assertion='"never there" is visible', timeoutMs=500, checkIntervalMs=100
        )
        assert never["code"] == "TIMEOUT" and never["checks"] >= 2 and "never there" in never["error"]
        model.default = Scripted({"pass": True}, delay=3)  # a model that never answers in time
        slow = await page.error("ai_wait_for", assertion="the reviews look positive", timeoutMs=1500)
        assert slow["code"] == "TIMEOUT" and "did not answer" in slow["error"]
        model.default = None

        # locating: the model picks among near-duplicates; a bad or late answer leaves the candidates
        model.answer(Scripted(_candidate_with("Onesie"), when="the Add to cart button"))
        picked = await page.ok("ai_tap", locate="the Add to cart button")
        assert picked["located"] == {**picked["located"], "by": "model", "name": "Add to cart"}
        await page.shows("Cart: Onesie")
        locating = [q for q in model.questions if "the Add to cart button" in q]
        assert locating and "Sauce Labs Onesie" in locating[-1]  # the shortlist went with the question
        model.answer({"ref": "e999"})
        bad = await page.error("ai_tap", locate="the Add to cart button")
        assert bad["code"] == "ELEMENT_AMBIGUOUS" and "e999" in bad["error"] and len(bad["candidates"]) == 2
        model.answer(Scripted({"ref": "e1"}, delay=3))
        slow_pick = await page.error("ai_tap", locate="the Add to cart button")
        assert slow_pick["code"] == "ELEMENT_AMBIGUOUS" and "did not answer" in slow_pick["error"]

        # ai_action: plain steps run without the model; other prompts are planned by it and checked
        asked_before = len(model.requests)
        done = await page.ok("ai_action", prompt="type JavaScript into the search box, click search")
        assert done["plannedBy"] == "page" and len(done["done"]) == 2
        await page.shows("Searched: JavaScript")
        assert len(model.requests) == asked_before
        model.answer({"steps": [{"action": "tap", "locate": "Bike Light add to cart"}]})
        planned = await page.ok("ai_action", prompt="buy the cheapest light")
        assert planned["plannedBy"] == "model"
        await page.shows("Cart: Onesie, Bike Light")
        model.answer({"steps": [{"action": "teleport", "locate": "the moon"}]})
        unusable = await page.error("ai_action", prompt="go somewhere nice")
        assert unusable["code"] == "MODEL_ERROR" and "teleport" in unusable["error"]
        model.answer({"ref": None, "reason": "there is no elephant"})
        failed_step = await page.error("ai_action", prompt="check the newsletter checkbox, click the purple elephant")
        assert failed_step["code"] == "ELEMENT_NOT_FOUND" and failed_step["error"].startswith("Step 2 of 2")
        assert len(failed_step["done"]) == 1 and "there is no elephant" in failed_step["error"]
        newsletter = next(r for r in await page.snapshot_rows() if r["name"] == "Subscribe to newsletter")
        assert "checked" in newsletter["states"]  # step 1 ran before step 2 failed

        # a step of the model's plan finds nothing: the model plans the rest from the page as it is now
        elephant = {"steps": [{"action": "tap", "locate": "the purple elephant"}]}
        nowhere = {"ref": None, "reason": "no elephant on this page"}  # the locate question's answer
        model.answer(elephant, nowhere, {"steps": [{"action": "uncheck", "locate": "the newsletter checkbox"}]})
        replanned = await page.ok("ai_action", prompt="stop the newsletter")
        assert replanned["plannedBy"] == "model" and replanned["replanned"] == 1 and len(replanned["done"]) == 1
        again = question_text(model.requests[-1])
        assert "stop the newsletter" in again and "the purple elephant" in again and "no elephant" in again
        newsletter = next(r for r in await page.snapshot_rows() if r["name"] == "Subscribe to newsletter")
        assert "unchecked" in newsletter["states"].split()
        model.answer(elephant, nowhere, {"steps": []})  # nothing left to do
        finished = await page.ok("ai_action", prompt="stop the newsletter")
        assert finished["done"] == [] and finished["replanned"] == 1
        model.answer(elephant, nowhere, "no idea")
        confused = await page.error("ai_action", prompt="stop the newsletter")
        assert confused["code"] == "MODEL_ERROR" and "planning the rest again failed" in confused["error"]
        model.answer(*[elephant, nowhere] * 3)  # a model that keeps planning the impossible: twice, no more
        given_up = await page.error("ai_action", prompt="feed the elephant")
        assert given_up["code"] == "ELEMENT_NOT_FOUND" and given_up["replanned"] == 2
        assert given_up["error"].startswith("Step 1 of 1")


# ----------------------------------------------------------------- screenshots and confirmation


async def test_screenshots_for_the_model_and_destructive_elements_named_without_saying_so(
    server_log: object, tmp_path: Path, pages: SiteServer, model: FakeModel
) -> None:
    settings = {"nl_model_screenshot": "true", "confirm_destructive": "true"}
    async with nl_server(server_log, tmp_path, model, **settings) as session:
        page = Client(session)
        await page.ok("connect_browser", launch=True)
        await page.ok("ai_connect_new_tab", url=pages.url("nl-dupes.html"))

        model.answer({"pass": True, "reason": "a settings page"})
        await page.ok("ai_assert", assertion="this is a settings page")
        parts = model.requests[0]["messages"][1]["content"]
        image = next(p for p in parts if p["type"] == "image_url")["image_url"]["url"]
        assert image.startswith("data:image/jpeg;base64,") and len(image) > 1000

        # the words say "delete": the client is asked first, and this one cannot be asked
        said = await page.error("ai_tap", locate="delete the Work address")
        assert said["code"] == "CANNOT_CONFIRM"
        # the words do not say it, but the element is a Delete link: sent to interact, which asks
        delete = await page.ref_of("link", "Delete", 1)
        hidden = await page.error("ai_tap", locate=delete)
        assert hidden["code"] == "CONFIRMATION_NEEDED" and hidden["ref"] == delete
        await page.ok("ai_tap", locate="the Save button in the Password section")  # not destructive: runs
        await page.shows("Saved password")
        rows = await page.snapshot_rows()
        assert [r["name"] for r in rows if r["role"] == "link" and r["name"] == "Delete"] == ["Delete", "Delete"]
