"""A tiny, randomly initialised GroundingDINO checkpoint for tests and benchmarks.

No detector weights ship in any package this project can install, so the GroundingDINO path is
exercised with a real ``transformers`` model of the real architecture at toy size (8-dim Swin and
BERT, 32-dim transformer) and a BERT WordPiece vocabulary written from BEHAVIOR's synset head
words. Its detections are noise: it tests the code path (pre-processing, the model, the
processor's post-processing, grounding, lifting, the verifier), never detection quality.
"""

from __future__ import annotations

from pathlib import Path

from symplan_core.perception.synsets import lemma_index

_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "."]


def build_tiny_grounding_dino(dest: str | Path, seed: int = 0) -> Path:
    """Save a tiny random GroundingDINO (model, processor, tokenizer) to ``dest``; returns it."""
    import torch
    from transformers import (
        BertConfig,
        BertTokenizer,
        GroundingDinoConfig,
        GroundingDinoForObjectDetection,
        GroundingDinoProcessor,
        SwinConfig,
    )

    try:  # transformers falls back to the PIL image processor without torchvision; ask for it directly
        from transformers import GroundingDinoImageProcessorPil as ImageProcessor
    except ImportError:  # pragma: no cover - older transformers
        # the older class under the same local name: same constructor, another class to mypy
        from transformers import GroundingDinoImageProcessor as ImageProcessor  # type: ignore[assignment]

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    words = sorted({w for key in lemma_index() for w in key})
    vocab = {w: i for i, w in enumerate([*_SPECIALS, *words])}
    tokenizer = BertTokenizer(vocab=vocab)
    backbone = SwinConfig(embed_dim=8, depths=[1, 1, 1, 1], num_heads=[1, 1, 1, 1], window_size=7)
    backbone.out_features = ["stage2", "stage3", "stage4"]  # the setter aligns out_indices, as the keyword did
    text = BertConfig(hidden_size=8, num_hidden_layers=1, num_attention_heads=1, intermediate_size=16,
                      vocab_size=len(vocab), max_position_embeddings=256)
    config = GroundingDinoConfig(backbone_config=backbone, text_config=text, d_model=32, encoder_layers=1,
                                 decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2,
                                 encoder_ffn_dim=32, decoder_ffn_dim=32, num_queries=30, num_feature_levels=4,
                                 max_text_len=256, encoder_n_points=1, decoder_n_points=1)
    torch.manual_seed(seed)
    GroundingDinoForObjectDetection(config).eval().save_pretrained(dest)
    images = ImageProcessor(size={"shortest_edge": 160, "longest_edge": 224})
    GroundingDinoProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(dest)
    return dest
