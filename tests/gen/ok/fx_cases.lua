-- fx_cases: a union of 16 cases or more reads each case through a function of its own
-- (decode, validate, encode, size), with the same errors and stream state as inline cases.
local cases = {}
for i = 5, 16 do
  cases[#cases + 1] = case(i, "c" .. (i < 10 and "0" or "") .. i, struct { field "v" (u32 { max = 1000 + i }) })
end
cases[#cases + 1] = default_case("other", struct { field "b" (u8) })
return format "fx_cases" {
  version = 1,
  endian = "little",
  types = {
    file = struct { field "evs" (records { of = "ev", state = { t = u64 {} } }) },
    ev = union {
      tag = u8,
      doc = "An event: a byte, then what its case holds.",
      case(0x01, "tick", struct {
        doc = "A time (a running delta) and a small number.",
        field "t" (uleb128 { delta = "t" }),
        field "a" (u8 { max = 100 }),
      }),
      case(0x02, "list", struct {
        field "t" (uleb128 { delta = "t" }),
        field "xs" (array { of = u16, count = u8 }),
      }),
      case({ 0x03, 0x13 }, "name", struct { field "s" (string { len = u8 }) }),
      case(0x04, "none", struct {}),
      table.unpack(cases),
    },
  },
}
