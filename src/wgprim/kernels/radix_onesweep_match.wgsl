// One-sweep passes ranked by subgroup match: joined after radix_sort.wgsl,
// radix_scatter_match.wgsl (the ranking and the scatter) and radix_onesweep.wgsl (the
// look-back, whose comment says how it reads other workgroups' state without waiting for
// them). The same steps as the multi-pass radix_scatter_match_* but for the offsets.
//
// EARLY (preamble constant): count the tile's digits as soon as its keys are loaded and
// publish them before ranking (as CUB's one-sweep publishes its early counts), so that the
// tiles after this one find its counts sooner; costs one workgroup atomicAdd per key.

var<workgroup> os_early: array<atomic<u32>, RADIX>;

fn count_key_item(j: u32) {
  if (tile_position(j) < m_valid) {
    atomicAdd(&os_early[held_digit(match_keys[j])], 1u);
  }
}

fn for_count_key() {
  count_key_item(0u); count_key_item(1u); count_key_item(2u); count_key_item(3u);
  if (ITEMS > 4u) { count_key_item(4u); count_key_item(5u); count_key_item(6u); count_key_item(7u); }
  if (ITEMS > 8u) { count_key_item(8u); count_key_item(9u); count_key_item(10u); count_key_item(11u); }
  if (ITEMS > 12u) { count_key_item(12u); count_key_item(13u); count_key_item(14u); count_key_item(15u); }
  if (ITEMS > 16u) { count_key_item(16u); count_key_item(17u); count_key_item(18u); count_key_item(19u); }
  if (ITEMS > 20u) { count_key_item(20u); count_key_item(21u); count_key_item(22u); count_key_item(23u); }
}

// Steps 1-3 and the tile's offsets (EARLY: counted and published before the ranking).
fn onesweep_match_rank(inv: MatchInvocation, group: u32) -> u32 {
  if (!EARLY) {
    match_rank_local(inv.sid, inv.lane, inv.size, inv.nsg);
    return onesweep_offset(inv.index, group, match_count(inv.index));
  }
  let t = inv.index;
  if (t < RADIX) {
    atomicStore(&os_early[t], 0u);
  }
  match_load(inv.nsg);
  workgroupBarrier();
  for_count_key();
  workgroupBarrier();
  let count = atomicLoad(&os_early[min(t, RADIX - 1u)]);
  if (t < RADIX && onesweep_publishes(group)) {
    onesweep_publish(t, group, count);
  }
  match_rank_loaded(inv.sid, inv.lane, inv.size, inv.nsg);
  return onesweep_lookback(t, group, select(0u, count, t < RADIX), true);
}

@compute @workgroup_size(WG)
fn radix_onesweep_match_keys(inv: MatchInvocation) {
  let group = onesweep_claim(inv.index, inv.wid, inv.nwg);
  if (group == NO_TILE) {
    return;
  }
  match_begin(inv, group);
  match_scatter_keys(inv.index, onesweep_match_rank(inv, group));
}

@compute @workgroup_size(WG)
fn radix_onesweep_match_pairs(inv: MatchInvocation) {
  let group = onesweep_claim(inv.index, inv.wid, inv.nwg);
  if (group == NO_TILE) {
    return;
  }
  match_begin(inv, group);
  for_load_val();
  match_scatter_keys(inv.index, onesweep_match_rank(inv, group));
  match_scatter_vals();
}
