"""Generated photos for demo listings: a sky, the ground, a silhouette of the kind and a label.

Drawn with Pillow in memory, so the demo needs no image files in the repository
and no network; every picture is a real JPEG the website and the API can serve.
"""

import io
from dataclasses import dataclass

from PIL import Image as PillowImage
from PIL import ImageDraw, ImageFont, ImageOps

from listings.models import PropertyType

PHOTO_WIDTH = 960
PHOTO_HEIGHT = 640
JPEG_QUALITY = 80
CONTENT_TYPE = "image/jpeg"

# Sky from the top to the horizon, then the ground: midday, evening, dusk, overcast.
PALETTES: tuple[tuple[str, str, str], ...] = (
    ("#3b7dd8", "#cfe6ff", "#7fa650"),
    ("#f28c38", "#ffe0a3", "#9b8a4e"),
    ("#4b3a78", "#f2a0a0", "#5e6b3a"),
    ("#8a97a8", "#e3e7ec", "#8c9a6a"),
    ("#1f5fae", "#a8d8f0", "#c9b27c"),
)
WALL_COLOURS: tuple[str, ...] = ("#f4ead5", "#e8d1b5", "#ffffff", "#d9c7a7", "#c9d3dc")
ROOF_COLOUR = "#a2472f"
WINDOW_COLOUR = "#6d8fb3"
DARK = "#3a3a3a"


@dataclass(frozen=True, slots=True)
class Photo:
    """An encoded JPEG and its size in pixels."""

    content: bytes
    width: int
    height: int
    content_type: str = CONTENT_TYPE


def _sky_and_ground(*, palette: tuple[str, str, str], horizon: int) -> PillowImage.Image:
    # A grey ramp coloured between two tones is much faster than drawing line by line.
    ramp = PillowImage.linear_gradient("L").resize((PHOTO_WIDTH, horizon))
    sky = ImageOps.colorize(ramp, black=palette[0], white=palette[1])
    picture = PillowImage.new("RGB", (PHOTO_WIDTH, PHOTO_HEIGHT), palette[2])
    picture.paste(sky, (0, 0))
    return picture


def _windows(
    draw: ImageDraw.ImageDraw,
    *,
    box: tuple[int, int, int, int],
    columns: int,
    rows: int,
    colour: str = WINDOW_COLOUR,
) -> None:
    left, top, right, bottom = box
    cell_width = (right - left) / columns
    cell_height = (bottom - top) / rows
    for column in range(columns):
        for row in range(rows):
            x = left + column * cell_width
            y = top + row * cell_height
            draw.rectangle(
                (
                    x + cell_width * 0.25,
                    y + cell_height * 0.2,
                    x + cell_width * 0.75,
                    y + cell_height * 0.75,
                ),
                fill=colour,
            )


