"""The models users export, in one table: whole models from transformers (its text and its
vision models), torchvision and timm, in small configurations with seeded random weights
(nothing is downloaded), exported as users export them: torch.export with a dynamic
batch, and a dynamic sequence for text models.

Each architecture is one entry: how its model.py builds the model, the forward call, the
example inputs, and which input dims are dynamic. The golden is PyTorch eager on the same
weights (the seed is set before the model is built, so a model is the same everywhere).
"""

from harness.sweep.program import Program

# (kind, construction, forward body, inputs, dynamic dims per input)
TEXT = ("ids", "mask")
ARCHITECTURES = {
    "bert": ("transformers", "transformers.BertModel(transformers.BertConfig(vocab_size=96, hidden_size=32, "
             "num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, max_position_embeddings=64))",
             "m(input_ids=ids, attention_mask=mask).last_hidden_state", TEXT),
    "distilbert": ("transformers", "transformers.DistilBertModel(transformers.DistilBertConfig(vocab_size=96, dim=32, "
                   "n_layers=2, n_heads=2, hidden_dim=64, max_position_embeddings=64))",
                   "m(input_ids=ids, attention_mask=mask).last_hidden_state", TEXT),
    "gpt2": ("transformers", "transformers.GPT2Model(transformers.GPT2Config(vocab_size=96, n_embd=32, n_layer=2, "
             "n_head=2, n_positions=64))", "m(input_ids=ids, attention_mask=mask).last_hidden_state", TEXT),
    "llama": ("transformers", "transformers.LlamaModel(transformers.LlamaConfig(vocab_size=96, hidden_size=32, "
              "num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, intermediate_size=64, "
              "max_position_embeddings=64))", "m(input_ids=ids, attention_mask=mask).last_hidden_state", TEXT),
    "qwen2": ("transformers", "transformers.Qwen2Model(transformers.Qwen2Config(vocab_size=96, hidden_size=32, "
              "num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, intermediate_size=64, "
              "max_position_embeddings=64))", "m(input_ids=ids, attention_mask=mask).last_hidden_state", TEXT),
    "t5-encoder": ("transformers", "transformers.T5EncoderModel(transformers.T5Config(vocab_size=96, d_model=32, "
                   "d_kv=8, d_ff=64, num_layers=2, num_heads=4))",
                   "m(input_ids=ids, attention_mask=mask).last_hidden_state", TEXT),
    # Windows only (sweeps/models.toml leaves it out: its experts run a transformers custom op,
    # grouped_mm_fallback, that no compiler lowers): the one model with topk and sort.
    "mixtral": ("transformers", "transformers.MixtralModel(transformers.MixtralConfig(vocab_size=96, hidden_size=32, "
                "num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, intermediate_size=64, "
                "max_position_embeddings=64, num_local_experts=4, num_experts_per_tok=2))",
                "m(input_ids=ids, attention_mask=mask).last_hidden_state", TEXT),
    "vit": ("transformers", "transformers.ViTModel(transformers.ViTConfig(image_size=32, patch_size=8, hidden_size=32, "
            "num_hidden_layers=2, num_attention_heads=2, intermediate_size=64))",
            "m(pixel_values=x).last_hidden_state", ("image",)),
    "swin": ("transformers", "transformers.SwinModel(transformers.SwinConfig(image_size=32, patch_size=4, embed_dim=16, "
             "depths=[1, 1], num_heads=[2, 2], window_size=4))", "m(pixel_values=x).last_hidden_state", ("image",)),
    "resnet": ("transformers", "transformers.ResNetModel(transformers.ResNetConfig(embedding_size=16, "
               "hidden_sizes=[16, 32], depths=[1, 1], layer_type='basic'))", "m(pixel_values=x).last_hidden_state",
               ("image",)),
    "convnext": ("transformers", "transformers.ConvNextModel(transformers.ConvNextConfig(hidden_sizes=[16, 32], "
                 "depths=[1, 1], num_stages=2))", "m(pixel_values=x).last_hidden_state", ("image",)),
    "mobilenet-v2": ("transformers", "transformers.MobileNetV2Model(transformers.MobileNetV2Config(image_size=32, "
                     "depth_multiplier=0.25))", "m(pixel_values=x).last_hidden_state", ("image",)),
    "efficientnet": ("transformers", "transformers.EfficientNetModel(transformers.EfficientNetConfig(image_size=32, "
                     "width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=320))",
                     "m(pixel_values=x).last_hidden_state", ("image",)),
    # torchvision and timm, after the thirteen above: a window two architectures share keeps
    # the id of the first in this table, so adding at the end renames none
    "shufflenet-v2": ("torchvision", "torchvision.models.shufflenet_v2_x0_5(num_classes=10)", "m(x)", ("image",)),
    "mobilenet-v3": ("torchvision", "torchvision.models.mobilenet_v3_small(num_classes=10, width_mult=0.25)", "m(x)",
                     ("image",)),
    "torchvision-swin": ("torchvision", "torchvision.models.swin_transformer.SwinTransformer(patch_size=[4, 4], "
                         "embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=[4, 4], num_classes=10)",
                         "m(x)", ("image",)),
    "timm-vit": ("timm", "timm.models.vision_transformer.VisionTransformer(img_size=32, patch_size=8, embed_dim=32, "
                 "depth=2, num_heads=2, num_classes=10)", "m(x)", ("image",)),
    "levit": ("timm", "timm.models.levit.Levit(img_size=32, embed_dim=(32, 48, 64), key_dim=8, depth=(1, 1, 1), "
              "num_heads=(2, 3, 4), num_classes=10)", "m(x)", ("image",)),
    # Windows only, as Mixtral (sweeps/models.toml says why it is not a whole-model item)
    "maxvit": ("timm", "timm.create_model('maxvit_pico_rw_256', num_classes=10, img_size=32, "
               "embed_dim=(32, 32, 32, 32), depths=(1, 1, 1, 1))", "m(x)", ("image",)),
}

