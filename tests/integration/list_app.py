"""A small server-rendered list app, the way admin sites are built: 45 users in a table with
sortable column headers (links that re-order, ``aria-sort``), numbered pages and a next link
(``?page=``), a page-size select, a search box, a sidebar of links filtering by role, years to
drill into above the table (numbered links that are no pages), and an add
form that answers with a field error next to the field or redirects to the list with a success
banner; a feed of 30 posts that a "Load more" button fetches ten at a time; a stock list whose
quantity column is edited in place beside a table of rows to add, each only fields."""

from __future__ import annotations

import html
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

USERS = [(f"User {n:02d}", f"user{n:02d}@example.test", "admin" if n % 5 == 0 else "staff") for n in range(1, 46)]
COLUMNS = [("name", "Name"), ("email", "Email address"), ("role", "Role")]


def _query(params: dict[str, str], **changes: str | None) -> str:
    merged = {**params, **changes}
    return "?" + urlencode({k: v for k, v in merged.items() if v})


def list_page(params: dict[str, str], users: list[tuple[str, str, str]]) -> str:
    sort = params.get("sort", "")
    key = sort.lstrip("-")
    rows = [u for u in users if params.get("q", "").lower() in u[0].lower() + u[1]]
    rows = [u for u in rows if params.get("role") in (None, "", u[2])]
    if key in dict(COLUMNS):
        rows.sort(key=lambda u: u[[c for c, _ in COLUMNS].index(key)], reverse=sort.startswith("-"))
    size = int(params.get("per_page") or 20)
    pages = max(1, -(-len(rows) // size))
    page = min(max(1, int(params.get("page") or 1)), pages)
    shown = rows[(page - 1) * size : page * size]
    heads = []
    for column, label in COLUMNS:
        state = "ascending" if sort == column else "descending" if sort == f"-{column}" else ""
        flip = f"-{column}" if sort == column else column
        aria = f' aria-sort="{state}"' if state else ""
        heads.append(f'<th{aria}><a href="{_query(params, sort=flip, page=None)}">{label}</a></th>')
    body = "".join(
        f"<tr><td><input type=checkbox name=_selected value={n}></td><td>{html.escape(u[0])}</td>"
        f"<td>{u[1]}</td><td>{u[2]}</td></tr>"
        for n, u in enumerate(shown)
    )
    links = "".join(
        f"<li class=active><span>{n}</span></li>"
        if n == page
        else f'<li><a href="{_query(params, page=str(n))}">{n}</a></li>'
        for n in range(1, pages + 1)
    )
    if page < pages:
        links += f'<li><a href="{_query(params, page=str(page + 1))}">Next</a></li>'
    banner = ""
    if params.get("added"):
        added = html.escape(params["added"])
        banner = f'<ul class="messagelist"><li class="success">The user “{added}” was added.</li></ul>'
    roles = "".join(f'<li><a href="{_query(params, role=r, page=None)}">{r or "All"}</a></li>'
                    for r in ("", "admin", "staff"))
    sizes = "".join(f"<option{' selected' if int(s) == size else ''}>{s}</option>" for s in ("20", "50"))
    return f"""<!doctype html><html><head><title>Users</title></head><body>
<header><a href="/">Home</a></header><main>{banner}<h1>Users</h1>
<form method=get action="/users/" role=search><input type=search name=q aria-label="Search users"
 value="{html.escape(params.get('q', ''))}"><button>Search</button></form>
<nav class=years aria-label="Joined in"><a href="{_query(params, year="2023", page=None)}">2023</a>
<a href="{_query(params, year="2024", page=None)}">2024</a></nav>
<table id=users><thead><tr><th></th>{''.join(heads)}</tr></thead><tbody>{body}</tbody></table>
<p>{len(rows)} users</p>
<aside><h2>By role</h2><ul class=filter>{roles}</ul></aside>
<nav class=pagination aria-label=Pages><ul>{links}</ul></nav>
<form method=get action="/users/"><input type=hidden name=sort value="{sort}">
<label>Per page <select name=per_page onchange="this.form.submit()">{sizes}</select></label></form>
<p><a href="/users/add/">Add user</a></p></main></body></html>"""


def add_page(values: dict[str, str], errors: dict[str, str]) -> str:
    def field(name: str, label: str, kind: str, required: str = " required") -> str:
        error = f'<ul class="errorlist"><li>{errors[name]}</li></ul>' if name in errors else ""
        value = html.escape(values.get(name, ""))
        return (f'<div class="form-row">{error}<label for=id_{name}>{label}</label>'
                f'<input id=id_{name} name={name} type={kind} value="{value}"{required}></div>')

    note = '<p class="errornote">Please correct the error below.</p>' if errors else ""
    return f"""<!doctype html><html><head><title>Add user</title></head><body><main><h1>Add user</h1>{note}
<form method=post action="/users/add/">{field('name', 'Name', 'text')}{field('email', 'Email', 'text')}
{field('website', 'Website', 'url', '')}
<button type=submit>Save</button></form></main></body></html>"""


FEED_PAGE = """<!doctype html><html><head><meta charset=utf-8><title>Feed</title></head><body><main><h1>Posts</h1>
<ul id=posts></ul><button id=more type=button>Load more</button>
<script>
let shown = 0;
async function more() {
  const posts = await (await fetch(`/feed/more?after=${shown}`)).json();
  for (const post of posts.items) {
    const li = document.createElement('li');
    li.textContent = post;
    document.getElementById('posts').append(li);
  }
  shown += posts.items.length;
  if (!posts.more) document.getElementById('more').remove();
}
document.getElementById('more').addEventListener('click', more);
more();
</script></main></body></html>"""


# Notes found by a search, and above them the open note's toolbar: icon buttons, each with a tooltip.
NOTES = ["Call the plumber", "Book the train", "Renew the passport"]


def notes_page(params: dict[str, str]) -> str:
    query = params.get("q", "").lower()
    cards = "".join(f"<div class=card><a href='/notes/{n}'>{note}</a></div>"
                    for n, note in enumerate(NOTES) if query in note.lower())
    tip = ("<div class=tip><button type=button aria-label='{0}'><svg></svg></button>"
           "<div role=tooltip>{0} of the note you have open now (shortcut)</div></div>")
    return f"""<!doctype html><html><head><meta charset=utf-8><title>Notes</title></head><body><main>
<form action=/notes/><input type=search name=q aria-label='Search notes'><button>Search</button></form>
<div class=toolbar>{tip.format("Download a copy")}{tip.format("Delete for good")}</div>
<section>{cards}</section></main></body></html>"""


STOCK = [("Copper kettle", "kitchen", 12), ("Steel rake", "garden", 40), ("Bamboo spoon", "kitchen", 7),
         ("Folding saw", "tools", 3)]


def stock_page(params: dict[str, str]) -> str:
    query = params.get("q", "").lower()
    rows = "".join(
        f"<tr><td><input type=checkbox name=_selected value={n}></td><th><a href='/stock/{n}'>{name}</a></th>"
        f"<td>{kind}</td><td><input type=number name=form-{n}-quantity value={qty}></td>"
        f"<td><img src='/icon-{qty > 5}.svg' alt='{'Yes' if qty > 5 else 'No'}'></td></tr>"
        for n, (name, kind, qty) in enumerate(STOCK) if query in name.lower()
    )
    blank = ("<tr><td><input name=new-{0}-name></td><td><input name=new-{0}-kind></td>"
             "<td><input type=number name=new-{0}-qty></td></tr>")
    return f"""<!doctype html><html><head><meta charset=utf-8><title>Stock</title></head><body><main>
<h1>Stock</h1><form method=get action=/stock/ role=search><input type=search name=q aria-label='Search stock'>
<button>Search</button></form>
<form method=post action=/stock/><table><thead><tr><th></th><th>Item</th><th>Kind</th><th>Quantity</th>
<th>In stock</th></tr></thead>
<tbody>{rows}</tbody></table><button name=_save>Save</button>
<h2>Add items</h2><table><thead><tr><th>Name</th><th>Kind</th><th>Quantity</th></tr></thead>
<tbody>{blank.format(0)}{blank.format(1)}{blank.format(2)}</tbody></table></form></main></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    users: list[tuple[str, str, str]]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: str = "", location: str = "") -> None:
        data = body.encode()
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if parts.path == "/users/":
            self._send(200, list_page(params, self.server.users))  # type: ignore[attr-defined]
        elif parts.path == "/users/add/":
            self._send(200, add_page({}, {}))
        elif parts.path == "/notes/":
            self._send(200, notes_page(params))
        elif parts.path == "/feed/":
            self._send(200, FEED_PAGE)
        elif parts.path == "/stock/":
            self._send(200, stock_page(params))
        elif parts.path == "/feed/more":
            after = int(params.get("after") or 0)
            items = [f"Post number {n}" for n in range(after + 1, min(after + 10, 30) + 1)]
            self._send(200, json.dumps({"items": items, "more": after + 10 < 30}))
        else:
            self._send(404, "<title>Not found</title>")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        values = {k: v[-1] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
        errors = {}
        if "@" not in values.get("email", ""):
            errors["email"] = "Enter a valid email address."
        if errors:
            self._send(200, add_page(values, errors))
            return
        self.server.users.append((values.get("name", ""), values["email"], "staff"))  # type: ignore[attr-defined]
        self._send(303, location="/users/" + _query({}, added=values.get("name", "")))


class ListApp:
    """The app on 127.0.0.1 in a background thread; use as a context manager."""

    def __init__(self) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.users = list(USERS)  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def __enter__(self) -> ListApp:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
