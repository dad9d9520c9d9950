"""Sharded scoring (several worker processes) gives exactly the in-process verdicts."""

from __future__ import annotations

import pytest
from plans import BATHTUB_PLAN, STOVE_PLAN
from rl_rows import columns, wrap

from symplan_core.training import RewardDataError, TaskScorer
from symplan_core.training.parallel import ShardedScorer


def test_sharded_verdicts_equal_in_process_verdicts(bathtub, stove) -> None:
    texts = [wrap(BATHTUB_PLAN), "junk", wrap(STOVE_PLAN), wrap(STOVE_PLAN[:5]), "\n".join(STOVE_PLAN), ""]
    cols = columns([bathtub, bathtub, stove, stove, stove, stove])
    args = (texts, cols["bddl"], cols["robot"], cols["action_set"], cols["id"])
    with ShardedScorer(workers=2) as sharded:
        assert sharded.batch(*args) == TaskScorer().batch(*args)
        with pytest.raises(RewardDataError, match="does not compile"):
            sharded.batch(["x"], ["(define (problem"], ["single"], ["b100"], ["bad/0"])
