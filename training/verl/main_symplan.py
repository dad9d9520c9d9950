"""verl's PPO entry point with the SymPlan advantage estimator registered in the driver.

    python -m training.verl.main_symplan [+experiment=gpu_check] [hydra overrides ...]

verl 0.9.1 computes advantages inside its ``TaskRunnerV1`` Ray actor, a separate process, so the
estimator must be registered there: ``verl.trainer.main_ppo.run_ppo(config, task_runner_class)``
takes the runner class ("for recipe to change TaskRunner"); ours is verl's ``TaskRunnerV1`` whose
``run`` first calls ``symplan_core.training.verl_hooks.register()``. Everything else is verl's
``main_ppo.main`` unchanged (config validation, Ray start-up, the V1 trainer).
"""

from __future__ import annotations

import hydra
import ray
from verl.trainer import main_ppo
from verl.trainer.ppo.utils import need_critic, need_reference_policy
from verl.utils.config import validate_config
from verl.utils.device import auto_set_device

from symplan_core.training.verl_hooks import register


class _SymPlanTaskRunner(main_ppo.TaskRunnerV1.__ray_actor_class__):
    def run(self, config):
        register()
        return super().run(config)


SymPlanTaskRunner = ray.remote(_SymPlanTaskRunner)


def check_config(config) -> None:
    """verl's own start-up validation (batch sizes against the GPU count, micro-batch settings, the
    actor's config) and ours; runs without a GPU, so the tests check every launch config with it."""
    validate_config(config=config, use_reference_policy=need_reference_policy(config), use_critic=need_critic(config))
    if not config.trainer.use_v1:
        raise SystemExit("error: SymPlan's verl path needs trainer.use_v1=true (filter_groups lives in the V1 trainer)")


@hydra.main(config_path=".", config_name="dapo_groupadapt", version_base=None)
def main(config) -> None:
    register()
    auto_set_device(config)
    check_config(config)
    main_ppo.run_ppo(config, task_runner_class=SymPlanTaskRunner)


if __name__ == "__main__":
    main()
