-- emit/kinds.lua: the table every emitter module adds its functions to, so that kinds
-- that contain each other (structs, unions, arrays) call one another without a require
-- cycle. Loading pcgen.emit.value loads them all.
return {}
