-- bad/metadata: a struct's metadata option (which fields hold a key-value pair of the file's
-- metadata) that is not a table of key and value, names no field, names a field that is not
-- text, or takes an option it does not have.
return format "bad_metadata" {
  version = 1,
  types = {
    file = struct { field "recs" (records { of = "rec" }) },
    rec = union {
      tag = u8,
      case(1, "shape", struct { field "k" (cstring), field "v" (cstring), metadata = "k=v" }),
      case(2, "missing", struct { field "k" (cstring), metadata = { key = "k", value = "val" } }),
      case(3, "number", struct { field "k" (cstring), field "n" (u32), metadata = { key = "k", value = "n" } }),
      case(4, "extra", struct { field "k" (cstring), field "v" (cstring), metadata = { key = "k", value = "v", sep = "=" } }),
      case(5, "good", struct { field "k" (cstring), field "v" (cstring), metadata = { key = "k", value = "v" } }),
    },
  },
}
