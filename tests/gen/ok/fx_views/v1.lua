-- fx_views/v1: the first version of a format with a view across versions.
local M = import "fx_views/_common"
return format "fx_views" {
  version = 1,
  endian = "little",
  views = M.views,
  types = {
    file = struct { field "evs" (records { of = "ev" }) },
    ev = union {
      tag = u8,
      case(1, "tick", struct { field "t" (uleb128), field "code" (u32) }),
      case(2, "named", struct { field "t" (uleb128), field "name" (string { len = u8 }) }),
      case(3, "list", struct { field "xs" (array { of = u16, count = u8 }) }),
    },
  },
}
