#!/usr/bin/env bash
# wire_literals.sh: the wire facts issue 14 took out of hand-written C stay out. Each rule is
# an extended regular expression for a fact spelled as a literal (an offset from the end, a
# mask, a tag, a size) that src/ must spell with the generated name instead, why, and an
# example of the code it stood for: the example must match (so that a rule that can no
# longer match anything fails here instead of passing quietly), and nothing in src/ may.
# usage: tests/gen/wire_literals.sh   (from the repository root; exit 1 on a match)
set -u
cd "$(dirname "$0")/../.." || exit 2
fail=0
n=0
# pattern <TAB> why <TAB> an example of the hand-written code
rules=$(cat <<'EOF'
input_size[[:space:]]*-[[:space:]]*[0-9]	Tachyon footer fields: PCD_TACHYON_V1_FILE_*_AT_END	say(k, report, ud, false, rec->input_size - 24, "file_size"
string_table_offset[[:space:]]*-[[:space:]]*[0-9]	where Tachyon's samples start: PCD_TACHYON_V1_FILE_SAMPLES_AT	h->string_table_offset - 64);
config[[:space:]]*(&|>>|<<)[[:space:]]*[0-9]	Tachyon's config word: pcd_tachyon_v1_file_config_*()	if ((h->config & 8) == 0 && (h->config >> 4) != 0) {
stats_size[[:space:]]*[!=]=[[:space:]]*[0-9]	Tachyon statistics sizes: the schema's warning, PCD_TACHYON_V1_STATS_*SIZE	if (h->stats_tag && h->stats_size != 56 && h->stats_size != 32) {
present[[:space:]]*&[[:space:]]*~?[0-9]	Tachyon statistics present bits: pcd_tachyon_v1_stats_present_*()	st->has_present && (st->present & 1)
end_(lineno|column)_delta[[:space:]]*=[[:space:]]*\(	Tachyon end deltas from values: pcd_tachyon_v1_frame_end_*_delta_of()	f->end_lineno_delta = (k->loc[0] != -1 && k->loc[1] != -1) ? (int32_t)((uint32_t)k->loc[1] - (uint32_t)k->loc[0]) : 0;
\(uint32_t\)[^;]*\+[[:space:]]*\(uint32_t\)[a-z_>.-]*end_(lineno|column)_delta	Tachyon end values from deltas: pcd_tachyon_v1_frame_end_*()	l.end_lineno = (int32_t)((uint32_t)f->lineno + (uint32_t)f->end_lineno_delta);
while[[:space:]]*\([a-z_]+[[:space:]]*>=[[:space:]]*0x80\)	a copy of a varint's size: pcd_size_uleb128	    while (v >= 0x80) {
[^_a-z]region\("	a region found by its name: the &pcd_<fmt>_region_<name> descriptors	pcd_writer_record(&tw->w, region("samples"), rec);
opcode[[:space:]]*[!=]=[[:space:]]*255	Tachyon's opcode sentinel: PCD_TACHYON_V1_FRAME_OPCODE_ABSENT	fr->opcode == 255 ? -1 : fr->opcode
compression[[:space:]]*[!=]=[[:space:]]*[0-9]	compression values: PCD_TACHYON_V1_FILE_COMPRESSION_*	h->compression == 1 ? "zstd" : "none"
\.tag[[:space:]]*=[[:space:]]*[0-9]+;	a union's tag written as a number: the generated _TAG constants	    ev.tag = 11;
<<[[:space:]]*2[[:space:]]*\|	MoarVM's refdescr packed by hand: pcd_moarvm_v3_refdescr_make	c->v2_refs.descr[k] = idx << 2 | d;
[]a-z_)][[:space:]]*&[[:space:]]*3\b	MoarVM's refdescr kind by hand: pcd_moarvm_v3_refdescr_kind	if ((d & 3) == 0 && d != 0) bad(&c->bad[B_UNKNOWN_REF], base + i, d);
(d|\])[[:space:]]*>>[[:space:]]*2\b	MoarVM's refdescr index by hand: pcd_moarvm_v3_refdescr_index	uint64_t sv = k == 2 ? d >> 2 : 0;
size[[:space:]]*-[[:space:]]*8[[:space:]]*\}	MoarVM's TOC self pointer: PCD_MOARVM_V3_TOC_BLOCK_SELF_FROM_END	col_block me = { PCD_MOARVM_V3_BLOCK_TOC, offset, offset + size - 8 };
16[[:space:]]*\+[[:space:]]*24[[:space:]]*\*	a MoarVM TOC's size: PCD_MOARVM_V3_BLOCK_TAG_SIZE, _TOC_BLOCK_ENTRIES_AT, _TOC_ENTRY_SIZE	if (end) *end = *start + 16 + 24 * (uint64_t)n;
pcd_bytes_eq\([^,]*,[[:space:]]*"	a MoarVM block kind name: PCD_MOARVM_V3_BLOCK_*_TAG	outer = pcd_bytes_eq(t->entries[i].kind, "filemeta", 8)
tag[[:space:]]*&[[:space:]]*0x0?[fF]\b	Mono's event type nibble: pcd_mono_v*_event_tag_type	m->by_type[e->tag & 0x0f]++;
PCD_MONO_MT_	Mono metadata types: PCD_MONO_V3_0_METADATA_TYPE_*	if (x->mtype == PCD_MONO_MT_CLASS) m->name = x->detail.u.class.name;
MOJO_EV_[A-Z]	MOJO event ids declared again: PCD_MOJO_EVENT_* (the view) and PCD_MOJO_V3_EVENT_*_TAG	case MOJO_EV_STACK:
type[[:space:]]*&[[:space:]]*0x80	Heph's array flag: pcd_heph_v0_1_attribute_type_array	if (e->attributes[i].type & 0x80) h->array_attributes++;
EOF
)
while IFS=$'\t' read -r pat why example; do
    [ -n "$pat" ] || continue
    n=$((n + 1))
    if ! printf '%s\n' "$example" | grep -qE -- "$pat"; then
        echo "FAIL rule $n ($why): its example no longer matches /$pat/"
        fail=1
    fi
    hits=$(grep -rnE --include='*.c' --include='*.h' -- "$pat" src/ || true)
    if [ -n "$hits" ]; then
        echo "FAIL $why: a literal where the generated name belongs:"
        printf '%s\n' "$hits" | sed 's/^/    /'
        fail=1
    fi
done <<<"$rules"
[ "$n" -ge 20 ] || { echo "FAIL: only $n rules read"; fail=1; }
[ "$fail" = 0 ] && echo "wire_literals: $n rules, no wire fact spelled as a literal in src/"
exit "$fail"
