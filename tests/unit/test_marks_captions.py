"""Set-of-marks drawn with Pillow and the caption beside a screenshot: pure, no browser."""

from __future__ import annotations

import io

from PIL import Image

from tabmcp.drivers.session.observe import describe_shot, viewport_scale
from tabmcp.page.captions import caption
from tabmcp.page.images import fit_image
from tabmcp.page.marks import COLOURS, LISTED_MAX, Mark, draw, listing, moved, place


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


SAVE = {"ref": "e3", "role": "button", "name": "Save", "x": 100, "y": 100, "width": 120, "height": 40}


def test_place_maps_css_px_to_image_px_and_clips() -> None:
    found = [
        SAVE,
        {"ref": "e4", "role": "link", "name": "Far", "x": 100, "y": 900, "width": 50, "height": 20},  # below it
        {"ref": "e5", "role": "link", "name": "Edge", "x": 390, "y": -10, "width": 40, "height": 30},  # cut
        {"ref": "", "role": "button", "name": "No ref", "x": 0, "y": 0, "width": 9, "height": 9},
        {"ref": "e6", "role": "button", "name": "Broken", "x": "left"},
    ]
    marks = place(found, origin=(0, 0), scale=2, size=(800, 600))
    assert marks == [
        Mark("e3", "button", "Save", (200.0, 200.0, 240.0, 80.0)),
        Mark("e5", "link", "Edge", (780.0, 0.0, 20.0, 40.0)),
    ]
    # an image of the page from (100, 80) on (an element's crop, a full page from further down)
    assert place([SAVE], origin=(100, 80), scale=1, size=(300, 300))[0].box == (0.0, 20.0, 120.0, 40.0)


def test_moved_follows_a_crop_and_a_resize() -> None:
    mark = Mark("e3", "button", "Save", (200.0, 200.0, 240.0, 80.0))
    assert moved([mark], crop=(100, 100, 400, 400), factor=(0.5, 0.5), size=(200, 200)) == [
        Mark("e3", "button", "Save", (50.0, 50.0, 120.0, 40.0))
    ]
    assert moved([mark], crop=(600, 0, 100, 100), factor=(1, 1), size=(100, 100)) == []  # cropped away


def test_draw_outlines_the_box_and_labels_it_above() -> None:
    image = Image.new("RGB", (400, 300), "white")
    marked = draw(image.copy(), [Mark("e3", "button", "Save", (100.0, 100.0, 120.0, 40.0))])
    assert marked.getpixel((100, 120)) == COLOURS[0]  # the left edge of the outline
    assert marked.getpixel((219, 120)) == COLOURS[0]  # the right edge
    assert marked.getpixel((150, 120)) == (255, 255, 255)  # inside stays as it was: the element shows
    label = marked.crop((100, 80, 130, 100))
    assert COLOURS[0] in {c for _, c in label.getcolors(4096) or []}  # the label's fill above the box
    assert (255, 255, 255) in {c for _, c in label.getcolors(4096) or []}  # and its white text
    assert marked.getpixel((300, 250)) == (255, 255, 255)
    # at the top edge the label goes inside; at the right edge it stays on the image
    top = draw(Image.new("RGB", (400, 300), "white"), [Mark("e10", "link", "", (385.0, 0.0, 15.0, 10.0))])
    assert top.getpixel((399, 1)) != (255, 255, 255)
    assert draw(image, []) is image


def test_draw_takes_a_palette_image() -> None:
    marked = draw(Image.new("P", (50, 50)), [Mark("e1", "button", "A", (5.0, 20.0, 20.0, 20.0))])
    assert marked.mode == "RGB" and marked.getpixel((5, 30)) == COLOURS[0]


def test_fit_image_draws_after_cropping_and_scaling() -> None:
    source = png(Image.new("RGB", (4000, 2000), "white"))
    mark = Mark("e3", "button", "Save", (2000.0, 1000.0, 400.0, 200.0))
    fitted = fit_image(source, fmt="png", max_side=2000, marks=[mark])
    assert (fitted.width, fitted.height) == (2000, 1000) and fitted.scaled
    assert fitted.marks == (Mark("e3", "button", "Save", (1000.0, 500.0, 200.0, 100.0)),)
    image = opened(fitted.data)
    assert image.getpixel((1000, 550)) == COLOURS[0] and image.getpixel((1100, 550)) == (255, 255, 255)
    # cropped to the element: the mark moves with the crop, one outside it is not drawn
    other = Mark("e4", "link", "Other", (0.0, 0.0, 50.0, 50.0))
    cropped = fit_image(source, fmt="png", clip=(1900, 900, 600, 400), marks=[mark, other])
    assert cropped.marks == (Mark("e3", "button", "Save", (100.0, 100.0, 400.0, 200.0)),)
    assert opened(cropped.data).getpixel((100, 150)) == COLOURS[0]
    # without marks an image that fits is sent as it came
    assert fit_image(source, fmt="png", max_side=4000).data == source
    assert fit_image(source, fmt="png", max_side=4000, marks=[mark]).data != source


