"""Screenshots fitted for a model: crop, scale down only, encode, and step down to a byte limit."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from tabmcp.page.images import ImageError, decode_base64, encode_base64, fit_image


def encoded(image: Image.Image, fmt: str = "PNG", **options: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def colors(image: Image.Image) -> set[object]:
    return {color for _, color in image.getcolors(maxcolors=image.width * image.height) or []}


def target_image(width: int = 400, height: int = 300) -> Image.Image:
    """White, with a red block at (100, 50)-(199, 149) and a blue one at the bottom right corner."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((100, 50, 199, 149), fill=(255, 0, 0))
    draw.rectangle((width - 20, height - 20, width - 1, height - 1), fill=(0, 0, 255))
    return image


def noise(width: int, height: int) -> Image.Image:
    """Incompressible pixels, to push an encoding over a byte limit."""
    channels = [Image.effect_noise((width, height), 120 + 10 * i) for i in range(3)]
    return Image.merge("RGB", channels)


def test_a_small_image_in_the_requested_format_passes_through_untouched() -> None:
    data = encoded(target_image())
    fitted = fit_image(data, fmt="png")
    assert fitted.data == data
    assert (fitted.mime_type, fitted.width, fitted.height, fitted.scaled) == ("image/png", 400, 300, False)
    assert (fitted.original_width, fitted.original_height, fitted.converted, fitted.clip) == (400, 300, False, None)


def test_a_large_image_is_scaled_so_the_long_side_fits_keeping_the_aspect_ratio() -> None:
    data = encoded(Image.new("RGB", (3000, 1000), "white"))
    fitted = fit_image(data, fmt="png")
    assert (fitted.width, fitted.height, fitted.scaled) == (2000, 667, True)
    assert (fitted.original_width, fitted.original_height) == (3000, 1000)
    assert opened(fitted.data).size == (2000, 667)
    tall = fit_image(encoded(Image.new("RGB", (500, 4000), "white")), fmt="jpeg", max_side=800)
    assert (tall.width, tall.height, tall.mime_type) == (100, 800, "image/jpeg")
    assert opened(tall.data).format == "JPEG"


def test_never_scaled_up() -> None:
    fitted = fit_image(encoded(target_image(100, 50)), fmt="jpeg", max_side=2000)
    assert (fitted.width, fitted.height, fitted.scaled) == (100, 50, False)


def test_clip_crops_first() -> None:
    fitted = fit_image(encoded(target_image()), fmt="png", clip=(100, 50, 100, 100))
    image = opened(fitted.data).convert("RGB")
    assert image.size == (100, 100) and fitted.clip == (100, 50, 100, 100)
    assert colors(image) == {(255, 0, 0)}
    assert (fitted.original_width, fitted.original_height, fitted.scaled) == (400, 300, False)


def test_clip_is_clamped_to_the_image_and_widened_to_whole_pixels() -> None:
    data = encoded(target_image())
    corner = fit_image(data, fmt="png", clip={"x": 380, "y": 280, "width": 500, "height": 500})
    assert corner.clip == (380, 280, 20, 20)
    assert colors(opened(corner.data).convert("RGB")) == {(0, 0, 255)}
    fractional = fit_image(data, fmt="png", clip=(-10.5, 99.5, 20.2, 0.6))
    assert fractional.clip == (0, 99, 10, 2)  # y 99.5 to 100.1 touches rows 99 and 100


def test_clip_then_scale() -> None:
    fitted = fit_image(encoded(target_image()), fmt="png", clip=(0, 0, 400, 200), max_side=100)
    assert (fitted.width, fitted.height, fitted.scaled, fitted.clip) == (100, 50, True, (0, 0, 400, 200))


