-- fx_views/_common: the view both versions declare: one C struct for an event of either,
-- members by name, or by the paths `from` lists (through an inline struct, an inline union).
local M = {}
M.views = {
  ev = view {
    of = "ev",
    doc = "An event of either version.",
    field "t" (uleb128, { doc = "Its time, in the cases that have one." }),
    field "name" (string { len = u8 }, { from = { "name", "detail.name" } }),
    field "xs" (array { of = u16 }),
    field "code" (u32, { from = { "code", "status.code" } }),
  },
}
return M
