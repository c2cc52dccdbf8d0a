"""Seeds a Roundup classic tracker through its own API: ``python seed.py TRACKER_DIR`` in its venv.
Four users, keywords, and 90 issues with messages, statuses, priorities and assignees."""

from __future__ import annotations

import random
import sys

from roundup import instance, password

USERS = [("alice", "Alice Moreau"), ("bob", "Bob Tanaka"), ("carol", "Carol Haddad"), ("dave", "Dave Jensen")]
PASSWORD = "corpus-tracker"
KEYWORDS = ["billing", "login", "export", "search", "performance", "docs", "mobile", "api"]
SUBJECTS = [
    "Invoice PDF shows the wrong tax rate", "Password reset mail never arrives", "CSV export drops the last row",
    "Search ignores accented letters", "Dashboard takes 12 seconds to load", "API returns 500 on empty filter",
    "Typo in the onboarding guide", "Mobile menu overlaps the logo", "Date picker starts on Sunday",
    "Session expires during long uploads", "Duplicate notifications for one comment", "Sorting by due date is off",
    "Attachment names lose their spaces", "Timezone shown as UTC in reports", "Bulk edit skips archived items",
    "Audit log misses permission changes", "Webhook retries never stop", "Avatar upload accepts 0-byte files",
]


def main(home: str) -> None:
    rng = random.Random(21)
    db = instance.open(home).open("admin")
    secret = password.Password(PASSWORD, config=db.config)
    users = [db.user.create(username=name, realname=real, address=f"{name}@example.org", password=secret,
                            roles="User") for name, real in USERS]
    keywords = [db.keyword.create(name=k) for k in KEYWORDS]
    statuses = db.status.list()
    priorities = db.priority.list()
    for i in range(90):
        subject = SUBJECTS[i % len(SUBJECTS)] + (f" ({i // len(SUBJECTS) + 1})" if i >= len(SUBJECTS) else "")
        author = rng.choice(users)
        msg = db.msg.create(content=f"Steps to reproduce:\n1. Open the page.\n2. {subject}.\n", author=author)
        db.issue.create(
            title=subject, messages=[msg], nosy=[author], status=rng.choice(statuses),
            priority=rng.choice(priorities), assignedto=rng.choice([*users, None]),
            keyword=rng.sample(keywords, rng.randint(0, 2)),
        )
    db.commit()
    db.close()


if __name__ == "__main__":
    main(sys.argv[1])
