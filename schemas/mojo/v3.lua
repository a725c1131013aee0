-- schemas/mojo/v3.lua: MOJO version 3 (Austin 3.6 and 3.7: the stack event gains the interpreter id).
local M = import "mojo/_common"
return M.format(3, { stack = M.stack_v3, frame = M.frame_v2 })
