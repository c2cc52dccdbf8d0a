"""Form widgets as arguments: what the generic form and search introspectors make of the fields the page agent
marks as widgets (``data-tabmcp-widget``, extension/agent/widgets.js), on HTML written the way the agent writes it."""

from __future__ import annotations

from tabmcp.introspect.api import PageTool, resolve_plan
from tabmcp.introspect.forms import FormIntrospector
from tabmcp.introspect.search import SearchIntrospector
from tabmcp.page.capture import PageCapture
from tabmcp.protocol import Step, Target

# An admin's add form as the agent captures it once select2, Tom Select, Choices.js, flatpickr and a code editor
# have run: the libraries' <select>s are withdrawn (hidden, aria-hidden, out of the tab order) and unflagged
# because their comboboxes show; the editor's key taker stands for the hidden textarea "notes".
ADMIN = """<form action="/admin/book/add/" method="post" data-tabmcp-ref="e1">
<input type="hidden" name="csrfmiddlewaretoken" value="t" data-tabmcp-ref="e2" data-tabmcp-hidden="1">
<label for="author" data-tabmcp-ref="e3">Author</label>
<select id="author" name="author" required="" class="select2-hidden-accessible" aria-hidden="true" tabindex="-1"
  data-tabmcp-ref="e4" data-tabmcp-widget="combobox" data-tabmcp-name="Author"></select>
<span class="select2 select2-container"><span class="select2-selection" role="combobox" tabindex="0"
  data-tabmcp-ref="e5" data-tabmcp-name="Author"></span></span>
<select id="tags" name="tags" multiple="" hidden="" tabindex="-1" data-tabmcp-ref="e6"
  data-tabmcp-widget="combobox" data-tabmcp-name="Tags"><option value="1" selected="">Fiction</option></select>
<select id="formats" name="formats" multiple="" data-tabmcp-ref="e7" data-tabmcp-name="Formats">
  <option value="hb">Hardback</option><option value="pb">Paperback</option></select>
<input id="published" name="published" class="flatpickr-input" readonly="readonly" value=""
  data-tabmcp-ref="e8" data-tabmcp-widget="date" data-tabmcp-name="Published on">
<input id="printed" name="printed" type="date" value="" data-tabmcp-ref="e9" data-tabmcp-name="Printed on">
<textarea name="notes" style="display:none" data-tabmcp-ref="e10" data-tabmcp-hidden="1"></textarea>
<div class="CodeMirror"><div><textarea data-tabmcp-ref="e11" data-tabmcp-widget="editor" data-tabmcp-field="notes"
  data-tabmcp-name="Notes"></textarea></div></div>
<div contenteditable="true" role="textbox" aria-label="Summary" data-tabmcp-ref="e12" data-tabmcp-widget="editor"
  data-tabmcp-name="Summary"></div>
<input id="series" name="series" role="combobox" aria-autocomplete="list" value="" data-tabmcp-ref="e13"
  data-tabmcp-widget="combobox" data-tabmcp-name="Series">
<button type="submit" data-tabmcp-ref="e14" data-tabmcp-name="Save">Save</button>
</form>"""


def admin_tool() -> PageTool:
    page = PageCapture(url="https://admin.test/book/add/", title="Add book", html=f"<html><body>{ADMIN}</body></html>")
    tools = FormIntrospector().tools(page)
    assert len(tools) == 1
    return tools[0]


def test_widgets_become_arguments_in_document_order() -> None:
    schema = admin_tool().input_schema
    assert list(schema["properties"]) == [
        "author", "tags", "formats", "published", "printed", "notes", "summary", "series",
    ]
    assert schema["required"] == ["author"]


def test_a_combobox_over_a_select_is_a_text_never_an_empty_enum() -> None:
    # its <select> holds no option (they come from the server as the user types): the add form stays callable
    author = admin_tool().input_schema["properties"]["author"]
    assert author == {"type": "string", "description": "Author (the option's visible text)"}
    series = admin_tool().input_schema["properties"]["series"]
    assert series == {"type": "string", "description": "Series (the option's visible text)"}


def test_multiple_selects_are_arrays() -> None:
    props = admin_tool().input_schema["properties"]
    # a combobox's options are data: no enum (what is selected now is not in the schema either)
    assert props["tags"] == {
        "type": "array", "items": {"type": "string"}, "uniqueItems": True,
        "description": "Tags (the options' visible texts)",
    }
    # a native multiple select with fixed, few options keeps them as the items' enum
    assert props["formats"] == {
        "type": "array", "items": {"type": "string", "enum": ["hb", "pb"]}, "uniqueItems": True,
        "description": "Formats (hb: Hardback, pb: Paperback)",
    }


