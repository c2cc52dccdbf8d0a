"""Seeds An Otter Wiki through its own storage and user code: ``python seed.py DATA_DIR`` in its venv
(``OTTERWIKI_SETTINGS`` already points at DATA_DIR/settings.cfg). Two users and a small team handbook."""

from __future__ import annotations

import importlib
import sys

USERS = [("ada@example.org", "Ada Lindqvist", "corpus-wiki"), ("ben@example.org", "Ben Okafor", "corpus-wiki")]

TOPICS = {
    "Handbook/Onboarding": "Your first week: accounts, the laptop, who to ask. Pair with a buddy for the first "
    "three days and read the [[Handbook/Code Review]] guide before your first pull request.",
    "Handbook/Code Review": "Every change gets one approving review. Reviewers answer within one working day; "
    "authors keep pull requests under 400 lines. Use suggestions for small fixes.",
    "Handbook/On-call": "The on-call rotation is weekly, Monday 10:00 to Monday 10:00. Pages go to the "
    "primary first, then the secondary after 15 minutes. See [[Runbooks/Database Failover]].",
    "Handbook/Travel": "Book trains over flights under six hours. Expenses are filed within 30 days.",
    "Handbook/Holidays": "25 days a year plus public holidays; tell your team a month ahead for long breaks.",
    "Runbooks/Database Failover": "1. Check replication lag on the replica.\n2. Promote the replica.\n"
    "3. Point the app's DATABASE_URL at the new primary.\n4. Rebuild the old primary as a replica.",
    "Runbooks/Certificate Renewal": "Certificates renew automatically 30 days before expiry. When renewal "
    "fails, run the renewal job by hand and check the DNS challenge records.",
    "Runbooks/Disk Full": "Find the largest folders with `du -sh /var/*`, rotate logs, then grow the volume.",
    "Runbooks/Cache Flush": "Flush one key space at a time; a full flush doubles database load for an hour.",
    "Projects/Harbor": "Harbor is the new billing service. Milestone 1: invoices. Milestone 2: refunds. "
    "Owner: Ada Lindqvist. Status: in progress.",
    "Projects/Lighthouse": "Lighthouse monitors uptime for customer sites. Status: shipped in March.",
    "Projects/Orchard": "Orchard replaces the nightly batch import with a stream. Status: design review.",
    "Projects/Compass": "Compass is the internal search across tickets and docs. Status: paused.",
    "Meetings/2026-10-05 Planning": "Agreed: Harbor invoices first; Orchard design review on the 19th.",
    "Meetings/2026-10-19 Design Review": "Orchard: streaming approved; open question on back-pressure.",
    "Meetings/2026-11-02 Retro": "Went well: on-call handovers. To improve: flaky integration tests.",
    "Glossary": "**SLO**: service level objective. **RTO**: recovery time objective. **Runbook**: a "
    "step-by-step guide for one operational task.",
    "Contacts": "| Team | Channel | Lead |\n|---|---|---|\n| Platform | #platform | Ada Lindqvist |\n"
    "| Billing | #billing | Ben Okafor |\n| Data | #data | Chiara Rossi |",
}


def main() -> None:
    # the server module first: it sets up what the auth module imports
    server = importlib.import_module("otterwiki.server")
    app, storage = server.app, server.storage
    from otterwiki.auth import auth_manager

    with app.test_request_context():  # create_user may toast, which needs a request
        for email, name, password in USERS:  # the first user becomes the admin
            auth_manager.create_user(email, name, password)
    home = "# Team Wiki\n\nWelcome to the team wiki. Start with [[Handbook/Onboarding]].\n\n" + "\n".join(
        f"- [[{title}]]" for title in TOPICS
    )
    storage.store("home.md", home, message="Home page", author=(USERS[0][1], USERS[0][0]))
    for i, (title, text) in enumerate(TOPICS.items()):
        email, name, _ = USERS[i % len(USERS)]
        body = f"# {title.rsplit('/', 1)[-1]}\n\n{text}\n"
        storage.store(f"{title.lower()}.md", body, message=f"Add {title}", author=(name, email))


if __name__ == "__main__":
    sys.exit(main())
