"""MailDev: a webmail for mail caught by its SMTP server (inbox, search, message view, delete)."""

from __future__ import annotations

import random
import smtplib
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path

from playwright.sync_api import Page

from bench.apps.base import KeyPage, NodeApp

SENDERS = [("Priya Raman", "priya@northwind.example"), ("Marcus Webb", "marcus@contoso.example"),
           ("Lena Fischer", "lena@fabrikam.example"), ("Billing", "billing@shop.example"),
           ("Calendar", "calendar@office.example"), ("Tomás Ortega", "tomas@adatum.example")]
RECIPIENTS = ["alex@example.org", "team@example.org", "ops@example.org"]
SUBJECTS = ["Q3 roadmap review: agenda for Thursday", "Your invoice #{n} is ready", "Password reset requested",
            "Welcome to the team!", "Build failed on main ({n})", "Lunch on Friday?", "Contract draft v{n}",
            "Your order has shipped", "Reminder: expense report due", "Incident report: API latency",
            "Newsletter: what's new in November", "Interview schedule for next week"]
MESSAGES = 45


def send_mail(smtp_port: int) -> None:
    rng = random.Random(21)
    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=10) as smtp:
        for i in range(MESSAGES):
            name, address = SENDERS[i % len(SENDERS)]
            subject = SUBJECTS[i % len(SUBJECTS)].format(n=1000 + i)
            msg = EmailMessage()
            msg["From"] = f"{name} <{address}>"
            msg["To"] = rng.choice(RECIPIENTS)
            msg["Subject"] = subject
            text = f"Hi,\n\n{subject}. Details below.\n\nItem {i + 1} of this week's mail.\n\n{name}\n"
            msg.set_content(text)
            if i % 3 == 0:
                msg.add_alternative(f"<p>Hi,</p><p><b>{subject}</b>. Details below.</p><p>{name}</p>", subtype="html")
            if i % 7 == 0:
                msg.add_attachment(b"date,amount\n2026-11-01,120.50\n", maintype="text", subtype="csv",
                                   filename=f"report-{i + 1}.csv")
            smtp.send_message(msg)


def listed(page: Page, base: str) -> None:
    """The inbox draws its list after loading: wait for the rows."""
    page.locator("[data-email-id]").first.wait_for()


def search_invoice(page: Page, base: str) -> None:
    box = page.get_by_placeholder("Search emails")
    box.fill("invoice")
    page.wait_for_function("document.querySelectorAll('[data-email-id]').length < 10")


def open_first(page: Page, base: str) -> None:
    page.locator("[data-email-id]").first.click()
    page.locator("[data-email-id][data-selected=true]").wait_for()


class MailDev(NodeApp):
    def command(self, data: Path, ports: Sequence[int]) -> list[str]:
        return [self.bin("maildev"), "--web", str(ports[0]), "--web-ip", "127.0.0.1", "--smtp", str(ports[1]),
                "--ip", "127.0.0.1", "--mail-directory", str(data / "mail")]

    def after_start(self, base: str, ports: Sequence[int]) -> None:
        send_mail(ports[1])


APP = MailDev(
    name="maildev",
    kind="webmail",
    about=f"MailDev's web inbox with {MESSAGES} messages sent through its SMTP port (HTML, attachments)",
    shown_versions=("maildev",),
    extra_ports=1,
    pages=(
        KeyPage("inbox", "/", "the inbox: message list, search, actions", (listed,)),
        # not the inbox's kind: MailDev opens the first row of its list as the query changes (the list as
        # it stood before the filter's answer), so a search leaves a message open beside the filtered
        # list, with its own actions and "Clear search"
        KeyPage("search", "/", "the inbox searched for 'invoice' (the message MailDev opens as the query is typed)",
                (listed, search_invoice)),
        KeyPage("message", "/", "the first message open", (listed, open_first)),
    ),
)
