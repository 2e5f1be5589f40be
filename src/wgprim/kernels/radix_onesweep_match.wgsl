// One-sweep passes ranked by subgroup match: joined after radix_sort.wgsl,
// radix_scatter_match.wgsl (the ranking) and radix_onesweep.wgsl (the look-back, whose
// comment says how it reads other workgroups' state without waiting for them).

@compute @workgroup_size(WG)
fn radix_onesweep_match_keys(@builtin(workgroup_id) wid: vec3<u32>,
                             @builtin(num_workgroups) nwg: vec3<u32>,
                             @builtin(local_invocation_index) t: u32,
                             @builtin(subgroup_id) sid: u32,
                             @builtin(subgroup_invocation_id) lane: u32,
                             @builtin(subgroup_size) size: u32,
                             @builtin(num_subgroups) nsg: u32) {
  let index = group_index(wid, nwg);
  if (index >= params.groups) {
    return;
  }
  let group = onesweep_tile(t, index);
  let base = group * MATCH_TILE;
  let valid = min(MATCH_TILE, params.n - base);
  match_context(t, sid, lane, size, base, valid);
  match_rank_local(sid, lane, size, nsg);
  let offset = onesweep_offset(t, group, match_digit_count[t]);
  match_digit_base[t] = offset - match_digit_start[t];
  match_write_keys();
}

@compute @workgroup_size(WG)
fn radix_onesweep_match_pairs(@builtin(workgroup_id) wid: vec3<u32>,
                              @builtin(num_workgroups) nwg: vec3<u32>,
                              @builtin(local_invocation_index) t: u32,
                              @builtin(subgroup_id) sid: u32,
                              @builtin(subgroup_invocation_id) lane: u32,
                              @builtin(subgroup_size) size: u32,
                              @builtin(num_subgroups) nsg: u32) {
  let index = group_index(wid, nwg);
  if (index >= params.groups) {
    return;
  }
  let group = onesweep_tile(t, index);
  let base = group * MATCH_TILE;
  let valid = min(MATCH_TILE, params.n - base);
  match_context(t, sid, lane, size, base, valid);
  for_load_val();
  match_rank_local(sid, lane, size, nsg);
  let offset = onesweep_offset(t, group, match_digit_count[t]);
  match_digit_base[t] = offset - match_digit_start[t];
  match_write_keys();
  workgroupBarrier();
  for_move_val();
  workgroupBarrier();
  for_write_val();
}
