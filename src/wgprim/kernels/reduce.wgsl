// Reduction: tiles -> one partial per workgroup -> ... -> one value.
//
// Each step is its own dispatch: a workgroup never reads another workgroup's partial in
// the dispatch that writes it. The preamble (ops/operators.py) defines T, A, R,
// identity(), combine(), lift() and finish(), then the block reduce of A by combine
// (ops/block_scan.py: block_reduce), and the packets (kernels/packet_vec4.wgsl: a Packet is
// one 16-byte load of PACKET elements; packet_pairs.wgsl for 64-bit elements). combine must
// be associative and commutative: invocations read interleaved packets for coalesced loads.

override WG: u32 = 256u;
const VECS: u32 = 4u;  // packet loads per invocation per tile: 16 (64-bit: 8) elements in flight

struct Params {
  n: u32,               // elements in this chunk of the input
  groups: u32,          // workgroups that have work (the grid may be folded and larger)
  tiles_per_group: u32, // consecutive tiles each workgroup reduces (reduce_tiles)
  first_index: u32,     // index of this chunk's first element in the whole input (argmin/argmax)
  out_offset: u32,      // where this chunk's partials start in the output
  per_group: u32,       // partials each workgroup combines (reduce_partials)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<Packet>;
@group(0) @binding(2) var<storage, read_write> partials_out: array<A>;
@group(0) @binding(3) var<storage, read> partials_in: array<A>;
@group(0) @binding(4) var<storage, read_write> result: array<R>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// The last packet may be partly past the end: elements past n contribute the identity.
fn packet_lift_tail(v: Packet, i: u32, n: u32) -> A {
  var acc = identity();
  for (var k = 0u; k < PACKET; k++) {
    if (i + k < n) {
      acc = combine(acc, lift(packet_get(v, k), i + k));
    }
  }
  return acc;
}

// Step 1: each workgroup reduces `tiles_per_group` consecutive tiles of WG * VECS packets.
@compute @workgroup_size(WG)
fn reduce_tiles(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let n = params.n;
  let tile_vecs = WG * VECS;
  let first_tile = group * params.tiles_per_group;
  let full_tiles = n / (tile_vecs * PACKET);
  var acc = identity();
  for (var k = 0u; k < params.tiles_per_group; k++) {
    let tile = first_tile + k;
    let base = tile * tile_vecs + t;
    if (tile < full_tiles) {
      // Whole tile in range: no bounds checks, all loads issued before combining.
      let v0 = src[base];
      let v1 = src[base + WG];
      let v2 = src[base + 2u * WG];
      let v3 = src[base + 3u * WG];
      let i = params.first_index + base * PACKET;
      let step = PACKET * WG;
      acc = combine(acc, combine(combine(packet_lift(v0, i), packet_lift(v1, i + step)),
                                 combine(packet_lift(v2, i + 2u * step), packet_lift(v3, i + 3u * step))));
    } else {
      for (var j = 0u; j < VECS; j++) {
        let vi = base + j * WG;
        if (vi * PACKET < n) {
          acc = combine(acc, packet_lift_tail(src[vi], params.first_index + vi * PACKET, params.first_index + n));
        }
      }
    }
  }
  let total = block_reduce(t, acc);
  if (t == 0u) {
    partials_out[params.out_offset + group] = total;
  }
}

// Step 2..k: each workgroup combines `per_group` partials into one.
@compute @workgroup_size(WG)
fn reduce_partials(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let start = group * params.per_group;
  let end = min(start + params.per_group, params.n);
  var acc = identity();
  for (var i = start + t; i < end; i += WG) {
    acc = combine(acc, partials_in[i]);
  }
  let total = block_reduce(t, acc);
  if (t == 0u) {
    partials_out[group] = total;
  }
}

// Last step: one workgroup combines the remaining partials and writes the result.
@compute @workgroup_size(WG)
fn reduce_final(@builtin(local_invocation_index) t: u32) {
  var acc = identity();
  for (var i = t; i < params.n; i += WG) {
    acc = combine(acc, partials_in[i]);
  }
  let total = block_reduce(t, acc);
  if (t == 0u) {
    result[0] = finish(total);
  }
}
