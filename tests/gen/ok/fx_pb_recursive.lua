-- fx_pb_recursive: a message that contains itself (through a repeated field): its nesting
-- counts against the depth limit (pcd_limits.max_depth).
return format "fx_pb_recursive" {
  version = 1,
  types = {
    file = struct { field "nodes" (records { of = "tree", by_field = true }) },
    tree = message {
      field "node" (1, repeated "node"),
    },
    node = message {
      field "value" (1, int64),
      field "child" (2, repeated "node"),
    },
  },
}
