"""Vectors and rotations in the world frame (metres, radians, quaternions as ``(x, y, z, w)``)."""

from __future__ import annotations

import math

from treebrain.robots.manipulator.observation import ObjectObservation, Quat, Vec3

DOWN: Vec3 = (0.0, 0.0, -1.0)


def add(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def scale(a: Vec3, factor: float) -> Vec3:
    return (a[0] * factor, a[1] * factor, a[2] * factor)


def dot(a: Vec3, b: Vec3) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec3, b: Vec3) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a: Vec3) -> float:
    return math.sqrt(dot(a, a))


def horizontal_distance(a: Vec3, b: Vec3) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def clamp_norm(a: Vec3, most: float) -> Vec3:
    """`a`, shortened to length `most` if it is longer."""
    length = norm(a)
    return scale(a, most / length) if length > most else a


def rotate(q: Quat, v: Vec3) -> Vec3:
    """`v` rotated by the unit quaternion `q`."""
    x, y, z, w = q
    u: Vec3 = (x, y, z)
    t = scale(cross(u, v), 2.0)
    return add(add(v, scale(t, w)), cross(u, t))


def axis_angle(axis: Vec3, angle: float) -> Quat:
    half = angle / 2.0
    length = norm(axis) or 1.0
    s = math.sin(half) / length
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(half))


def multiply(a: Quat, b: Quat) -> Quat:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def heading(v: Vec3) -> float:
    """The angle of `v`'s horizontal part from the world x axis."""
    return math.atan2(v[1], v[0])


def wrap_half_turn(angle: float) -> float:
    """`angle` folded into (-pi/2, pi/2]: a line's direction has no sign."""
    folded = math.fmod(angle, math.pi)
    if folded > math.pi / 2:
        folded -= math.pi
    elif folded <= -math.pi / 2:
        folded += math.pi
    return folded


def tilt_correction(axis: Vec3, target: Vec3 = DOWN) -> Vec3:
    """The rotation vector that turns direction `axis` onto `target` (a half turn about a
    perpendicular when they are opposite)."""
    turn = cross(axis, target)
    sine = norm(turn)
    angle = math.atan2(sine, dot(axis, target))
    if sine > 1e-9:
        return scale(turn, angle / sine)
    if dot(axis, target) > 0:
        return (0.0, 0.0, 0.0)
    perpendicular = cross(axis, (1.0, 0.0, 0.0))
    if norm(perpendicular) < 1e-6:
        perpendicular = cross(axis, (0.0, 1.0, 0.0))
    return scale(perpendicular, math.pi / norm(perpendicular))


def box_in_world(thing: ObjectObservation) -> tuple[Vec3, Vec3]:
    """The world-axis-aligned box around an object at its pose: centre and half extents."""
    center = add(thing.position, rotate(thing.quaternion, thing.box_center))
    axes = [rotate(thing.quaternion, unit) for unit in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))]
    half = tuple(sum(abs(axes[k][i]) * thing.half_extents[k] for k in range(3)) for i in range(3))
    return center, (half[0], half[1], half[2])


def object_axes(thing: ObjectObservation) -> list[tuple[Vec3, float]]:
    """The object's own x and y axes in the world with its half extent along each."""
    return [
        (rotate(thing.quaternion, (1.0, 0.0, 0.0)), thing.half_extents[0]),
        (rotate(thing.quaternion, (0.0, 1.0, 0.0)), thing.half_extents[1]),
    ]
