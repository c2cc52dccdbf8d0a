"""Screenshots made fit for a model (docs/page-agent.md §8): cropped, at most 2000 px a side, at most 5 MB.

Clients reject or silently shrink bigger images (and pay for every pixel), so the server decides the
size, not the page. Pure: bytes in, bytes out, with Pillow.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from PIL import Image, UnidentifiedImageError

from tabmcp.page import marks as set_of_marks

__all__ = ["FittedImage", "ImageError", "decode_base64", "encode_base64", "fit_image"]

ImageFormat = Literal["png", "jpeg"]
Clip = tuple[float, float, float, float] | Mapping[str, float]

DEFAULT_QUALITY = 80
# JPEG qualities tried, in order, below the requested one before the image is made smaller.
QUALITY_STEPS = (70, 60, 50, 40)
# Each size step keeps this share of each side (about half the pixels).
SIZE_STEP = 0.7
_MIME = {"png": "image/png", "jpeg": "image/jpeg"}


class ImageError(ValueError):
    """Bytes that are not an image Pillow can decode, or a request that cannot be met (an empty clip,
    a byte limit no image can meet)."""


@dataclass(frozen=True, slots=True)
class FittedImage:
    """The image to send. ``original_*`` is the decoded input; ``clip`` the crop applied (x, y, width,
    height in input px, after clamping), if any; ``scaled`` says it was made smaller than the crop;
    ``converted`` that a PNG was sent as JPEG to fit ``max_bytes`` (``fmt`` is what was sent);
    ``marks`` the marks drawn, in px of the image sent."""

    data: bytes
    mime_type: str
    width: int
    height: int
    original_width: int
    original_height: int
    scaled: bool
    fmt: ImageFormat = "png"
    quality: int | None = None
    converted: bool = False
    clip: tuple[int, int, int, int] | None = None
    marks: tuple[set_of_marks.Mark, ...] = ()


def fit_image(
    data: bytes,
    *,
    fmt: ImageFormat,
    max_side: int = 2000,
    max_bytes: int = 5_000_000,
    quality: int | None = None,
    clip: Clip | None = None,
    marks: Sequence[set_of_marks.Mark] = (),
) -> FittedImage:
    """Crop to ``clip``, scale down (never up) so the long side is at most ``max_side``, draw ``marks``
    (boxes in input px) on it, encode as ``fmt``.

    When the result is over ``max_bytes``: a JPEG steps its quality down (QUALITY_STEPS), then its size
    (SIZE_STEP per step); a PNG is converted to JPEG and does the same. An input in the requested format
    that needs no crop, no scaling and is small enough is returned as it is (re-encoding only costs).
    Raises ImageError for undecodable data, a clip outside the image, or a limit nothing can meet.
    """
    if fmt not in _MIME:
        raise ValueError(f"fmt must be 'png' or 'jpeg', not {fmt!r}")
    if max_side < 1 or max_bytes < 1:
        raise ValueError("max_side and max_bytes must be positive")
    if quality is not None and not 1 <= quality <= 100:
        raise ValueError(f"quality must be between 1 and 100, not {quality}")
    image = _decode(data)
    source_format = (image.format or "").lower()
    original = image.size
    box = _clip_box(clip, original) if clip is not None else None
    if box is not None and box != (0, 0, *original):
        image = image.crop((box[0], box[1], box[0] + box[2], box[1] + box[3]))
    cropped = image.size
    target = _scaled_size(cropped, max_side)
    crop = box or (0, 0, *original)
    factor = (target[0] / cropped[0], target[1] / cropped[1])
    drawn = tuple(set_of_marks.moved(marks, crop=crop, factor=factor, size=target))

    def result(payload: bytes, size: tuple[int, int], sent: ImageFormat, q: int | None) -> FittedImage:
        return FittedImage(
            data=payload,
            mime_type=_MIME[sent],
            width=size[0],
            height=size[1],
            original_width=original[0],
            original_height=original[1],
            scaled=size != cropped,
            fmt=sent,
            quality=q,
            converted=sent != fmt,
            clip=box,
            marks=drawn if size == target else _resized_marks(drawn, target, size),
        )

    if source_format == fmt and cropped == original and target == cropped and len(data) <= max_bytes and not drawn:
        return result(data, cropped, fmt, None)

    if target != cropped:
        image = image.resize(target, Image.Resampling.LANCZOS)
    image = set_of_marks.draw(image, drawn)
    if fmt == "png":
        payload = _encode(image, "png", None)
        if len(payload) <= max_bytes:
            return result(payload, target, "png", None)
    start = quality or DEFAULT_QUALITY
    qualities = [start, *(q for q in QUALITY_STEPS if q < start)]
    rgb = _to_rgb(image)
    for q in qualities:
        payload = _encode(rgb, "jpeg", q)
        if len(payload) <= max_bytes:
            return result(payload, rgb.size, "jpeg", q)
    q = qualities[-1]
    while rgb.width > 1 or rgb.height > 1:
        size = (max(1, math.floor(rgb.width * SIZE_STEP)), max(1, math.floor(rgb.height * SIZE_STEP)))
        rgb = rgb.resize(size, Image.Resampling.LANCZOS)
        payload = _encode(rgb, "jpeg", q)
        if len(payload) <= max_bytes:
            return result(payload, rgb.size, "jpeg", q)
    raise ImageError(f"the image cannot be made to fit in {max_bytes} bytes")


def _resized_marks(
    marks: tuple[set_of_marks.Mark, ...], drawn_on: tuple[int, int], size: tuple[int, int]
) -> tuple[set_of_marks.Mark, ...]:
    """Where marks drawn on an image of ``drawn_on`` px are once it is resized to ``size`` (a JPEG made
    smaller to fit the byte limit)."""
    factor = (size[0] / drawn_on[0], size[1] / drawn_on[1])
    return tuple(set_of_marks.moved(marks, crop=(0, 0, *drawn_on), factor=factor, size=size))


def decode_base64(data: str) -> bytes:
    """The wire's base64 image (a ``data:`` URL prefix, as captureVisibleTab gives, is accepted)."""
    if not isinstance(data, str):
        raise ImageError(f"the screenshot data must be base64 text, not {type(data).__name__}")
    if data.startswith("data:"):
        data = data.partition(",")[2]
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ImageError(f"the screenshot data is not valid base64 ({error})") from None