@pytest.mark.parametrize("clip", [(500, 0, 10, 10), (0, 0, 0, 10), (10, 10, -5, 5), (float("nan"), 0, 1, 1)])
def test_a_clip_outside_the_image_is_an_error(clip: tuple[float, float, float, float]) -> None:
    with pytest.raises(ImageError, match="clip"):
        fit_image(encoded(target_image()), fmt="png", clip=clip)


def test_jpeg_from_a_transparent_png_lies_on_white() -> None:
    image = Image.new("RGBA", (50, 50), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((0, 0, 24, 49), fill=(0, 128, 0, 255))
    fitted = fit_image(encoded(image), fmt="jpeg")
    out = opened(fitted.data).convert("RGB")
    assert (fitted.mime_type, fitted.quality, fitted.converted) == ("image/jpeg", 80, False)
    red, green, blue = out.getpixel((45, 25))
    assert min(red, green, blue) > 240  # was transparent
    red, green, blue = out.getpixel((5, 25))
    assert green > 100 and red < 40 and blue < 40


def test_a_requested_quality_is_used() -> None:
    data = encoded(noise(200, 200))
    low = fit_image(data, fmt="jpeg", quality=20)
    high = fit_image(data, fmt="jpeg", quality=95)
    assert (low.quality, high.quality) == (20, 95)
    assert len(low.data) < len(high.data)


def test_a_jpeg_over_the_limit_steps_quality_down_before_size() -> None:
    data = encoded(noise(400, 400))
    at_80 = len(fit_image(data, fmt="jpeg").data)
    fitted = fit_image(data, fmt="jpeg", max_bytes=at_80 - 1)
    assert len(fitted.data) <= at_80 - 1
    assert fitted.quality is not None and fitted.quality < 80
    assert (fitted.width, fitted.height, fitted.scaled) == (400, 400, False)
    tiny = fit_image(data, fmt="jpeg", max_bytes=8_000)
    assert len(tiny.data) <= 8_000
    assert tiny.quality == 40 and tiny.scaled and tiny.width < 400
    assert opened(tiny.data).size == (tiny.width, tiny.height)


def test_a_png_that_cannot_fit_is_sent_as_jpeg_and_says_so() -> None:
    data = encoded(noise(300, 300))
    assert len(data) > 100_000
    fitted = fit_image(data, fmt="png", max_bytes=100_000)
    assert (fitted.mime_type, fitted.fmt, fitted.converted) == ("image/jpeg", "jpeg", True)
    assert len(fitted.data) <= 100_000
    assert opened(fitted.data).format == "JPEG"


def test_a_png_that_fits_after_scaling_stays_png() -> None:
    data = encoded(Image.new("RGB", (4000, 4000), "white"))
    fitted = fit_image(data, fmt="png", max_bytes=200_000)
    assert (fitted.mime_type, fitted.converted, fitted.width) == ("image/png", False, 2000)


def test_undecodable_data_is_a_clear_error() -> None:
    for data in (b"", b"not an image", encoded(target_image())[:100]):
        with pytest.raises(ImageError, match="not a decodable image"):
            fit_image(data, fmt="png")


def test_a_limit_nothing_can_meet_is_an_error() -> None:
    with pytest.raises(ImageError, match="cannot be made to fit in 50 bytes"):
        fit_image(encoded(target_image()), fmt="jpeg", max_bytes=50)


@pytest.mark.parametrize(
    "options",
    [{"fmt": "gif"}, {"fmt": "png", "quality": 0}, {"fmt": "jpeg", "quality": 101}, {"fmt": "png", "max_side": 0}],
)
def test_bad_arguments(options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        fit_image(encoded(target_image()), **options)  # type: ignore[arg-type]


def test_base64_helpers() -> None:
    data = encoded(target_image())
    text = encode_base64(data)
    assert decode_base64(text) == data
    assert decode_base64("data:image/png;base64," + text) == data
    assert fit_image(decode_base64(text), fmt="png").data == data
    for bad in ("not base64!", "abc"):
        with pytest.raises(ImageError, match="base64"):
            decode_base64(bad)
