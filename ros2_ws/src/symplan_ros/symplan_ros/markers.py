"""``~/scene_markers``: a :class:`~symplan_core.runtime.camera_view.CameraView` as a
``visualization_msgs/MarkerArray`` (RViz, Foxglove).

Per object a ``CUBE`` (namespace ``objects``) and its instance name as ``TEXT_VIEW_FACING`` above
it (``labels``, same id); per two-object relation a ``LINE_LIST`` from the first object's centre
to the second's (``relations``) with the predicate at its middle (``relation_labels``, same id).
The running subgoal's objects are drawn orange and opaque, the rest in a stable colour per
instance. Ids are stable: an object or relation keeps its id for the node's lifetime
(:class:`MarkerIds`), and what left the view since the last array is sent as ``DELETE``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from geometry_msgs.msg import Point
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from symplan_core.runtime.camera_view import CameraView

ACTIVE = ColorRGBA(r=1.0, g=0.55, b=0.0, a=0.9)
TEXT = ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0)
RELATION = {"ontop": ColorRGBA(r=0.2, g=0.9, b=0.2, a=1.0), "inside": ColorRGBA(r=0.9, g=0.2, b=0.9, a=1.0),
            "nextto": ColorRGBA(r=0.2, g=0.8, b=1.0, a=1.0)}
OTHER = ColorRGBA(r=0.9, g=0.9, b=0.2, a=1.0)
NAMESPACES = ("objects", "labels", "relations", "relation_labels")


def _colour(name: str) -> ColorRGBA:
    h = hashlib.sha256(name.encode()).digest()
    return ColorRGBA(r=0.2 + 0.6 * h[0] / 255, g=0.2 + 0.6 * h[1] / 255, b=0.2 + 0.6 * h[2] / 255, a=0.45)


class MarkerIds:
    """Stable marker ids: the first id an object or relation got is its id from then on."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, ...], int] = {}
        self.shown: set[tuple[str, int]] = set()  # (namespace, id) in the last array

    def __call__(self, *key: str) -> int:
        return self._ids.setdefault(key, len(self._ids))


def marker_array(view: CameraView, frame_id: str, stamp: Any, ids: MarkerIds) -> MarkerArray:
    """The array for ``view`` (updates ``ids.shown``)."""
    markers: list[Marker] = []

    def marker(ns: str, ident: int, kind: int) -> Marker:
        m = Marker(ns=ns, id=ident, type=kind, action=Marker.ADD)
        m.header.frame_id, m.header.stamp = frame_id, stamp
        m.pose.orientation.w = 1.0
        markers.append(m)
        return m

    centres = {}
    for obj in view.objects:
        ident = ids("object", obj.name)
        active = obj.name in view.active
        box = marker("objects", ident, Marker.CUBE)
        box.pose.position.x, box.pose.position.y, box.pose.position.z = obj.center
        o = box.pose.orientation
        o.x, o.y, o.z, o.w = obj.orientation
        box.scale.x, box.scale.y, box.scale.z = obj.size
        box.color = ACTIVE if active else _colour(obj.name)
        label = marker("labels", ident, Marker.TEXT_VIEW_FACING)
        # Above the box as the camera sees it: towards the camera (-z in the optical frame).
        label.pose.position.x, label.pose.position.y = obj.center[0], obj.center[1]
        label.pose.position.z = obj.center[2] - obj.size[2] / 2 - 0.03
        label.scale.z = 0.04
        label.color = ACTIVE if active else TEXT
        label.text = obj.name + ("  [subgoal]" if active else "")
        centres[obj.name] = obj.center
    for pred, a, b in view.relations:
        if a not in centres or b not in centres:
            continue
        ident = ids("relation", pred, a, b)
        line = marker("relations", ident, Marker.LINE_LIST)
        line.scale.x = 0.006
        line.color = RELATION.get(pred, OTHER)
        line.points = [Point(x=p[0], y=p[1], z=p[2]) for p in (centres[a], centres[b])]
        text = marker("relation_labels", ident, Marker.TEXT_VIEW_FACING)
        mid = [(u + v) / 2 for u, v in zip(centres[a], centres[b], strict=True)]
        text.pose.position.x, text.pose.position.y, text.pose.position.z = mid
        text.scale.z = 0.03
        text.color = RELATION.get(pred, OTHER)
        text.text = pred
    shown = {(m.ns, m.id) for m in markers}
    for ns, ident in sorted(ids.shown - shown):
        gone = Marker(ns=ns, id=ident, action=Marker.DELETE)
        gone.header.frame_id, gone.header.stamp = frame_id, stamp
        markers.append(gone)
    ids.shown = shown
    return MarkerArray(markers=markers)
