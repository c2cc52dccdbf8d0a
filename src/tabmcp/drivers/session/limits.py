"""The page session's times and sizes, defined once, and the request checks both drivers share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from tabmcp import protocol as p
from tabmcp.drivers.base import DriverError

OPEN_TAB_TIMEOUT_MS = 15_000
NAVIGATION_TIMEOUT_MS = 15_000
NAVIGATION_TIMEOUT_S = NAVIGATION_TIMEOUT_MS / 1000
NAVIGATION_GRACE_S = 0.4  # a trusted input that may navigate: how long the browser has to report a start
NAVIGATION_START_S = 2.0  # a navigation the agent announced: how long it may take to start
# a call whose document went away before its agent answered: how long its navigation's news may
# take (it travels another connection than the answer; only a call that failed anyway waits it out)
WENT_AWAY_S = 2.0
REPLACED_NAVIGATION_S = 0.5  # after an aborted goto: time for the navigation that replaced it to show
FOLLOW_ON_S = 2.0  # a navigation the page started as it loaded: how long its outcome may take
LOADING_WAIT_S = 10.0  # a request on a loading tab waits this long for its load first
ABORT_SETTLE_S = 0.15  # net::ERR_ABORTED: time for a replacing navigation to show before it counts as over
NETWORK_IDLE_S = 0.5
POLL_S = 0.1
DIALOG_FLUSH_S = 1.0  # the round trip that lets a page's dialog reports arrive before they are read
POPUP_SETTLE_S = 2.0  # an action's popups: how long their first navigation may take to load or be blocked
POPUP_WATCH_S = 10.0  # how long a popup's first navigation is watched for the action that opened it
TOKEN_RETRY_S = 0.05  # a child frame learns its token from its parent's snapshot: the wait before asking again
MAX_CANDIDATES = 10
DEFAULT_ACT_TIMEOUT_MS = 5_000
STEP_TIMEOUT_MS = 5_000  # a plan step's actionability wait
WAIT_TIMEOUT_MS = 5_000
WEBMCP_TIMEOUT_MS = 30_000  # a webmcp step's default (docs/protocol.md, Step)
SUMMARY_NETWORK_S = 2.0  # how long a plan's summary waits for the requests the plan started
UNWATCH_S = 1.0  # how long a failed plan waits for its watch to be stopped
PLAN_SUMMARY_S = 5.0  # reading the page summary after a plan
DEFAULT_EVALUATE_TIMEOUT_MS = 10_000
MAX_EVALUATE_CHARS = 4_000_000
MAX_CAPTURE_SIDE = 16_384  # Chromium's largest texture; taller pages are cut
SCREENSHOT_TIMEOUT_S = 30.0  # element screenshots wait for actionability, long pages take time
CONSOLE_CAPACITY = 1000
CONSOLE_TEXT_MAX = 2000
RECENT_DIALOGS = 20
# A whole request waits this much longer than its own timeoutMs, so the session's TIMEOUT (which
# says what it was waiting for) comes first; past it the page is taken as stuck (NoAnswer).
MARGIN_S = 5.0
REQUEST_TIMEOUT_S = 30.0  # snapshot, capture, console: requests with no timeout of their own


def plan_timeout(steps: Sequence[p.Step]) -> float:
    """The longest a plan can rightly take (each step's own limit, a navigation after each), plus the
    margin: the session's own TIMEOUT, which says which step, comes first."""
    total = PLAN_SUMMARY_S
    for step in steps:
        default = WEBMCP_TIMEOUT_MS if step.action == "webmcp" else STEP_TIMEOUT_MS
        total += (step.timeoutMs if step.timeoutMs is not None else default) / 1000 + NAVIGATION_TIMEOUT_S
    return total + MARGIN_S


def wire_request(model: type[p.Frame], **fields: Any) -> Any:
    """Build a request; arguments the wire refuses are a BAD_MESSAGE, like a refusal by the browser."""
    try:
        return model.model_validate({k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        what = f"invalid {model.__name__.lower()} request"
        raise DriverError(p.ErrorCode.BAD_MESSAGE, f"{what}: {validation_errors(exc)}") from None


def validation_errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}" for e in exc.errors())[:500]
