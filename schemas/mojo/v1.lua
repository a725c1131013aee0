-- schemas/mojo/v1.lua: MOJO version 1 (Austin 3.4: frames have key, filename, scope, line).
local M = import "mojo/_common"
return M.format(1, { stack = M.stack_v1, frame = M.frame_v1 })
