#!/usr/bin/env bash
# Fine-tune the shipped MiniLM on a lent GPU machine (training/README.md, "On a lent GPU").
# Run by the device tool from the repository root, after `python -m training.device pack`:
#   run(command="bash training/device.sh", carry=[".device"], timeout_s=600)
# Settings (environment, all optional): STEPS, BATCH, LR, FILE_SHARE, MINUTES (the training's own bound;
# the whole call also loads, measures and packs, about a minute more); DEVICE=cpu rehearses it here.
# Sends back finetune.log, weights.tar.sha256 and weights.tar.part-NN (float16 weights in 15 MiB parts);
# `python -m training.device unpack FILES_AT` makes the q8_0 GGUF from them here.
set -euo pipefail
out=${OUT:?the device tool sets OUT}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .device/*.whl
export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1
{ nvidia-smi -L || echo "no nvidia-smi here"; } | tee "$out/finetune.log"
python3 -m training.finetune --data .device --device "${DEVICE:-cuda}" --file-pairs \
    --file-share "${FILE_SHARE:-0.15}" --batch "${BATCH:-256}" --lr "${LR:-6e-5}" \
    --steps "${STEPS:-3000}" --max-minutes "${MINUTES:-6.5}" --folder-only /tmp/ft 2>&1 | tee -a "$out/finetune.log"
tar -C /tmp/ft -cf /tmp/weights.tar all-MiniLM-L6-v2-code
sha256sum /tmp/weights.tar | cut -d' ' -f1 > "$out/weights.tar.sha256"
split -b 15M -d /tmp/weights.tar "$out/weights.tar.part-"
ls -l "$out"
