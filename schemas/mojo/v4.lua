-- schemas/mojo/v4.lua: MOJO version 4 (Austin 4.x: stack repeats, asyncio tasks and waiters).
local M = import "mojo/_common"
return M.format(4, { stack = M.stack_v4, frame = M.frame_v2, more = M.cases_v4 })
