"""The provenance sidecar: which frames and detections support each object and fact.

Schema (``version`` 1), all plain JSON:

* ``instruction``, ``detector``, ``frames``: ``[{index, source, stamp}]``;
* ``objects``: instance -> ``{type, source, label?, marker_id?, frames, confidence, boxes,
  image_boxes}`` (``image_boxes``: each detection's pixel box ``[x0, y0, x1, y1]`` with its frame);
  ``source`` is ``detection`` (seen), ``prior`` (the retrieved activity: future objects, the
  agent, substances with no visible fact) or ``unseen`` (the goal needs it, nothing showed it);
  ``confidence`` = mean detection score x fraction of key frames it was seen in;
* ``facts``: ``[{fact, source, regions?, frames?, confidence?}]`` in the engine's (omnigibson)
  vocabulary; ``observed`` facts name the lifted regions and frames behind them and take the
  lowest confidence of their objects; ``prior`` facts come from the activity;
* ``goal``: how the goal was drafted (retrieval candidates and instance mapping, or the LLM reply);
* ``dropped``: detections that could not be grounded, with the reason; ``notes``: diagnostics.
"""

from __future__ import annotations

from typing import Any

from symplan_core.bddl.writer import write_literal


def build_provenance(instruction: str, detector: str, frames, draft, dropped: dict[str, dict], lift_notes: list[str],
                     config) -> dict[str, Any]:
    n_frames = max(len(frames), 1)
    objects: dict[str, dict] = {}
    confidence: dict[str, float] = {}
    problem = draft.problem
    types = dict(problem.objects) if problem is not None else {}
    for inst, source in draft.sources.items():
        entry: dict[str, Any] = {"type": types.get(inst), "source": source}
        obs = draft.instances.evidence.get(inst)
        if obs is not None and source == "detection":
            conf = obs.score * len(obs.frames) / n_frames
            confidence[inst] = conf
            entry.update(label=obs.label, frames=obs.frames, confidence=round(conf, 4),
                         boxes=[s.box.to_json() for s in obs.sightings],
                         image_boxes=[{"frame": d.frame, "box": [round(v, 1) for v in d.box]}
                                      for s in obs.sightings for d in s.detections])
            if obs.marker_id is not None:
                entry["marker_id"] = obs.marker_id
        objects[inst] = entry
    rooms = {key[5:]: {"marker_id": obs.marker_id, "frames": obs.frames, "box": obs.sightings[0].box.to_json()}
             for key, obs in draft.instances.evidence.items() if key.startswith("room:")}
    facts = []
    init = problem.init if problem is not None else ()
    written = [write_literal(lit) for lit in init] if problem is not None and problem.domain == "omnigibson" \
        else list(draft.fact_sources)
    for text in written:
        source = draft.fact_sources.get(text, "observed")
        entry = {"fact": text, "source": source}
        regions = draft.relation_regions.get(text)
        if source == "observed" and regions:
            owners = {r.split("#", 1)[0] for r in regions}
            frames_of = sorted({f for o in owners if o in draft.instances.evidence for f in draft.instances.evidence[o].frames})
            entry.update(regions=regions, frames=frames_of,
                         confidence=round(min((confidence.get(o, 1.0) for o in owners), default=1.0), 4))
        facts.append(entry)
    return {
        "version": 1,
        "instruction": instruction,
        "detector": detector,
        "frames": [{"index": i, "source": f.source, "stamp": f.stamp} for i, f in enumerate(frames)],
        "objects": objects,
        "rooms": rooms,
        "facts": facts,
        "goal": draft.goal_info,
        "dropped": list(dropped.values()),
        "notes": list(draft.notes) + list(lift_notes),
        "config": {"goal": config.goal, "robot": config.robot, "benchmarks": list(config.benchmarks)},
    }