def encode_base64(data: bytes) -> str:
    """Base64 text for MCP image content."""
    return base64.b64encode(data).decode("ascii")


def _decode(data: bytes) -> Image.Image:
    try:
        with warnings.catch_warnings():
            # A full-page screenshot can be large; past twice the limit Pillow raises, handled below.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            image.load()
    except Image.DecompressionBombError as error:
        raise ImageError(f"the screenshot is too large to decode: {error}") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as error:
        raise ImageError(f"the screenshot data is not a decodable image ({type(error).__name__}: {error})") from None
    return image


def _clip_box(clip: Clip, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """``clip`` clamped to the image, widened to whole pixels: (x, y, width, height)."""
    if isinstance(clip, Mapping):
        try:
            x, y, w, h = (float(clip[k]) for k in ("x", "y", "width", "height"))
        except KeyError as missing:
            raise ImageError(f"clip needs x, y, width and height; {missing} is missing") from None
    else:
        x, y, w, h = (float(v) for v in clip)
    if not all(math.isfinite(v) for v in (x, y, w, h)):
        raise ImageError("clip values must be finite numbers")
    left, top = max(0, math.floor(x)), max(0, math.floor(y))
    right, bottom = min(size[0], math.ceil(x + w)), min(size[1], math.ceil(y + h))
    if right <= left or bottom <= top:
        raise ImageError(
            f"the clip ({x:g}, {y:g}, {w:g}×{h:g}) lies outside the {size[0]}×{size[1]} image (is the element visible?)"
        )
    return left, top, right - left, bottom - top


def _scaled_size(size: tuple[int, int], max_side: int) -> tuple[int, int]:
    """``size`` scaled down so the long side is ``max_side``, keeping the aspect ratio; never up."""
    width, height = size
    long_side = max(width, height)
    if long_side <= max_side:
        return size
    factor = max_side / long_side
    return max(1, round(width * factor)), max(1, round(height * factor))


def _to_rgb(image: Image.Image) -> Image.Image:
    """JPEG has no alpha: transparency is composed onto white, as a page background would be."""
    if image.mode == "RGB":
        return image
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def _encode(image: Image.Image, fmt: ImageFormat, quality: int | None) -> bytes:
    buffer = io.BytesIO()
    if fmt == "png":
        if image.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
            image = image.convert("RGBA")
        # zlib's default level: optimize=True took three times as long for 0.3 % fewer bytes (screenshots).
        image.save(buffer, format="PNG", compress_level=6)
    else:
        image.save(buffer, format="JPEG", quality=quality or DEFAULT_QUALITY, optimize=True)
    return buffer.getvalue()
