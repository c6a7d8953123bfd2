"""Mirror of the aclnn operator API: both phases of every operator, named as in C.

    ws_size, executor = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(grad, idx, 2, False, out)
    workspace = acl.aclrtMalloc(ws_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if ws_size else None
    aclnn.aclnnMoeTokenPermuteGrad(workspace, ws_size, executor, stream)

Inputs and attributes in C order; ``workspaceSize`` and ``executor`` come back as a tuple; a non-zero
``aclnnStatus`` raises ``aclnn_py.AclnnError`` (``.status``, ``.name``, the library's message). Pass
``None`` for an absent optional tensor and for a NULL workspace. Status codes: ``ACLNN_*``.
"""

from ._mirror import MirrorModule, constants

globals().update(constants(("ACLNN_",)))
_mirror = MirrorModule(globals(), lambda n: n.startswith("aclnn") and not n.startswith("aclnnpy"))
__getattr__ = _mirror.getattr
__dir__ = _mirror.dir
