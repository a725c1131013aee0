-- bad/messages: message fields without a number or with one out of range or taken twice,
-- types that are not protobuf's, protobuf types outside a message, a message containing itself
-- through a singular field, packed on a string, names the generated C keeps, unknown options,
-- a records region of whole messages, by_field on a struct, a field number in a struct.
return format "bad_messages" {
  version = 1,
  types = {
    file = struct {
      field "b" (ref "s"),
      field "c" (ref "u"),
      field "a" (records { of = "m", by_field = true }),
    },
    m = message {
      field "no_number" (u32),
      field "zero" (0, int64),
      field "one" (1, int64),
      field "again" (1, uint64),
      field "fixed_width" (2, u32),
      field "self" (3, "m"),
      field "strs" (4, repeated(string, { packed = true })),
      field "trailing_" (5, int64),
      field "has_one" (6, int64),
      field "en" (7, string, { enum = { [0] = "x" } }),
      field "opt" (8, int64, { min = 3 }),
      field "n" (9, struct { field "x" (u8) }),
      field "inner" (10, "n"),
      field "plain" (11, "s"),
    },
    n = message { pack_min = 0, field "v" (1, sint32) },
    s = struct { field "x" (int64), field "y" (3, u8), field "r" (records { of = "t" }) },
    t = message { field "v" (1, uint32) },
    u = struct { field "r" (records { of = "w", by_field = true }) },
    w = struct { field "x" (u8) },
  },
}
