"""A lending library's back office in Flask-Admin: the library's own views over a seeded SQLite database.

Runs in the app's own venv (build/apps/flaskadmin): ``python host.py DATA_DIR PORT``. Only the models
and the view options are written here; every page is Flask-Admin's (Bootstrap 4 theme, select2
relation fields, list filters, search, sort, paging, bulk actions).
"""

from __future__ import annotations

import random
import sys
from datetime import date, timedelta
from pathlib import Path

from flask import Flask, flash, redirect, url_for
from flask_admin import Admin
from flask_admin.actions import action
from flask_admin.contrib.sqla import ModelView
from flask_sqlalchemy import SQLAlchemy

db = SQLAlchemy()

book_tags = db.Table(
    "book_tags",
    db.Column("book_id", db.Integer, db.ForeignKey("book.id")),
    db.Column("tag_id", db.Integer, db.ForeignKey("tag.id")),
)


class Author(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(120), nullable=False, unique=True)
    country = db.Column(db.String(60))
    born = db.Column(db.Integer)

    def __str__(self) -> str:
        return self.name


class Tag(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(40), nullable=False, unique=True)

    def __str__(self) -> str:
        return self.name


class Book(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    title = db.Column(db.String(200), nullable=False)
    isbn = db.Column(db.String(20), unique=True)
    genre = db.Column(db.Enum("Fiction", "Mystery", "Science", "History", "Poetry", "Travel", name="genre"))
    year = db.Column(db.Integer)
    pages = db.Column(db.Integer)
    in_stock = db.Column(db.Boolean, default=True)
    author_id = db.Column(db.Integer, db.ForeignKey("author.id"), nullable=False)
    author = db.relationship(Author, backref="books")
    tags = db.relationship(Tag, secondary=book_tags, backref="books")

    def __str__(self) -> str:
        return self.title


class Member(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(120), nullable=False)
    email = db.Column(db.String(120), nullable=False, unique=True)
    joined = db.Column(db.Date)

    def __str__(self) -> str:
        return self.name


class Loan(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    book_id = db.Column(db.Integer, db.ForeignKey("book.id"), nullable=False)
    book = db.relationship(Book, backref="loans")
    member_id = db.Column(db.Integer, db.ForeignKey("member.id"), nullable=False)
    member = db.relationship(Member, backref="loans")
    due = db.Column(db.Date, nullable=False)
    returned = db.Column(db.Boolean, default=False)


class BookView(ModelView):
    can_view_details = True
    can_set_page_size = True
    page_size = 20
    column_list = ("title", "author", "genre", "year", "pages", "in_stock")
    column_searchable_list = ("title", "isbn")
    column_filters = ("genre", "year", "in_stock", "author.name")
    column_sortable_list = ("title", ("author", "author.name"), "genre", "year", "pages")
    column_default_sort = "title"
    form_ajax_refs = {"author": {"fields": ("name",), "page_size": 10}, "tags": {"fields": ("name",)}}

    @action("mark_out_of_stock", "Mark out of stock", "Mark the selected books out of stock?")
    def mark_out_of_stock(self, ids: list[str]) -> None:
        books = Book.query.filter(Book.id.in_([int(i) for i in ids])).all()
        for book in books:
            book.in_stock = False
        db.session.commit()
        flash(f"{len(books)} books marked out of stock.", "success")


class AuthorView(ModelView):
    page_size = 20
    column_searchable_list = ("name", "country")
    column_filters = ("country", "born")
    form_excluded_columns = ("books",)


class MemberView(ModelView):
    page_size = 20
    column_searchable_list = ("name", "email")
    column_filters = ("joined",)
    form_excluded_columns = ("loans",)


class LoanView(ModelView):
    page_size = 20
    column_list = ("book", "member", "due", "returned")
    column_filters = ("returned", "due", "member.name")
    form_ajax_refs = {"book": {"fields": ("title",)}, "member": {"fields": ("name", "email")}}


FIRST = ["Ada", "Boris", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Keiko", "Lars",
         "Maya", "Nikolai", "Olga", "Pablo", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Yara"]
LAST = ["Almeida", "Brandt", "Castillo", "Dubois", "Eriksen", "Fontaine", "Gallo", "Haddad", "Ivanova", "Jensen",
        "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quintero", "Rossi", "Sato", "Tanaka"]
COUNTRIES = ["Brazil", "France", "Germany", "Italy", "Japan", "Nigeria", "Norway", "Poland", "Spain", "Sweden"]
ADJECTIVES = ["Silent", "Crimson", "Hidden", "Last", "Northern", "Broken", "Golden", "Distant", "Quiet", "Wandering",
              "Forgotten", "Bright", "Hollow", "Endless", "Winter"]
NOUNS = ["Harbor", "Garden", "Archive", "River", "Lighthouse", "Orchard", "Atlas", "Summer", "Compass", "Bridge",
         "Library", "Island", "Signal", "Meadow", "Observatory"]
TAGS = ["award-winner", "classic", "debut", "illustrated", "large-print", "series", "signed", "translated"]
GENRES = ["Fiction", "Mystery", "Science", "History", "Poetry", "Travel"]


def seed() -> None:
    rng = random.Random(21)
    authors = []
    for i in range(36):
        name = f"{FIRST[i % len(FIRST)]} {LAST[(i * 7) % len(LAST)]}"
        authors.append(Author(name=name, country=rng.choice(COUNTRIES), born=rng.randint(1920, 1995)))
    tags = [Tag(name=t) for t in TAGS]
    books = []
    titles = sorted({f"The {a} {n}" for a in ADJECTIVES for n in NOUNS})
    rng.shuffle(titles)
    for i, title in enumerate(titles[:140]):
        books.append(Book(
            title=title, isbn=f"978-{rng.randint(0, 9)}-{rng.randint(10000, 99999)}-{i:03d}-{i % 10}",
            genre=rng.choice(GENRES), year=rng.randint(1950, 2025), pages=rng.randint(90, 900),
            in_stock=rng.random() > 0.15, author=rng.choice(authors), tags=rng.sample(tags, rng.randint(0, 3)),
        ))
    members = []
    for i in range(48):
        first, last = FIRST[(i * 5) % len(FIRST)], LAST[(i * 3 + 1) % len(LAST)]
        members.append(Member(name=f"{first} {last}", email=f"{first}.{last}{i}@example.org".lower(),
                              joined=date(2024, 1, 1) + timedelta(days=rng.randint(0, 600))))
    loans = [Loan(book=rng.choice(books), member=rng.choice(members),
                  due=date(2026, 11, 1) + timedelta(days=rng.randint(0, 60)), returned=rng.random() > 0.6)
             for _ in range(75)]
    db.session.add_all([*authors, *tags, *books, *members, *loans])
    db.session.commit()


def make_app(data: Path) -> Flask:
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY="corpus-flask-admin-not-secret",
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{data / 'library.db'}",
        FLASK_ADMIN_FLUID_LAYOUT=True,
    )
    db.init_app(app)
    admin = Admin(app, name="Lending Library")
    admin.add_view(BookView(Book, db.session))
    admin.add_view(AuthorView(Author, db.session))
    admin.add_view(ModelView(Tag, db.session))
    admin.add_view(MemberView(Member, db.session, category="People"))
    admin.add_view(LoanView(Loan, db.session, category="People"))

    @app.route("/")
    def index():  # type: ignore[no-untyped-def]
        return redirect(url_for("admin.index"))

    with app.app_context():
        db.create_all()
        if not Author.query.first():
            seed()
    return app


if __name__ == "__main__":
    folder, port = Path(sys.argv[1]), int(sys.argv[2])
    make_app(folder).run(host="127.0.0.1", port=port, debug=False, use_reloader=False, threaded=True)
