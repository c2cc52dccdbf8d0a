"""The shop database sqlite-web browses: customers, products, orders and their items, with foreign keys."""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta
from pathlib import Path

FIRST = ["Amara", "Bruno", "Carmen", "Dario", "Emil", "Fatima", "Gustav", "Hana", "Igor", "Julia", "Kofi", "Leila",
         "Mateo", "Nora", "Oskar", "Priya", "Rafael", "Sofia", "Tomas", "Ulla", "Vera", "Yusuf", "Zoe", "Anton"]
LAST = ["Abbott", "Berger", "Costa", "Duarte", "Engel", "Ferreira", "Grant", "Holm", "Ito", "Jovanovic", "Keller",
        "Lopez", "Mendes", "Novak", "Ortiz", "Park", "Reyes", "Schmidt", "Torres", "Vogel"]
CITIES = ["Lisbon", "Porto", "Madrid", "Lyon", "Turin", "Graz", "Ghent", "Utrecht", "Aarhus", "Tampere"]
CATEGORIES = {"Tea": ["Sencha", "Assam", "Darjeeling", "Rooibos", "Oolong", "Earl Grey", "Chai", "Matcha"],
              "Coffee": ["Espresso Blend", "Colombia Huila", "Ethiopia Guji", "Decaf House", "Brazil Cerrado"],
              "Kitchen": ["Kettle", "Grinder", "Pour-over Cone", "Teapot", "Scale", "Milk Frother"],
              "Snacks": ["Almond Biscotti", "Oat Cookies", "Dark Chocolate", "Ginger Snaps"]}
STATUSES = ["placed", "paid", "shipped", "delivered", "cancelled"]

SCHEMA = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, city TEXT,
  joined DATE);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, price REAL NOT NULL,
  stock INTEGER NOT NULL DEFAULT 0);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
  placed DATE NOT NULL, status TEXT NOT NULL);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL);
CREATE INDEX orders_customer ON orders(customer_id);
CREATE VIEW order_totals AS SELECT o.id AS order_id, c.name AS customer, SUM(i.quantity * p.price) AS total
  FROM orders o JOIN customers c ON c.id = o.customer_id JOIN order_items i ON i.order_id = o.id
  JOIN products p ON p.id = i.product_id GROUP BY o.id;
"""


def seed(path: Path) -> None:
    rng = random.Random(21)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    customers = []
    for i in range(180):
        first, last = FIRST[i % len(FIRST)], LAST[(i * 7 + i // len(FIRST)) % len(LAST)]
        customers.append((i + 1, f"{first} {last}", f"{first}.{last}.{i + 1}@example.net".lower(), rng.choice(CITIES),
                          (date(2023, 1, 1) + timedelta(days=rng.randint(0, 900))).isoformat()))
    db.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?)", customers)
    products = []
    for category, names in CATEGORIES.items():
        for name in names:
            for size in ("100 g", "250 g") if category in ("Tea", "Coffee") else ("",):
                products.append((len(products) + 1, f"{name} {size}".strip(), category,
                                 round(rng.uniform(3, 60), 2), rng.randint(0, 120)))
    db.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?)", products)
    orders, items = [], []
    for i in range(420):
        orders.append((i + 1, rng.randint(1, len(customers)),
                       (date(2025, 1, 1) + timedelta(days=rng.randint(0, 600))).isoformat(), rng.choice(STATUSES)))
        for _ in range(rng.randint(1, 4)):
            items.append((len(items) + 1, i + 1, rng.randint(1, len(products)), rng.randint(1, 5)))
    db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)", orders)
    db.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?)", items)
    db.commit()
    db.close()
