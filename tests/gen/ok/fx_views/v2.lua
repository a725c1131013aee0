-- fx_views/v2: the code moves into a status struct, a list's time is optional, a case is new
-- (its name inside an inline union).
local M = import "fx_views/_common"
return format "fx_views" {
  version = 2,
  endian = "little",
  views = M.views,
  types = {
    file = struct { field "evs" (records { of = "ev" }) },
    ev = union {
      tag = u8,
      case(1, "tick", struct {
        field "t" (uleb128),
        field "status" (struct { field "code" (u32), field "flags" (u8) }),
      }),
      case(2, "named", struct { field "t" (uleb128), field "name" (string { len = u8 }) }),
      case(3, "list", struct {
        field "xs" (array { of = u16, count = u8 }),
        field "flag" (u8),
        field "t" (uleb128, { when = "flag != 0" }),
      }),
      case(4, "meta", struct {
        field "kind" (u8),
        field "detail" (union {
          on = "kind",
          case(1, "a", struct { field "name" (string { len = u8 }) }),
          case(2, "b", struct { field "n" (u8) }),
        }),
      }),
    },
  },
}
