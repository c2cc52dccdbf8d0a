"""Settings of the corpus's Wagtail site (copied to corpussite/settings/corpus.py): the generated dev
settings, with the database and media in the run's data folder."""

import os

from .dev import *  # noqa: F403

DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["CORPUS_DB"]}}
MEDIA_ROOT = os.environ.get("CORPUS_MEDIA", "media")
WAGTAILADMIN_BASE_URL = os.environ.get("CORPUS_BASE_URL", "http://127.0.0.1:8000")
WAGTAIL_SITE_NAME = "Field Notes"