# torchvision's compiled extension (its detection ops: nms, roi_align) is built against a CUDA
# torch and does not load beside the CPU torch wheel ("operator torchvision::nms does not
# exist"). These two modules only register kernels for those ops, which no model here calls:
# they are left out before torchvision is imported. Every model's program does it: timm
# imports torchvision, and transformers does too once it is installed.
TORCHVISION_WITHOUT_EXTENSION = """import sys
import types
for _name in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
    sys.modules.setdefault(_name, types.ModuleType(_name))
"""


def _inputs(kind: tuple[str, ...]) -> tuple[list[str], list[str], str]:
    """(forward args, example input expressions, dynamic_shapes body)."""
    if kind == ("image",):
        return (["x"], ["torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(1))"],
                "    batch = torch.export.Dim('batch', min=2, max=16)\n    return {'x': {0: batch}}")
    return (["ids", "mask"],
            ["torch.randint(0, 96, (2, 16), generator=torch.Generator().manual_seed(1))",
             "torch.ones(2, 16, dtype=torch.int64)"],
            "    batch = torch.export.Dim('batch', min=2, max=16)\n"
            "    sequence = torch.export.Dim('sequence', min=2, max=64)\n"
            "    return {'ids': {0: batch, 1: sequence}, 'mask': {0: batch, 1: sequence}}")


def model_source(arch: str) -> str:
    """The architecture's whole model.py: Model, example_inputs(), dynamic_shapes()."""
    package, construction, call, kind = ARCHITECTURES[arch]
    args, inputs, dynamic = _inputs(kind)
    return f'''"""models sweep: {arch} ({package}), a small configuration with seeded random weights
(nothing downloaded), exported with a dynamic batch{" and sequence" if kind == TEXT else ""}."""
{TORCHVISION_WITHOUT_EXTENSION}import torch
import {package}


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)  # the same weights on every machine
        self.m = {construction}.eval()

    def forward(self, {", ".join(args)}):
        m = self.m
        return {call}


def example_inputs():
    return ({", ".join(inputs)},)


def dynamic_shapes():
{dynamic}
'''


def model_program(arch: str) -> Program:
    """The architecture as a models-sweep program (a whole model; golden PyTorch eager)."""
    return Program(model_source(arch), dtype="f32", traits=(f"arch={arch}", f"package={ARCHITECTURES[arch][0]}"))
