import numpy as np
import onnx
from onnx import helper, TensorProto
blocksize = 3
C = blocksize * blocksize * 2
x = np.arange(1 * C * 3 * 3, dtype=np.float32).reshape(1, C, 3, 3)
X = helper.make_tensor_value_info('X', TensorProto.FLOAT, [1, C, 3, 3])
Y = helper.make_tensor_value_info('Y', TensorProto.FLOAT, None)
node = helper.make_node('DepthToSpace', ['X'], ['Y'], blocksize=blocksize, mode='CRD')
graph = helper.make_graph([node], 'test', [X], [Y])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)])
model = onnx.shape_inference.infer_shapes(model)


# What the thread's script built and fed it (written by iree-regress harvest).
def onnx_model():
    return model


def example_inputs():
    feed = {'X': x}
    return tuple(np.asarray(feed[i.name]) for i in model.graph.input)