def test_listing_names_the_marks_capped() -> None:
    marks = [Mark(f"e{i}", "link", f"Link {i}", (0.0, 0.0, 5.0, 5.0)) for i in range(1, LISTED_MAX + 6)]
    text = listing(marks, total=400)
    lines = text.split("\n")
    assert lines[0] == f"marks: {LISTED_MAX + 5} of 400 (ref role name, as in snapshot)"
    assert lines[1] == 'e1 link "Link 1"' and len(lines) == LISTED_MAX + 2
    assert lines[-1] == "… 5 more drawn: take a snapshot for the rest"
    box = (0.0, 0.0, 5.0, 5.0)
    long = listing([Mark("e1", "button", "x" * 100, box), Mark("f1e2", "textbox", "", box)], 0)
    assert long.split("\n")[1] == 'e1 button "' + "x" * 59 + '…"'
    assert long.split("\n")[2] == "f1e2 textbox"
    assert listing([], 0) == "marks: none (no interactive element on this image)"


def test_captions_say_what_where_and_how_big() -> None:
    area = {"x": 0, "y": 300, "width": 1280, "height": 720}
    assert caption(
        "viewport", width=1280, height=720, mime_type="image/png", url="https://shop.example/", title="Shop", area=area
    ) == 'viewport of "Shop" https://shop.example/: 1280x720 image/png, page area x 0-1280, y 300-1020 CSS px'
    element = {"ref": "f1e5", "role": "button", "name": "Add  to\ncart"}
    line = caption(
        "element", width=60, height=20, mime_type="image/png", url="https://shop.example/", element=element,
        area={"x": 10.4, "y": 20, "width": 120, "height": 40},
    )
    assert line == (
        'element f1e5 button "Add to cart" on https://shop.example/: 60x20 image/png, '
        "page area x 10-130, y 20-60 CSS px"
    )
    full = caption(
        "full", width=1000, height=2000, mime_type="image/jpeg", title="T" * 100, scaled_from=(1280, 2560),
        converted_under=5_000_000,
    )
    assert full == (
        f'full page of "{"T" * 79}…": 1000x2000 image/jpeg, scaled from 1280x2560, '
        "sent as JPEG to stay under 5000000 bytes"
    )
    assert caption("viewport", width=5, height=5, mime_type="image/png", area={"x": "?"}) == "viewport: 5x5 image/png"


def test_the_session_places_marks_by_scroll_position_and_pixel_ratio() -> None:
    view = {
        "url": "http://x/", "title": "X", "dpr": 2, "scroll": {"x": 0, "y": 300},
        "viewport": {"width": 640, "height": 360}, "marks": [SAVE], "total": 5,
    }
    image = {"data": "", "mimeType": "image/png", "width": 1280, "height": 720}
    # a viewport capture at device pixel ratio 2, scrolled 300 px down
    area = {"x": 0, "y": 300, "width": 640, "height": 360}
    shot = describe_shot(image, view, area, viewport_scale(view, image), marks=True)
    assert shot["marks"][0] == {**SAVE, "x": 200.0, "y": 200.0, "width": 240.0, "height": 80.0}
    assert shot["area"] == area and shot["marksTotal"] == 5 and shot["title"] == "X"
    # the whole page at one image px per CSS px: the same button is 300 px further down
    page = describe_shot(image, view, {"x": 0, "y": 0, "width": 1280, "height": 3000}, 1.0, marks=True)
    assert (page["marks"][0]["x"], page["marks"][0]["y"]) == (100.0, 400.0)
    # an element's crop of the viewport image: placed on the uncropped image, whose top left is the scroll
    element = {"x": 90, "y": 390, "width": 140, "height": 60}
    crop = describe_shot({**image, "origin": {"x": 0, "y": 300}}, view, element, 2.0, marks=True)
    assert (crop["marks"][0]["x"], crop["marks"][0]["y"]) == (200.0, 200.0) and "origin" not in crop
    assert "marks" not in describe_shot(image, view, area, 2.0, marks=False)
    assert viewport_scale({**view, "dpr": 0}, image) == 2.0  # no ratio given: the image's width over the viewport's
