-- schemas/mojo/v2.lua: MOJO version 2 (Austin 3.5: frames gain line_end, column, column_end).
local M = import "mojo/_common"
return M.format(2, { stack = M.stack_v1, frame = M.frame_v2 })
