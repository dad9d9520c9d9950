#!/usr/bin/env bash
# DAPO + Short-RL + GroupAdapt on one node with verl 0.9.1 (NVIDIA GPUs). The environment, once
# (verl's own GPU stack: torch 2.11, vLLM 0.24, transformers 5.9; training/README.md):
#   python3.11 -m venv .venv-gpu-verl && . .venv-gpu-verl/bin/activate
#   pip install -c constraints/gpu-verl.txt -e ".[verl-gpu]"
#   python training/verl/make_parquet.py rows.jsonl data/verl/train.parquet   # and val.parquet
# Then:
#   MODEL=/path/to/D-SFT GPUS=8 training/verl/run_single_node.sh [hydra overrides...]
#   (+experiment=gpu_check: the 2-step check of scripts/gpu_check.sh, experiment/gpu_check.yaml)
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python}
if ! "$PYTHON" -c "import verl, vllm" 2>/dev/null; then
    echo "error: $PYTHON cannot import verl and vllm; install the verl-gpu environment first:" >&2
    echo "  pip install -c constraints/gpu-verl.txt -e \".[verl-gpu]\"" >&2
    exit 2
fi
# A local run (no RAY_ADDRESS) starts Ray here and trains on this machine's GPUs.
if [[ -z "${RAY_ADDRESS:-}" ]] && ! { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
    echo "error: no NVIDIA GPU found (nvidia-smi -L lists none); verl's trainer needs GPUs" >&2
    exit 2
fi
export SYMPLAN_LENGTH_MODE=${SYMPLAN_LENGTH_MODE:-group_adapt}    # none | short_rl | group_adapt
export SYMPLAN_TAU=${SYMPLAN_TAU:-0.5} SYMPLAN_DELTA_BASE=${SYMPLAN_DELTA_BASE:-200}
export SYMPLAN_MAX_RESPONSE=${SYMPLAN_MAX_RESPONSE:-8192} SYMPLAN_OVERLONG_BUFFER=${SYMPLAN_OVERLONG_BUFFER:-1048}
export SYMPLAN_REWARD_STATE_DIR=${SYMPLAN_REWARD_STATE_DIR:-runs/verl/reward_state}
# Ray actors resolve relative paths from their own working directory: pass absolute ones.
exec "$PYTHON" -m training.verl.main_symplan \
    actor_rollout_ref.model.path="${MODEL:?set MODEL to the SFT checkpoint (a Hugging Face model directory)}" \
    trainer.n_gpus_per_node="${GPUS:-8}" trainer.nnodes="${NODES:-1}" \
    reward.custom_reward_function.path="$PWD/training/verl/reward.py" \
    trainer.default_local_dir="$PWD/runs/verl/checkpoints" "$@"