def test_date_pickers_are_iso_dates() -> None:
    props = admin_tool().input_schema["properties"]
    # flatpickr's input is read-only (its calendar sets it) and still an argument
    assert props["published"] == {"type": "string", "format": "date", "description": "Published on (YYYY-MM-DD)"}
    assert props["printed"]["format"] == "date"


def test_editors_are_strings_named_for_the_field_they_stand_for() -> None:
    props = admin_tool().input_schema["properties"]
    assert props["notes"] == {"type": "string", "description": "Notes (replaces the editor's whole text)"}
    assert props["summary"] == {"type": "string", "description": "Summary (replaces the editor's whole text)"}


def test_widget_steps() -> None:
    steps = resolve_plan(admin_tool(), {
        "author": "J. R. R. Tolkien", "tags": ["Fiction", "Fantasy"], "formats": [], "published": "1937-09-21",
        "notes": "select 1", "series": "Discworld",
    })
    assert steps == [
        Step(action="select", target=Target(ref="e4"), value="J. R. R. Tolkien"),
        Step(action="select", target=Target(ref="e6"), values=["Fiction", "Fantasy"]),
        Step(action="select", target=Target(ref="e7"), values=[]),  # none chosen
        Step(action="fill", target=Target(ref="e8"), value="1937-09-21"),
        Step(action="fill", target=Target(ref="e11"), value="select 1"),
        Step(action="select", target=Target(ref="e13"), value="Discworld"),
        Step(action="submit", target=Target(ref="e1")),
    ]


def test_a_combobox_search_field_is_not_a_search_box() -> None:
    # Choices.js types into an <input type=search> inside its combobox: the form is no search form
    html = """<form action="/add" data-tabmcp-ref="e1"><div class="choices" role="combobox" data-tabmcp-ref="e2">
    <select name="language" hidden="" tabindex="-1" data-tabmcp-ref="e3" data-tabmcp-widget="combobox"
      data-tabmcp-name="Language"><option value="en">English</option></select>
    <input type="search" class="choices__input" aria-autocomplete="list" data-tabmcp-ref="e4"></div>
    <button data-tabmcp-ref="e5" data-tabmcp-name="Add">Add</button></form>"""
    page = PageCapture(url="https://site.test/", title="t", html=f"<html><body>{html}</body></html>")
    assert SearchIntrospector().tools(page) == []
    (tool,) = FormIntrospector().tools(page)
    assert tool.input_schema["properties"] == {
        "language": {"type": "string", "description": "Language (the option's visible text)"},
    }


def test_a_hidden_select_without_a_widget_is_no_argument() -> None:
    # the agent marks a withdrawn <select> only when a combobox shows for it
    html = """<form action="/add" data-tabmcp-ref="e1"><select name="x" hidden="" data-tabmcp-ref="e2"
      data-tabmcp-hidden="1"><option>a</option></select><input name="y" data-tabmcp-ref="e3">
      <button data-tabmcp-ref="e4">Add</button></form>"""
    page = PageCapture(url="https://site.test/", title="t", html=f"<html><body>{html}</body></html>")
    (tool,) = FormIntrospector().tools(page)
    assert list(tool.input_schema["properties"]) == ["y"]


def test_a_hidden_input_behind_a_date_picker_is_a_date() -> None:
    # flatpickr's altInput: the named input is hidden, a copy without a name shows the date
    html = """<form action="/add" data-tabmcp-ref="e1"><input type="hidden" name="returned" class="flatpickr-input"
      data-tabmcp-ref="e2" data-tabmcp-widget="date" data-tabmcp-name="Returned on">
      <input type="text" class="form-control" readonly="readonly" data-tabmcp-ref="e3">
      <button data-tabmcp-ref="e4">Add</button></form>"""
    page = PageCapture(url="https://site.test/", title="t", html=f"<html><body>{html}</body></html>")
    (tool,) = FormIntrospector().tools(page)
    assert tool.input_schema["properties"] == {
        "returned": {"type": "string", "format": "date", "description": "Returned on (YYYY-MM-DD)"},
    }
    assert resolve_plan(tool, {"returned": "2026-01-31"})[0] == Step(
        action="fill", target=Target(ref="e2"), value="2026-01-31"
    )
