// Single-pass scan with decoupled fallback. Each workgroup publishes its aggregate, then its
// inclusive prefix, packed with a 2-bit status in one atomic word (the value travels inside
// the atomic, never as a separate write). The lookback never waits without bound: after
// MAX_SPINS polls of a predecessor that is not ready it reduces that block's input itself.
const STATUS_NONE = 0u;
const STATUS_AGGREGATE = 1u;
const STATUS_PREFIX = 2u;
const BLOCK = 256u;
const MAX_SPINS = 64u;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> tile_state: array<atomic<u32>>;

var<workgroup> temp: array<u32, 256>;
var<workgroup> exclusive: u32;

fn pack(value: u32, status: u32) -> u32 { return (value << 2u) | status; }

fn reduce_block(block: u32) -> u32 {
  var s = 0u;
  for (var k = 0u; k < BLOCK; k++) {
    s += input[block * BLOCK + k];
  }
  return s;
}

fn look_back(tile: u32) -> u32 {
  var acc = 0u;
  var look = tile - 1u;
  var spins = 0u;
  loop {  // expect: lookback-depth (its walk reaches as far back as the dispatch)
    let s = atomicLoad(&tile_state[look]);
    let status = s & 3u;
    if (status == STATUS_PREFIX) {
      acc += s >> 2u;
      break;
    }
    if (status == STATUS_AGGREGATE) {
      acc += s >> 2u;
      if (look == 0u) { break; }
      look -= 1u;
      spins = 0u;
      continue;
    }
    spins += 1u;
    if (spins >= MAX_SPINS) {
      acc += reduce_block(look);  // fallback: do the predecessor's work ourselves
      if (look == 0u) { break; }
      look -= 1u;
      spins = 0u;
    }
  }
  return acc;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let tile = wid.x;
  temp[li] = input[tile * BLOCK + li];
  workgroupBarrier();
  for (var offset = 1u; offset < BLOCK; offset <<= 1u) {
    var t = temp[li];
    if (li >= offset) { t += temp[li - offset]; }
    workgroupBarrier();
    temp[li] = t;
    workgroupBarrier();
  }
  if (li == 0u) {
    let aggregate = temp[BLOCK - 1u];
    var prefix = 0u;
    if (tile == 0u) {
      atomicStore(&tile_state[tile], pack(aggregate, STATUS_PREFIX));
    } else {
      atomicStore(&tile_state[tile], pack(aggregate, STATUS_AGGREGATE));
      prefix = look_back(tile);
      atomicStore(&tile_state[tile], pack(prefix + aggregate, STATUS_PREFIX));
    }
    exclusive = prefix;
  }
  let base = workgroupUniformLoad(&exclusive);
  output[tile * BLOCK + li] = base + temp[li];
}
