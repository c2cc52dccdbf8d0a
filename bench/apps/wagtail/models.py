"""The page models of the corpus's Wagtail site (copied over the generated project's home/models.py):
the project template's home page, and a story page with a date, an intro, a rich-text body and tags."""

from django.db import models
from modelcluster.contrib.taggit import ClusterTaggableManager
from modelcluster.fields import ParentalKey
from taggit.models import TaggedItemBase
from wagtail.admin.panels import FieldPanel
from wagtail.fields import RichTextField
from wagtail.models import Page
from wagtail.search import index


class HomePage(Page):
    subpage_types = ["home.StoryPage"]


class StoryPageTag(TaggedItemBase):
    content_object = ParentalKey("home.StoryPage", related_name="tagged_items", on_delete=models.CASCADE)


class StoryPage(Page):
    date = models.DateField("Post date")
    intro = models.CharField(max_length=250)
    body = RichTextField(blank=True)
    tags = ClusterTaggableManager(through=StoryPageTag, blank=True)

    search_fields = [*Page.search_fields, index.SearchField("intro"), index.SearchField("body")]
    content_panels = [*Page.content_panels, FieldPanel("date"), FieldPanel("intro"), FieldPanel("body"),
                      FieldPanel("tags")]
    parent_page_types = ["home.HomePage"]
    template = "home/home_page.html"