def _tree(draw: ImageDraw.ImageDraw, *, x: int, ground: int, size: int) -> None:
    draw.rectangle((x - size // 10, ground - size, x + size // 10, ground), fill="#6b4a2b")
    draw.ellipse((x - size // 2, ground - size * 2, x + size // 2, ground - size), fill="#3f7a3a")


def _draw_building(
    draw: ImageDraw.ImageDraw, *, kind: str, ground: int, variant: int, wall: str
) -> None:
    centre = PHOTO_WIDTH // 2 + (variant % 3 - 1) * 120
    match kind:
        case PropertyType.HOUSE:
            body = (centre - 170, ground - 190, centre + 170, ground)
            draw.rectangle(body, fill=wall)
            draw.polygon(
                [
                    (centre - 200, ground - 190),
                    (centre, ground - 320),
                    (centre + 200, ground - 190),
                ],
                fill=ROOF_COLOUR,
            )
            draw.rectangle((centre - 30, ground - 110, centre + 30, ground), fill="#7a4b2a")
            _windows(
                draw, box=(centre - 160, ground - 170, centre - 40, ground - 60), columns=1, rows=1
            )
            _windows(
                draw, box=(centre + 40, ground - 170, centre + 160, ground - 60), columns=1, rows=1
            )
            _tree(draw, x=centre + 300, ground=ground, size=90)
        case PropertyType.APARTMENT:
            body = (centre - 150, ground - 420, centre + 150, ground)
            draw.rectangle(body, fill=wall)
            _windows(
                draw, box=(centre - 140, ground - 410, centre + 140, ground - 20), columns=4, rows=7
            )
            for floor in range(1, 7):
                y = ground - 420 + floor * 56
                draw.rectangle((centre - 150, y - 6, centre + 150, y), fill=DARK)
        case PropertyType.LAND:
            for offset in (-340, -120, 160, 380):
                _tree(draw, x=centre + offset, ground=ground - 40, size=60 + (offset % 50))
            for post in range(0, PHOTO_WIDTH, 60):
                draw.rectangle((post, ground + 30, post + 6, ground + 80), fill="#8b6b45")
            draw.rectangle((0, ground + 45, PHOTO_WIDTH, ground + 50), fill="#8b6b45")
        case PropertyType.OFFICE:
            body = (centre - 120, ground - 400, centre + 120, ground)
            draw.rectangle(body, fill="#51606f")
            _windows(
                draw,
                box=(centre - 115, ground - 390, centre + 115, ground - 10),
                columns=6,
                rows=10,
                colour="#a9c6de",
            )
        case PropertyType.COMMERCIAL:
            body = (centre - 260, ground - 200, centre + 260, ground)
            draw.rectangle(body, fill=wall)
            for stripe in range(13):
                colour = "#c0392b" if stripe % 2 == 0 else "#fdfdfd"
                x = centre - 260 + stripe * 40
                draw.polygon(
                    [
                        (x, ground - 150),
                        (x + 40, ground - 150),
                        (x + 50, ground - 110),
                        (x + 10, ground - 110),
                    ],
                    fill=colour,
                )
            draw.rectangle((centre - 230, ground - 100, centre + 230, ground - 10), fill="#9fc3d9")
        case PropertyType.HOTEL:
            body = (centre - 180, ground - 440, centre + 180, ground)
            draw.rectangle(body, fill=wall)
            _windows(
                draw, box=(centre - 170, ground - 400, centre + 170, ground - 70), columns=7, rows=8
            )
            draw.rectangle((centre - 90, ground - 435, centre + 90, ground - 405), fill="#1d3557")
            draw.text(
                (centre, ground - 420),
                "HOTEL",
                fill="#ffd166",
                anchor="mm",
                font=ImageFont.load_default(size=22),
            )
            draw.rectangle((centre - 50, ground - 60, centre + 50, ground), fill="#7a4b2a")
        case _:
            # A development: the frame of a building under a tower crane.
            for floor in range(6):
                y = ground - floor * 60
                draw.rectangle((centre - 200, y - 8, centre + 200, y), fill="#9a9a9a")
            for column in range(5):
                x = centre - 200 + column * 100
                draw.rectangle((x, ground - 300, x + 10, ground), fill="#9a9a9a")
            draw.rectangle((centre + 260, ground - 400, centre + 272, ground), fill="#f2b705")
            draw.rectangle((centre - 40, ground - 400, centre + 420, ground - 388), fill="#f2b705")
            draw.line((centre + 40, ground - 388, centre + 40, ground - 320), fill=DARK, width=3)


def render_photo(*, kind: str, label: str, variant: int) -> Photo:
    """A JPEG picturing a property of this kind; `variant` changes the light and the colours."""
    palette = PALETTES[variant % len(PALETTES)]
    horizon = int(PHOTO_HEIGHT * (0.66 + 0.04 * (variant % 3)))
    picture = _sky_and_ground(palette=palette, horizon=horizon)
    draw = ImageDraw.Draw(picture)
    sun_x = 120 + (variant * 157) % (PHOTO_WIDTH - 240)
    draw.ellipse((sun_x - 40, 50, sun_x + 40, 130), fill="#fff4c2")
    wall = WALL_COLOURS[variant % len(WALL_COLOURS)]
    _draw_building(draw, kind=kind, ground=horizon + 40, variant=variant, wall=wall)
    # A dark band at the bottom keeps the label readable on any background.
    draw.rectangle((0, PHOTO_HEIGHT - 56, PHOTO_WIDTH, PHOTO_HEIGHT), fill="#202020")
    draw.text(
        (24, PHOTO_HEIGHT - 28),
        label,
        fill="#ffffff",
        anchor="lm",
        font=ImageFont.load_default(size=26),
    )
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    return Photo(content=buffer.getvalue(), width=PHOTO_WIDTH, height=PHOTO_HEIGHT)
