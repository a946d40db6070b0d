import numpy as np
import onnx
from onnx import helper, TensorProto
x = np.array([3, 1, 2, 1, 3, 2, 4], dtype=np.float32)
X = helper.make_tensor_value_info('X', TensorProto.FLOAT, [7])
Y = helper.make_tensor_value_info('Y', TensorProto.FLOAT, None)
node = helper.make_node('Unique', ['X'], ['Y'], sorted=1)
graph = helper.make_graph([node], 'test', [X], [Y])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)])
model = onnx.shape_inference.infer_shapes(model)


# What the thread's script built and fed it (written by iree-regress harvest).
def onnx_model():
    return model


def example_inputs():
    # The script feeds nothing the harness can read: values seeded of the inputs' types.
    from onnx import helper

    rng = np.random.default_rng(0)
    given = {t.name for t in model.graph.initializer}
    arrays = []
    for i in model.graph.input:
        if i.name in given:
            continue
        t = i.type.tensor_type
        if any(not d.dim_value for d in t.shape.dim):
            raise ValueError(f"input {i.name} has a dynamic dim: give its values")
        shape = [d.dim_value for d in t.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        if np.issubdtype(dtype, np.floating):
            arrays.append((rng.standard_normal(shape) * 4).astype(dtype))
        else:
            arrays.append(rng.integers(-3, 4, shape).astype(dtype))
    return tuple(arrays)
