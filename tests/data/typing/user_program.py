# A user program as a type checker sees it; each reveal_type line ends with the type the test expects.
import numpy as np
import torch

import aclnn_py
from aclnn_py import Tensor, run
from aclnn_py.errors import AclnnErrParamInvalid
from aclnn_py.ops import moe_token_unpermute

x = np.zeros((4, 2), np.float32)
idx = np.zeros(4, np.int32)
t = Tensor.from_numpy(x)

reveal_type(aclnn_py.moe_token_permute(x, idx))  # tuple[ndarray, ndarray]
reveal_type(aclnn_py.moe_token_permute(torch.zeros(4, 2), idx))  # tuple[torch.Tensor, torch.Tensor]
reveal_type(aclnn_py.moe_token_permute(t, idx))  # tuple[aclnn_py.runtime.Tensor, aclnn_py.runtime.Tensor]
reveal_type(aclnn_py.moe_token_permute_grad([[1.0, 2.0]], [0], 1))  # ndarray
reveal_type(moe_token_unpermute(x, idx))  # ndarray
reveal_type(aclnn_py.moe_token_permute_with_routing_map(x, idx, None, 4))  # tuple[ndarray, ndarray | None, ndarray]
reveal_type(run)  # def (name: str, *args: Any, out: Any =, outputs: typing.Sequence[str] | None =, stream: aclnn_py.runtime.Stream | None =, sync: bool =, **kwargs: Any) -> Any
reveal_type(aclnn_py.Tensor)  # def (shape: Any, dtype: Any, *, strides: Any =, offset: int =, buffer: aclnn_py.runtime.DeviceBuffer | None =, device: aclnn_py.runtime.Device | None =, format: int | None =, storage_shape: Any =) -> aclnn_py.runtime.Tensor
reveal_type(t.ndim)  # int
reveal_type(t.nbytes)  # int
reveal_type(t.to_numpy())  # ndarray
reveal_type(aclnn_py.Stream())  # aclnn_py.runtime.Stream
reveal_type(aclnn_py.get_memory_pool().used_bytes())  # int
reveal_type(aclnn_py.acl.aclrtGetRunMode())  # int
reveal_type(aclnn_py.backend())  # aclnn_py.loader.Backend
reveal_type(aclnn_py.__version__)  # str

try:
    aclnn_py.moe_token_permute_grad(x, idx, 0)
except AclnnErrParamInvalid as exc:
    reveal_type(exc)  # aclnn_py.errors.AclnnErrParamInvalid
    reveal_type(exc.status)  # int
except aclnn_py.AclnnError as exc:
    reveal_type(exc.name)  # str
