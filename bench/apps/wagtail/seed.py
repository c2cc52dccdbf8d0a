"""Seeds the corpus's Wagtail site through Django's and Wagtail's own APIs (run by manage.py shell):
three users and 64 story pages with rich text and tags under the home page."""

import random
from datetime import date, timedelta

from django.contrib.auth.models import Group, User
from home.models import HomePage, StoryPage

PASSWORD = "corpus-cms"
PLACES = ["Harbor", "Lighthouse", "Orchard", "Glacier", "Canyon", "Marsh", "Delta", "Ridge"]
THINGS = ["Birds", "Tides", "Lichens", "Storms", "Bees", "Ferns", "Foxes", "Stars"]
TAGS = ["field-trip", "photography", "winter", "volunteers", "survey", "night", "kids"]

rng = random.Random(21)
User.objects.create_superuser("admin", "admin@example.org", PASSWORD, first_name="Ada", last_name="Admin")
editors = Group.objects.get(name="Editors")
for name, first in (("priya", "Priya"), ("marcus", "Marcus")):
    user = User.objects.create_user(name, f"{name}@example.org", PASSWORD, first_name=first, last_name="Editor")
    user.groups.add(editors)

home = HomePage.objects.first()
for i in range(64):
    place, thing = PLACES[i % len(PLACES)], THINGS[(i * 3) % len(THINGS)]
    title = f"{thing} of the {place}" + (f" ({i // 32 + 1})" if i >= 32 else "")
    story = StoryPage(
        title=title, date=date(2026, 1, 5) + timedelta(days=i * 4), intro=f"Notes from a day at the {place.lower()}.",
        body=f"<p>We counted <b>{rng.randint(3, 90)}</b> {thing.lower()} near the {place.lower()}.</p>",
    )
    home.add_child(instance=story)
    story.tags.add(*rng.sample(TAGS, rng.randint(1, 3)))
    revision = story.save_revision()
    if i % 5 != 4:  # every fifth story stays a draft
        revision.publish()
