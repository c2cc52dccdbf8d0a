"""Is every visible link, button and field of a page addressable by a ref in tabmcp's snapshot?

The page is counted independently of tabmcp: Playwright (the Python library) loads it in its own headless
Chromium, same viewport as tabmcp's launched browser (1280x720), and lists the visible controls with a
plain name (aria-label, labels, rendered text, alt, title, placeholder). tabmcp's rows are then matched by
kind and name, compared without whitespace or case, on their first 100 characters, so that the two name
algorithms' small differences (how text of inline children is joined, where a long name is cut) do not count.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from playwright.async_api import async_playwright

from bench.adapters.base import CHROMIUM
from bench.toon_rows import Row

KINDS = ("link", "button", "field")
FIELD_ROLES = {
    "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "slider", "spinbutton", "switch",
}  # fmt: skip
KEY_CHARS = 100

COUNT_CONTROLS = r"""
() => {
  const FIELD_ROLES = new Set(%s);
  const explicitRole = (el) => (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
  const kindOf = (el) => {
    const role = explicitRole(el);
    if (role === 'link') return 'link';
    if (role === 'button') return 'button';
    if (FIELD_ROLES.has(role)) return 'field';
    if (role === 'none' || role === 'presentation' || role === '') {
      const tag = el.localName, type = (el.getAttribute('type') || 'text').toLowerCase();
      if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return 'link';
      if (tag === 'button' || tag === 'summary') return 'button';
      if (tag === 'input') {
        if (type === 'hidden') return null;
        return ['button', 'submit', 'reset', 'image'].includes(type) ? 'button' : 'field';
      }
      if (tag === 'textarea' || tag === 'select') return 'field';
      if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'field';
    }
    return null;
  };
  const hasBox = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return true;
    return [...el.children].some(hasBox);
  };
  const visible = (el) =>
    el.checkVisibility({visibilityProperty: true}) && !el.closest('[aria-hidden="true"]') && hasBox(el);
  const text = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const nameOf = (el) => {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = text(by.split(/\s+/).map((id) => document.getElementById(id)?.textContent || '').join(' '));
      if (t) return t;
    }
    const label = text(el.getAttribute('aria-label'));
    if (label) return label;
    if (el.labels && el.labels.length) {
      const t = text([...el.labels].map((l) => l.innerText).join(' '));
      if (t) return t;
    }
    if (el.localName === 'input' && ['button', 'submit', 'reset'].includes(el.type)) {
      return text(el.value) || (el.type === 'reset' ? 'Reset' : el.type === 'submit' ? 'Submit' : '');
    }
    if (el.localName === 'input' && el.type === 'image') return text(el.alt);
    if (!['input', 'textarea', 'select'].includes(el.localName)) {
      const t = text(el.innerText) || text([...el.querySelectorAll('img[alt]')].map((i) => i.alt).join(' '));
      if (t) return t;
    }
    return text(el.getAttribute('title')) || text(el.getAttribute('placeholder'));
  };
  const out = [];
  for (const el of document.querySelectorAll('*')) {
    const kind = kindOf(el);
    if (kind && visible(el)) out.push({kind, name: nameOf(el), tag: el.localName});
  }
  return out;
}
"""


@dataclass(frozen=True)
class Control:
    kind: str
    name: str
    tag: str


@dataclass
class Coverage:
    expected: Counter[str] = field(default_factory=Counter)  # per kind, in the page
    in_snapshot: Counter[str] = field(default_factory=Counter)  # rows with a ref, per kind
    matched: Counter[str] = field(default_factory=Counter)  # expected controls found by kind and name
    missing: list[Control] = field(default_factory=list)  # a sample, for the report

    @property
    def total_expected(self) -> int:
        return sum(self.expected.values())

    @property
    def total_matched(self) -> int:
        return sum(self.matched.values())


def key(name: str) -> str:
    return "".join(name.split()).rstrip("…").casefold()[:KEY_CHARS]


def kind_of_role(role: str) -> str | None:
    if role in ("link", "button"):
        return role
    return "field" if role in FIELD_ROLES else None


async def page_controls(url: str) -> list[Control]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 720})
            await page.goto(url, wait_until="load")
            found = await page.evaluate(COUNT_CONTROLS % sorted(FIELD_ROLES))
        finally:
            await browser.close()
    return [Control(c["kind"], c["name"], c["tag"]) for c in found]


def check(controls: list[Control], rows: list[Row], sample: int = 8) -> Coverage:
    cov = Coverage()
    have: Counter[tuple[str, str]] = Counter()
    for row in rows:
        kind = kind_of_role(row.role)
        if kind and row.ref:
            cov.in_snapshot[kind] += 1
            have[(kind, key(row.name))] += 1
    for control in controls:
        cov.expected[control.kind] += 1
        wanted = (control.kind, key(control.name))
        if have[wanted] > 0:
            have[wanted] -= 1
            cov.matched[control.kind] += 1
        elif len(cov.missing) < sample:
            cov.missing.append(control)
    return cov
