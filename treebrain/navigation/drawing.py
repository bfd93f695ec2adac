"""Pictures of a mission with Pillow (opencv would pull in a numpy the simulators cannot use):

- the top-down frame of ``--gif`` and the viewer: the true map, what the robot has seen, its
  trail, the LiDAR returns, the frontiers, the base and its heading, and the control tier;
- the first-person camera image the LLM may be sent (seed §2.2): walls drawn from the scan by ray
  casting, annotated with the heading, sector distances and depth values at seven points.
"""

from __future__ import annotations

import io
import math

import numpy as np
from PIL import Image, ImageDraw

from treebrain.navigation.mission import Mission
from treebrain.navigation.motion import cardinal, whole_degrees
from treebrain.robots.mobile.camera import first_person_view, range_at
from treebrain.robots.mobile.lidar import Scan
from treebrain.robots.mobile.maps import FREE, OCCUPIED, OccupancyMap
from treebrain.robots.mobile.observation import MobileObservation

MAX_PIXELS = 640
DEPTH_POINTS = ((0.5, 0.5), (0.25, 0.5), (0.75, 0.5), (0.5, 0.83), (0.25, 0.25), (0.75, 0.25), (0.5, 0.2))
"""Where the seed samples depth on a 640 x 480 image, as fractions of width and height."""


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def draw_mission(
    mission: Mission, seen: MobileObservation, world: OccupancyMap, tier: str, max_pixels: int = MAX_PIXELS
) -> bytes:
    """The top-down frame as PNG bytes, scaled up by whole pixels to at most `max_pixels` a side
    (never below one pixel a cell)."""
    rows, columns = world.shape
    scale = max(1, max_pixels // max(rows, columns))
    known = mission.explored.cells
    picture = np.full((rows, columns, 3), 205, dtype=np.uint8)
    picture[world.cells == FREE] = (235, 235, 235)
    picture[known == FREE] = (255, 255, 255)
    picture[world.cells == OCCUPIED] = (60, 60, 60)
    for frontier in mission.frontiers:
        for row, column in frontier.cells:
            picture[row, column] = (40, 160, 40)
    image = Image.fromarray(picture[::-1]).resize((columns * scale, rows * scale), Image.Resampling.NEAREST)
    draw = ImageDraw.Draw(image)

    def pixel(x: float, y: float) -> tuple[float, float]:
        row, column = (y - world.origin[1]) / world.resolution, (x - world.origin[0]) / world.resolution
        return column * scale, (rows - row) * scale

    trail = [pixel(x, y) for x, y in mission.memory.trail] + [pixel(seen.pose.x, seen.pose.y)]
    if len(trail) > 1:
        draw.line(trail, fill=(30, 90, 220), width=max(1, scale))
    pose = seen.pose
    for distance, angle in zip(seen.scan.ranges, seen.scan.angles, strict=True):
        if math.isfinite(distance):
            px, py = pixel(
                pose.x + distance * math.cos(pose.heading + angle),
                pose.y + distance * math.sin(pose.heading + angle),
            )
            draw.point((px, py), fill=(220, 40, 40))
    cx, cy = pixel(pose.x, pose.y)
    radius = max(3, 0.2 / world.resolution * scale)
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), outline=(0, 0, 0), width=2)
    tip = pixel(pose.x + 0.4 * math.cos(pose.heading), pose.y + 0.4 * math.sin(pose.heading))
    draw.line((cx, cy, *tip), fill=(0, 0, 0), width=2)
    label = f"t {seen.time_s:5.0f} s  coverage {mission.coverage():4.0%}  tier {tier or mission.settings.mode}  collisions {seen.collisions}"
    draw.rectangle((0, 0, image.width, 14), fill=(255, 255, 255))
    draw.text((4, 1), label, fill=(0, 0, 0))
    return _png(image)


def camera_image(
    scan: Scan, heading: float, width: int, height: int, field_of_view_deg: float
) -> Image.Image:
    """What a forward camera would see of the walls the scan found (the simulated base's camera)."""
    return Image.fromarray(first_person_view(scan, width, height, field_of_view_deg))


def annotated_camera(scan: Scan, heading: float, width: int, height: int, field_of_view_deg: float) -> bytes:
    """The camera image with the seed's annotations: heading, sector distances, depth at 7 points."""
    image = camera_image(scan, heading, width, height, field_of_view_deg)
    draw = ImageDraw.Draw(image)
    half = math.radians(field_of_view_deg) / 2
    for fx, fy in DEPTH_POINTS:
        angle = half - fx * 2 * half
        distance = float(range_at(scan, np.array([angle]))[0])
        _outlined(draw, (fx * width - 12, fy * height - 6), f"{distance:.1f}m")
    for index, name in enumerate(("left", "center", "right")):
        angle = half - (index + 0.5) / 3 * 2 * half
        distance = float(range_at(scan, np.array([angle]))[0])
        _outlined(draw, ((index + 0.5) / 3 * width - 24, height - 14), f"{name} {distance:.1f}m")
    _outlined(draw, (width - 70, 4), f"{cardinal(heading)} {whole_degrees(math.degrees(heading))}°")
    return _png(image)


def _outlined(draw: ImageDraw.ImageDraw, where: tuple[float, float], text: str) -> None:
    x, y = where
    for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        draw.text((x + dx, y + dy), text, fill=(0, 0, 0))
    draw.text((x, y), text, fill=(255, 255, 255))
