"""The scene renderer: real BEHAVIOR :init -> geometry that makes it true, rendered deterministically."""

from __future__ import annotations

import numpy as np
import pytest

from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.eval.splits import split_tasks
from symplan_core.perception.rigs import NoiseConfig, render_task
from symplan_core.perception.rigs.layout import TAG
from symplan_core.tasks import load_problem


def _inside_xy(a, b) -> bool:
    return b.x0 - 1e-9 <= a.x0 and a.x1 <= b.x1 + 1e-9 and b.y0 - 1e-9 <= a.y0 and a.y1 <= b.y1 + 1e-9


def test_rendering_is_deterministic_for_a_seed(car_problem) -> None:
    noise = NoiseConfig.default()
    a = render_task(car_problem, seed=3).frames(3, noise)
    b = render_task(car_problem, seed=3).frames(3, noise)
    for fa, fb in zip(a, b, strict=True):
        assert np.array_equal(fa.rgb, fb.rgb) and np.array_equal(fa.depth, fb.depth)
    assert not np.array_equal(a[0].rgb, a[1].rgb)  # each frame draws its own noise
    c = render_task(car_problem, seed=4).frames(1, noise)
    assert not np.array_equal(a[0].rgb, c[0].rgb)


def test_frames_carry_the_camera_and_match_the_intrinsics(car_scene) -> None:
    (frame,) = car_scene.frames(1)
    car_scene.intrinsics.check(frame)
    assert frame.depth.dtype == np.float32 and np.allclose(frame.pose, car_scene.pose)
    assert car_scene.min_tag_pixels() >= 20


def test_noise_knobs_change_what_the_camera_sees(car_scene) -> None:
    clean_rgb, clean_depth = car_scene.clean()
    noisy = car_scene.frames(1, NoiseConfig(pixel=5, depth=0.01, dropout=0.05))[0]
    assert np.abs(noisy.rgb.astype(int) - clean_rgb).mean() > 1
    assert (noisy.depth == 0).mean() > 0.02
    assert NoiseConfig.default().scaled(2).missed == pytest.approx(2 * NoiseConfig.default().missed)


@pytest.mark.parametrize("activity", split_tasks("b1k", "test")[:24])
def test_layout_makes_the_init_relations_hold_geometrically(behavior_dir, activity) -> None:
    problem = load_problem(f"b1k/{activity}")
    scene = render_task(problem, seed=0)
    items = {}
    for item in scene.items:
        if item.instance and item.kind != "patch":
            items.setdefault(item.instance, item)
    for lit in to_omnigibson(problem).init:
        if lit.negated or lit.predicate not in ("ontop", "inside") or len(lit.args) != 2:
            continue
        a, b = (items.get(x) for x in lit.args)
        if a is None or b is None or b.kind == "floor_tag":
            continue
        assert _inside_xy(a, b), f"{lit.args[0]} not over {lit.args[1]}"
        if lit.predicate == "ontop":
            assert a.z0 == pytest.approx(b.z1), lit
        else:
            assert b.kind == "container" and b.z0 < a.z0 < b.z1 and a.z1 < b.z1, lit
    for item in scene.items:  # tags never overlap one another
        assert item.kind == "room" or item.size[0] >= TAG
